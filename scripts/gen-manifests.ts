// Generates the kustomize install (manifests/*.yaml, except kustomization.yaml and components/) from the Helm
// chart with its default values: `node --import tsx scripts/gen-manifests.ts` (`--check`: exit 1 when the
// committed files differ). Also copies crds/*.yaml into the chart (charts/ehpa-adapter/files/crds), since a
// chart cannot read files outside its directory. test/slow/helm-chart.test.ts fails when either
// copy is stale, so edit the chart (or scripts/gen-crds.ts), not the generated files.
import { readFileSync, writeFileSync, readdirSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHART_DIR, MANIFESTS_DIR, REPO_ROOT, manifestFiles } from './helm-chart.ts';

export const CHART_CRDS_DIR = join(CHART_DIR, 'files', 'crds');

/** The files to write: absolute path -> contents. */
export function generatedFiles(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, text] of manifestFiles()) out.set(join(MANIFESTS_DIR, name), text);
  const crdDir = join(REPO_ROOT, 'crds');
  for (const f of readdirSync(crdDir).filter((n) => n.endsWith('.yaml') && n !== 'kustomization.yaml')) {
    out.set(join(CHART_CRDS_DIR, f), readFileSync(join(crdDir, f), 'utf8'));
  }
  return out;
}

/** Paths whose committed contents differ from the generated ones. */
export function staleFiles(): string[] {
  const stale: string[] = [];
  for (const [path, text] of generatedFiles()) {
    if (!existsSync(path) || readFileSync(path, 'utf8') !== text) stale.push(relative(REPO_ROOT, path));
  }
  return stale;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--check')) {
    const stale = staleFiles();
    if (stale.length) {
      console.error(`stale (run node --import tsx scripts/gen-manifests.ts): ${stale.join(', ')}`);
      process.exit(1);
    }
  } else {
    for (const [path, text] of generatedFiles()) writeFileSync(path, text);
  }
}
