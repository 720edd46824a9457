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

/** Deep equality with quantity-aware strings; `undefined` and absent keys are the same thing. Allocates nothing
 *  itself: every EHPA reconcile compares its desired HPA, TSP and status with the cached ones, and at 10,000
 *  EHPAs the key sets this built were 280 MiB of garbage in two minutes of a sampling allocation profile. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'string' && typeof b === 'string') return sameQuantity(a, b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!semanticEqual(a[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const k in ao) {
    if (Object.hasOwn(ao, k) && !semanticEqual(ao[k], Object.hasOwn(bo, k) ? bo[k] : undefined)) return false;
  }
  // A key only b has equals an absent one when its value is undefined.
  for (const k in bo) {
    if (Object.hasOwn(bo, k) && !Object.hasOwn(ao, k) && bo[k] !== undefined) return false;
  }
  return true;
}
