#!/usr/bin/env node
// Entry point: the compiled build when present (the container image), the TypeScript sources through
// tsx otherwise (a source checkout after `npm ci`), so both run the same code.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'main.js');
if (existsSync(compiled)) {
  await import(pathToFileURL(compiled).href);
} else {
  await import('tsx/esm');
  await import(pathToFileURL(join(root, 'src', 'main.ts')).href);
}
