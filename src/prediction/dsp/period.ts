// Crane's period detection (Signal.FindPeriod and findPeriod, docs/crane-behaviour.md §D.7), made deterministic: the 100
// permutations that set the spectral threshold come from a seeded generator instead of the clock.
import { autoCorrelation } from './autocorrelation.ts';
import { peakScratch, realDftMagnitudes, realDftPeakMagnitude } from './dft.ts';
import { fitShortcuts } from './fit-shortcuts.ts';
import { SeededRandom } from './seeded-random.ts';
import { DAY_SECONDS, truncateToPeriods, WEEK_SECONDS, type Signal } from './signal.ts';

const PERMUTATIONS = 100;
const MAX_ACF_PEAK_SEARCH_SECONDS = 4 * 3600;

/** Crane's isPeak: least-squares slope rises over [i-k, i] and falls over [i, i+k]. */
export function isPeak(x: ArrayLike<number>, i: number, k: number): boolean {
  const n = x.length;
  if (i < 1 || i > n - 1) return false;
  const slope = (from: number, to: number) => {
    let sx = 0, sy = 0, sxy = 0, sxx = 0;
    for (let j = from; j <= to; j++) {
      const y = x[j] as number;
      sx += j;
      sy += y;
      sxy += j * y;
      sxx += j * j;
    }
    const m = to - from + 1;
    return (m * sxy - sx * sy) / (m * sxx - sx * sx);
  };
  // NaN slopes (a single point) fail both comparisons, as in Go.
  if (!(slope(Math.max(0, i - k), i) > 0)) return false;
  if (!(slope(i, Math.min(n - 1, i + k)) < 0)) return false;
  return true;
}

/**
 * Spectral lines stronger than in 99 of 100 shuffles of the series: the permutation threshold. `settled`, when
 * given, is asked after each shuffle with a lower bound on the threshold (the second-largest maximum so far;
 * the threshold is the second largest of all 100); when it answers true the test stops and returns NaN.
 */
function permutationThreshold(samples: Float64Array, rng: SeededRandom, settled?: (atLeast: number) => boolean): number {
  const x = Float64Array.from(samples);
  const maxima = new Float64Array(PERMUTATIONS);
  const mags = new Float64Array(Math.floor(x.length / 2));
  // Even lengths (every whole number of days or weeks at a whole-minute step) take the buffer-reusing peak.
  const scratch = fitShortcuts.enabled && x.length % 2 === 0 && x.length >= 4 ? peakScratch(x.length) : null;
  let first = -Infinity;
  let second = -Infinity;
  for (let p = 0; p < PERMUTATIONS; p++) {
    rng.shuffle(x); // the shuffles accumulate, as in Crane
    let pmax: number;
    if (scratch) pmax = realDftPeakMagnitude(x, scratch);
    else {
      realDftMagnitudes(x, mags);
      pmax = 0;
      for (let k = 1; k < mags.length; k++) if ((mags[k] as number) > pmax) pmax = mags[k] as number;
    }
    maxima[p] = pmax;
    if (pmax > first) [first, second] = [pmax, first];
    else if (pmax > second) second = pmax;
    if (settled && p >= 1 && settled(second)) return NaN;
  }
  maxima.sort();
  return maxima[PERMUTATIONS - 2] as number;
}

export interface PeriodDetection {
  /** Whole seconds, or -1 when no period was found. */
  periodSeconds: number;
  /** Candidate lags (samples) whose spectral line beat the threshold, longest first. */
  candidates: number[];
  threshold: number;
}

/** Crane's Signal.FindPeriod with a seeded permutation test. */
export function detectPeriod(signal: Signal, seed: number): PeriodDetection {
  return detect(signal, seed, false) as PeriodDetection;
}

/**
 * The lags whose spectral lines decide whether FindPeriod can answer exactly a day or a week: the period is
 * the candidate lag with the highest autocorrelation among those at an ACF peak (above 0), and a candidate
 * is a lag floor(n / k) whose line k beats the threshold. Unless a day or week lag is such a peak and one of
 * its lines beats the threshold, the answer is neither. So findPeriodIn's verdict is settled (neither) once
 * the threshold is known to be at least the strongest of those lines: `dayOrWeekLine` is that line's
 * magnitude (-Infinity when no day or week lag is a positive ACF peak, which settles it at once).
 */
function dayOrWeekLine(signal: Signal, mags: Float64Array, acf: Float64Array): number {
  const n = signal.samples.length;
  const maxR = Math.trunc(MAX_ACF_PEAK_SEARCH_SECONDS * signal.sampleRate);
  let strongest = -Infinity;
  for (let k = 2; k < mags.length; k++) {
    const h = Math.floor(n / k);
    const seconds = Math.trunc(h / signal.sampleRate);
    if (seconds !== DAY_SECONDS && seconds !== WEEK_SECONDS) continue;
    if (!(isPeak(acf, h, Math.min(maxR, Math.floor(h / 2))) && (acf[h] as number) > 0)) continue;
    if ((mags[k] as number) > strongest) strongest = mags[k] as number;
  }
  return strongest;
}

/**
 * FindPeriod; with `dayOrWeekOnly` (findPeriodIn, which keeps only a day or a week), the permutation test
 * stops as soon as it cannot make the answer a day or a week, and null stands for "neither".
 */
function detect(signal: Signal, seed: number, dayOrWeekOnly: boolean): PeriodDetection | null {
  const s = signal.samples;
  const n = s.length;
  const early = dayOrWeekOnly && fitShortcuts.enabled;
  let mags: Float64Array | undefined;
  let acf: Float64Array | undefined;
  let settled: ((atLeast: number) => boolean) | undefined;
  if (early) {
    mags = realDftMagnitudes(s);
    acf = autoCorrelation(s);
    const line = dayOrWeekLine(signal, mags, acf);
    if (line === -Infinity) return null;
    settled = (atLeast) => atLeast >= line;
  }
  const threshold = permutationThreshold(s, new SeededRandom(seed), settled);
  if (Number.isNaN(threshold) && early) return null;
  mags ??= realDftMagnitudes(s);
  const candidates: number[] = [];
  for (let k = 2; k < mags.length; k++) {
    if ((mags[k] as number) > threshold) {
      const h = Math.floor(n / k);
      if (candidates.length === 0 || (candidates[candidates.length - 1] as number) > h) candidates.push(h);
    }
  }
  acf ??= autoCorrelation(s);
  const maxR = Math.trunc(MAX_ACF_PEAK_SEARCH_SECONDS * signal.sampleRate);
  let best = -1;
  let maxCor = 0;
  for (const h of candidates) {
    const r = Math.min(maxR, Math.floor(h / 2));
    if (isPeak(acf, h, r) && maxCor < (acf[h] as number)) {
      best = h;
      maxCor = acf[h] as number;
    }
  }
  return { periodSeconds: best >= 0 ? Math.trunc(best / signal.sampleRate) : -1, candidates, threshold };
}

/** Crane's findPeriod with the window it decided on: the last whole weeks, or else the last whole days. */
export interface PeriodFinding {
  /** 86400 or 604800 seconds, or null. */
  periodSeconds: number | null;
  /** The samples FindPeriod ran on (null when the signal holds fewer than two whole days). */
  window: Signal | null;
}

/**
 * Crane's findPeriod: with two or more whole weeks decide on those weeks, else with two or more whole days
 * on those days; only exactly 24h or 168h counts as a period.
 */
export function findPeriodIn(signal: Signal, seed: number): PeriodFinding {
  for (const unit of [WEEK_SECONDS, DAY_SECONDS]) {
    const t = truncateToPeriods(signal, unit);
    if (t && t.periods > 1) {
      const p = detect(t.signal, seed, true)?.periodSeconds ?? null;
      return { periodSeconds: p === DAY_SECONDS || p === WEEK_SECONDS ? p : null, window: t.signal };
    }
  }
  return { periodSeconds: null, window: null };
}

/** Crane's findPeriod: the period in seconds or null (see findPeriodIn). */
export function findPeriod(signal: Signal, seed: number): number | null {
  return findPeriodIn(signal, seed).periodSeconds;
}
