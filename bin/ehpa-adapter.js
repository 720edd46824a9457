#!/usr/bin/env node
// Entry point: the compiled build when present (the container image, `npm run build`), the TypeScript
// sources through tsx otherwise (a source checkout after `npm ci`), so both run the same code. tsx is a
// development dependency: a production install without dist/ gets one clear line instead of a stack trace.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'main.js');
if (existsSync(compiled)) {
  await import(pathToFileURL(compiled).href);
} else {
  try {
    await import('tsx/esm');
  } catch {
    process.stderr.write(
      `ehpa-adapter: no compiled build at ${compiled} and no tsx to run the TypeScript sources; ` +
        'run `npm run build` (or `npm ci` with dev dependencies in a source checkout)\n',
    );
    process.exit(1);
  }
  await import(pathToFileURL(join(root, 'src', 'main.ts')).href);
}
