import { readFileSync } from 'node:fs';
import { defineCommand } from './command.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export const PACKAGE_VERSION: string = pkg.version;

export const versionCommand = defineCommand({
  name: 'version',
  flags: [],
  async run(_flags, io) {
    io.stdout.write(JSON.stringify({ name: 'ehpa-adapter', version: PACKAGE_VERSION, node: process.version }) + '\n');
    return 0;
  },
});
