// A directory laid out as kubelet mounts a Secret volume (its AtomicWriter): the files live in a hidden
// timestamped directory, `..data` is a symlink to it, and each visible name is a symlink through `..data`.
// An update writes a new timestamped directory and renames a fresh symlink over `..data`, so every file
// changes in one step and the old directory is removed afterwards.
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export class SecretVolume {
  private generation = 0;
  private current: string | undefined;

  constructor(readonly dir: string) {}

  path(name: string): string {
    return join(this.dir, name);
  }

  /** Publishes `files` (name -> content) atomically, as kubelet does on a Secret update. */
  async publish(files: Record<string, string>): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const stamp = `..${new Date().toISOString().replace(/[-:.]/g, '_')}.${++this.generation}`;
    await mkdir(join(this.dir, stamp));
    for (const [name, text] of Object.entries(files)) await writeFile(join(this.dir, stamp, name), text, { mode: 0o600 });
    await symlink(stamp, join(this.dir, '..data_tmp'));
    await rename(join(this.dir, '..data_tmp'), join(this.dir, '..data'));
    for (const name of Object.keys(files)) {
      await symlink(join('..data', name), join(this.dir, name)).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
      });
    }
    if (this.current) await rm(join(this.dir, this.current), { recursive: true, force: true });
    this.current = stamp;
  }
}
