// A regularly sampled series as Crane's DSP code sees it (pkg/prediction/dsp/signal.go): a sample rate in
// Hz and the values, oldest first. Periods are whole seconds.

export interface Signal {
  /** Samples per second, 1 / interval. */
  sampleRate: number;
  samples: Float64Array;
}

export const HOUR_SECONDS = 3600;
export const DAY_SECONDS = 86_400;
export const WEEK_SECONDS = 604_800;

/** Samples in one period, truncated like Go's int(period.Seconds() * sampleRate). */
export function samplesPerPeriod(periodSeconds: number, sampleRate: number): number {
  return Math.trunc(periodSeconds * sampleRate);
}

/**
 * Crane's Signal.Truncate: the last whole periods of the signal and how many there are; null when the
 * signal is shorter than one period.
 */
export function truncateToPeriods(signal: Signal, periodSeconds: number): { signal: Signal; periods: number } | null {
  const n = signal.samples.length;
  if (n / signal.sampleRate < periodSeconds) return null;
  const per = samplesPerPeriod(periodSeconds, signal.sampleRate);
  if (per <= 0) return null;
  const periods = Math.floor(n / per);
  return { signal: { sampleRate: signal.sampleRate, samples: signal.samples.subarray(n - periods * per) }, periods };
}
