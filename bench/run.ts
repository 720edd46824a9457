// `npm run bench`: runs every benchmark suite (bench/<area>/run.ts) in turn, or only those named on the
// command line (`npm run bench -- vpa dsp`). Each suite prints its own table and its ratio to upstream.
import { readdirSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const dir = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2);
const suites = readdirSync(dir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'run.ts')))
  .map((d) => d.name)
  .filter((n) => wanted.length === 0 || wanted.includes(n))
  .sort();
if (suites.length === 0) {
  console.error(`bench: no suite matches ${wanted.join(', ') || '(any)'}`);
  process.exit(2);
}
let failed = 0;
for (const s of suites) {
  console.log(`\n=== bench: ${s} ===`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(dir, s, 'run.ts')], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
