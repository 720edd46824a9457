// Applies manifests/ the way a user would with `kubectl apply --server-side`: the kustomization's
// `resources` (plain files; no kustomize transformers are used there) in order, through client-node's
// KubernetesObjectApi with a field manager, optionally as a server-side dry run.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubernetesObjectApi, PatchStrategy, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments, parse } from 'yaml';
import { REPO_ROOT } from './binaries.ts';

export const MANIFESTS_DIR = join(REPO_ROOT, 'manifests');

interface Kustomization {
  kind?: string;
  resources?: string[];
  components?: string[];
  patches?: { path?: string; patch?: string; target?: { kind?: string; name?: string } }[];
}

export async function readYamlObjects(path: string): Promise<KubernetesObject[]> {
  const docs = parseAllDocuments(await readFile(path, 'utf8'));
  const out: KubernetesObject[] = [];
  for (const d of docs) {
    if (d.errors.length) throw new Error(`${path}: ${d.errors[0]!.message}`);
    const o = d.toJS() as KubernetesObject | null;
    if (o) out.push(o);
  }
  return out;
}

export async function readKustomization(dir: string): Promise<Kustomization> {
  return parse(await readFile(join(dir, 'kustomization.yaml'), 'utf8')) as Kustomization;
}

/** Objects of a kustomization directory: its resources (files or nested kustomization dirs), in order. */
export async function loadKustomization(dir = MANIFESTS_DIR): Promise<KubernetesObject[]> {
  const k = await readKustomization(dir);
  const out: KubernetesObject[] = [];
  for (const r of k.resources ?? []) {
    const p = join(dir, r);
    if (r.endsWith('.yaml') || r.endsWith('.yml')) out.push(...(await readYamlObjects(p)));
    else out.push(...(await loadKustomization(p)));
  }
  return out;
}

interface JsonPatchOp {
  op: string;
  path: string;
  value?: unknown;
}

/** RFC 6902 `add`/`replace` on plain JSON, enough for the components we ship. */
export function applyJsonPatch<T>(doc: T, ops: JsonPatchOp[]): T {
  const root = structuredClone(doc) as unknown;
  for (const op of ops) {
    if (op.op !== 'add' && op.op !== 'replace') throw new Error(`unsupported JSON patch op ${op.op}`);
    const parts = op.path.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = parts.pop();
    if (last === undefined) throw new Error(`bad JSON patch path ${op.path}`);
    let cur = root as Record<string, unknown> | unknown[];
    for (const p of parts) {
      const next = Array.isArray(cur) ? cur[Number(p)] : cur[p];
      if (next === undefined || next === null || typeof next !== 'object') throw new Error(`JSON patch path ${op.path}: ${p} missing`);
      cur = next as Record<string, unknown> | unknown[];
    }
    if (Array.isArray(cur)) {
      if (last === '-') cur.push(op.value);
      else if (op.op === 'add') cur.splice(Number(last), 0, op.value);
      else cur[Number(last)] = op.value;
    } else {
      cur[last] = op.value;
    }
  }
  return root as T;
}

/**
 * A component (kind: Component) applied on top of a base: its JSON6902 `patches` with a target kind/name
 * are applied to matching objects. Returns the objects the component adds (its `resources`) followed by
 * the patched objects (only those a patch touched).
 */
export async function applyComponent(base: KubernetesObject[], componentDir: string): Promise<KubernetesObject[]> {
  const k = await readKustomization(componentDir);
  if (k.kind !== 'Component') throw new Error(`${componentDir}: not a kustomize Component`);
  const added: KubernetesObject[] = [];
  for (const r of k.resources ?? []) added.push(...(await readYamlObjects(join(componentDir, r))));
  const touched = new Map<KubernetesObject, KubernetesObject>();
  for (const p of k.patches ?? []) {
    const text = p.path ? await readFile(join(componentDir, p.path), 'utf8') : p.patch;
    if (!text) throw new Error(`${componentDir}: patch without path or body`);
    const ops = parse(text) as JsonPatchOp[];
    for (const obj of base) {
      if (p.target?.kind && obj.kind !== p.target.kind) continue;
      if (p.target?.name && obj.metadata?.name !== p.target.name) continue;
      touched.set(obj, applyJsonPatch(touched.get(obj) ?? obj, ops));
    }
  }
  if (k.patches?.length && touched.size === 0) throw new Error(`${componentDir}: no patch matched any object`);
  return [...added, ...touched.values()];
}

export interface ApplyResult {
  object: KubernetesObject;
  ok: boolean;
  error?: string;
}

export async function applyObjects(kc: KubeConfig, objects: KubernetesObject[], opts: { dryRun?: boolean; fieldManager?: string } = {}): Promise<ApplyResult[]> {
  const client = KubernetesObjectApi.makeApiClient(kc);
  const results: ApplyResult[] = [];
  for (const object of objects) {
    try {
      await client.patch(object, undefined, opts.dryRun ? 'All' : undefined, opts.fieldManager ?? 'ehpa-e2e', true, PatchStrategy.ServerSideApply);
      results.push({ object, ok: true });
    } catch (err) {
      const e = err as { body?: unknown; message?: string };
      results.push({ object, ok: false, error: `${e.message ?? String(err)} ${typeof e.body === 'string' ? e.body : JSON.stringify(e.body ?? '')}`.slice(0, 800) });
    }
  }
  return results;
}

