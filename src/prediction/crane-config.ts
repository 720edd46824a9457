// Turns the EHPA/TSP algorithm blocks (strings, as in Crane's CRDs) into forecaster settings with Crane's
// rules (docs/crane-behaviour.md §D.5, §E.1): numbers are strconv.ParseFloat strings where "" means the default, durations
// accept "<N>d" or Go durations, and any error makes Crane fall back to its whole default configuration.
// The error is returned so the controller can report it; the settings are always usable.
import type { DspSpec, PercentileSpec } from '../api/prediction.ts';
import { parseGoDurationSeconds } from '../gomath/go-time.ts';
import { DEFAULT_CRANE_ESTIMATORS, type CraneEstimatorSpec } from './dsp/crane-estimators.ts';
import { DEFAULT_PERCENTILE_CONFIG, type PercentileConfig } from './percentile/percentile-forecast.ts';
import type { HistogramConfig } from './percentile/histogram-config.ts';

/** Crane's utils.ParseDuration, in seconds: "15d" (the whole string N + "d") or Go's time.ParseDuration.
 *  Both branches scan once (linear time on any input). */
export function craneParseDurationSeconds(text: string): number {
  if (/^[+-]?\d+d$/.test(text)) return Number(text.slice(0, -1)) * 86_400;
  return parseGoDurationSeconds(text);
}

// strconv.ParseFloat's decimal syntax. Written so that no two quantifiers can share a digit (`\d+(\.\d*)?`
// rather than `\d+\.?\d*`): the old form backtracked quadratically on a long digit run with a bad tail.
const GO_FLOAT = /^[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;

/** Crane's utils.ParseFloat: "" gives the default, otherwise strconv.ParseFloat's decimal syntax. */
export function craneParseFloat(text: string | undefined, defaultValue: number): number {
  if (text === undefined || text.length === 0) return defaultValue;
  if (!GO_FLOAT.test(text)) throw new Error(`strconv.ParseFloat: parsing "${text}": invalid syntax`);
  const t = text.toLowerCase().replace(/^\+/, '');
  if (t.endsWith('inf') || t.endsWith('infinity')) return t.startsWith('-') ? -Infinity : Infinity;
  if (t.endsWith('nan')) return NaN;
  return Number(t);
}

export interface DspSettings {
  intervalSeconds: number;
  historySeconds: number;
  craneEstimators: readonly CraneEstimatorSpec[];
}

export const DEFAULT_DSP_SETTINGS: DspSettings = {
  intervalSeconds: 60,
  historySeconds: 15 * 86_400,
  craneEstimators: DEFAULT_CRANE_ESTIMATORS,
};

/** Crane's dsp makeInternalConfig; on error the default settings and the error text. */
export function dspSettingsFromSpec(spec: DspSpec | undefined): { settings: DspSettings; error?: string; errorField?: string } {
  if (!spec) return { settings: DEFAULT_DSP_SETTINGS };
  // The field being read when Crane's parser fails: its error text ("historyDuration is too short", "time:
  // invalid duration \"\"") names Crane's internal names or none, and the condition must name the user's.
  let at = 'sampleInterval';
  try {
    const intervalSeconds = craneParseDurationSeconds(spec.sampleInterval ?? '');
    if (intervalSeconds > 3600) throw new Error('historyResolution is too long');
    at = 'historyLength';
    const historySeconds = craneParseDurationSeconds(spec.historyLength ?? '');
    if (historySeconds < 48 * 3600) throw new Error('historyDuration is too short');
    const estimators: CraneEstimatorSpec[] = [];
    for (const [i, e] of (spec.estimators?.maxValue ?? []).entries()) {
      at = `estimators.maxValue[${i}].marginFraction`;
      estimators.push({ kind: 'maxValue', marginFraction: craneParseFloat(e.marginFraction, 0) });
    }
    for (const [i, e] of (spec.estimators?.fft ?? []).entries()) {
      at = `estimators.fft[${i}]`;
      estimators.push({
        kind: 'fft',
        marginFraction: craneParseFloat(e.marginFraction, 0),
        highFrequencyThreshold: craneParseFloat(e.highFrequencyThreshold, 1.0 / 3600),
        lowAmplitudeThreshold: craneParseFloat(e.lowAmplitudeThreshold, 1.0),
        maxNumOfSpectrumItems: e.maxNumOfSpectrumItems ?? 100,
        minNumOfSpectrumItems: e.minNumOfSpectrumItems ?? 3,
      });
    }
    return { settings: { intervalSeconds, historySeconds, craneEstimators: estimators.length ? estimators : DEFAULT_CRANE_ESTIMATORS } };
  } catch (e) {
    return { settings: DEFAULT_DSP_SETTINGS, error: (e as Error).message, errorField: at };
  }
}

export interface PercentileSettings {
  aggregated: boolean;
  intervalSeconds: number;
  historySeconds: number;
  config: PercentileConfig;
}

/** Crane's defaultInternalConfig for the percentile predictor: what runs when a TSP metric has no percentile
 *  block or one its makeInternalConfig refuses (gocrane/crane pkg/prediction/percentile/config.go and
 *  aggregate_signals.go `GetConfig` at master, docs/crane-behaviour.md §E.1). */
export const DEFAULT_PERCENTILE_SETTINGS: PercentileSettings = {
  aggregated: true,
  intervalSeconds: 60,
  historySeconds: 7 * 86_400,
  config: DEFAULT_PERCENTILE_CONFIG,
};

/** Crane's percentile makeInternalConfig; on error the default settings and the error text. */
export function percentileSettingsFromSpec(spec: PercentileSpec | undefined): { settings: PercentileSettings; error?: string } {
  if (!spec) return { settings: DEFAULT_PERCENTILE_SETTINGS };
  try {
    const intervalSeconds = craneParseDurationSeconds(spec.sampleInterval ?? '');
    const historySeconds = craneParseDurationSeconds(spec.historyLength ?? '');
    craneParseDurationSeconds(spec.histogram?.halfLife ?? ''); // parsed (and required) but unused by Crane
    const h = spec.histogram ?? {};
    let histogram: HistogramConfig = DEFAULT_PERCENTILE_CONFIG.histogram;
    if (h.bucketSizeGrowthRatio && h.firstBucketSize && h.maxValue) {
      const ratio = 1.0 + craneParseFloat(h.bucketSizeGrowthRatio, 0);
      const firstBucketSize = craneParseFloat(h.firstBucketSize, 0);
      const maxValue = craneParseFloat(h.maxValue, 0);
      const epsilon = craneParseFloat(h.epsilon, 1e-10);
      if (!(maxValue > 0) || !(firstBucketSize > 0) || !(ratio > 1) || !(epsilon > 0)) {
        throw new Error('maxValue, firstBucketSize and epsilon must be > 0.0, ratio must be > 1.0');
      }
      histogram = { kind: 'exponential', maxValue, firstBucketSize, ratio, epsilon };
    } else if (h.bucketSize && h.maxValue) {
      const bucketSize = craneParseFloat(h.bucketSize, 0);
      const maxValue = craneParseFloat(h.maxValue, 0);
      const epsilon = craneParseFloat(h.epsilon, 1e-10);
      if (!(maxValue > 0) || !(bucketSize > 0) || !(epsilon > 0)) throw new Error('maxValue and bucketSize must both be positive');
      histogram = { kind: 'linear', maxValue, bucketSize, epsilon };
    }
    const config: PercentileConfig = {
      percentile: craneParseFloat(spec.percentile, DEFAULT_PERCENTILE_CONFIG.percentile),
      marginFraction: craneParseFloat(spec.marginFraction, DEFAULT_PERCENTILE_CONFIG.marginFraction),
      minSampleWeight: craneParseFloat(spec.minSampleWeight, DEFAULT_PERCENTILE_CONFIG.minSampleWeight),
      targetUtilization: craneParseFloat(spec.targetUtilization, DEFAULT_PERCENTILE_CONFIG.targetUtilization),
      histogram,
    };
    return { settings: { aggregated: spec.aggregated ?? false, intervalSeconds, historySeconds, config } };
  } catch (e) {
    return { settings: DEFAULT_PERCENTILE_SETTINGS, error: (e as Error).message };
  }
}

/** The algorithm types Crane has a predictor for (pkg/prediction: `dsp`, `percentile`). */
export const ALGORITHM_TYPES: readonly string[] = ['dsp', 'percentile'];

/**
 * What Crane would silently replace in an algorithm block at `field` (https://github.com/gocrane/crane/issues/352): an
 * algorithmType it has no predictor for (Crane skips the metric; we used to run DSP), and a dsp block that
 * its makeInternalConfig refuses (Crane then runs its 15-day defaults, which a user asking for "1d" would
 * not expect). Each message names the field and the reason, so the object's condition says what to change.
 * An absent algorithmType means `dsp` here, as it always has; only the block the type selects is read, as
 * in Crane. A refused percentile block is not a problem: see craneDefaultsApplied.
 */
export function algorithmSettingsProblems(a: { algorithmType?: string; dsp?: DspSpec; percentile?: PercentileSpec } | undefined, field: string): string[] {
  if (!a) return [];
  const type = a.algorithmType ?? 'dsp';
  if (!ALGORITHM_TYPES.includes(type)) return [`${field}.algorithmType is ${JSON.stringify(type)}; it must be dsp or percentile`];
  // A percentile block Crane refuses runs Crane's defaults here too, said in a condition (craneDefaultsApplied).
  if (type === 'percentile') return [];
  const { error, errorField } = dspSettingsFromSpec(a.dsp);
  return error ? [`${field}.dsp.${errorField} is not valid (${error}); Crane would silently run its defaults instead (1m samples, 15d history)`] : [];
}

/**
 * Crane's tutorials leave `historyLength` out of their percentile blocks. Crane's makeInternalConfig then
 * fails on the empty duration (so it does on an empty `sampleInterval` or `histogram.halfLife`, or any value
 * it cannot parse), the predictor keeps no config for the query, and GetConfig hands out the whole default
 * configuration (gocrane/crane pkg/prediction/percentile/aggregate_signals.go `Add` and `GetConfig`,
 * config.go `defaultInternalConfig`, at master). The same runs here (percentileSettingsFromSpec), and the
 * TSP's `Defaulted` condition says so: this names the block and the parser's reason, undefined when the
 * block is used as written or the metric is not percentile.
 */
export function craneDefaultsApplied(a: { algorithmType?: string; percentile?: PercentileSpec } | undefined, field: string): string | undefined {
  if (a?.algorithmType !== 'percentile' || a.percentile === undefined) return undefined;
  const { error } = percentileSettingsFromSpec(a.percentile);
  return error ? `${field}.percentile (${error})` : undefined;
}

/** The `Defaulted` condition's message for the blocks craneDefaultsApplied named: which, and every default. */
export function craneDefaultsMessage(blocks: readonly string[]): string {
  const d = DEFAULT_PERCENTILE_SETTINGS;
  const h = d.config.histogram;
  const histogram = h.kind === 'linear' ? `a linear histogram to ${h.maxValue} in steps of ${h.bucketSize}` : `an exponential histogram to ${h.maxValue}`;
  return (
    `Crane's default percentile configuration runs, as in Crane, which cannot parse ${blocks.join(', ')}: ` +
    `sampleInterval ${d.intervalSeconds / 60}m, historyLength ${d.historySeconds / 86_400}d, percentile ${d.config.percentile}, marginFraction ${d.config.marginFraction}, ` +
    `targetUtilization ${d.config.targetUtilization}, aggregated ${d.aggregated}, ${histogram} (larger values, e.g. memory in bytes, all fall in its last bucket). ` +
    `None of the block's own fields is used: give it historyLength, sampleInterval and histogram.halfLife to run it as written`
  );
}
