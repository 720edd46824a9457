// "Is what the API server stored the same as what we want?" The server canonicalises quantities
// ("0.5" is stored as "500m"), so a byte-wise comparison would rewrite objects on every reconcile.
// Strings that both parse as Kubernetes quantities (src/quantity, apimachinery's parser) compare by value;
// everything else compares exactly.
import { tryParseQuantity } from '../quantity/index.ts';

function sameQuantity(a: string, b: string): boolean {
  const qa = tryParseQuantity(a);
  if (!qa) return false;
  const qb = tryParseQuantity(b);
  return qb !== undefined && qa.cmp(qb) === 0;
}

/** Deep equality with quantity-aware strings; `undefined` and absent keys are the same thing. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'string' && typeof b === 'string') return sameQuantity(a, b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => semanticEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!semanticEqual(ao[k], bo[k])) return false;
  return true;
}
