// When a cached forecast is old enough to refit. Every TSP fits at a cold start (or after a change to many
// at once), so a fixed --model-update-interval would bring them all back for a refit together, twice a day,
// each time a burst of history reads and fits as long as the cold start. Each forecast instead gets its own
// age limit in (1 − spread, 1] × the interval, from a hash of its key: stable across passes and restarts,
// so one TSP refits on a steady rhythm, and a thousand started together come back spread over
// spread × interval (2.4 h at 12 h and the default 0.2), so their refits never line up again.

/** Fraction of --model-update-interval over which refits are spread. */
export const DEFAULT_REFIT_SPREAD = 0.2;

/** FNV-1a (32 bit) of the key's UTF-16 code units, as a fraction in [0, 1). */
function unitHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h / 2 ** 32;
}

/** The age (ms) past which the forecast cached under `key` is rebuilt: in (1 − spread, 1] × intervalMs. */
export function refitAgeMs(key: string, intervalMs: number, spread = DEFAULT_REFIT_SPREAD): number {
  return intervalMs * (1 - spread * unitHash(key));
}
