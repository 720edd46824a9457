// The run-time half of the bounds in api/bounds.ts for what a prediction asks for: a TSP's spec and any
// algorithm block (a TSP's or an EHPA's). The CRD refuses these at admission; this catches objects stored
// before the bound existed. Each problem names the field, the value and the bound, so the condition tells
// the user what to change. Crane's own rules (a bad string falls back to the default configuration) are
// left to crane-config.ts: a bound is checked on what will actually run.
import { BOUNDS } from '../api/bounds.ts';
import type { PredictionAlgorithm, TimeSeriesPrediction } from '../api/prediction.ts';
import {
  algorithmSettingsProblems,
  dspSettingsFromSpec,
  percentileSettingsFromSpec,
  craneParseDurationSeconds,
  type DspSettings,
  type PercentileSettings,
} from './crane-config.ts';
import type { CraneEstimatorSpec } from './dsp/crane-estimators.ts';
import type { PercentileConfig } from './percentile/percentile-forecast.ts';
import { histogramBucketCount } from './percentile/histogram-config.ts';
import { acceptExtraCostFromAnnotations, coverageFromAnnotations } from './coverage-annotation.ts';

function tooLong(field: string, value: string | undefined, max: number): string[] {
  return value !== undefined && value.length > max ? [`${field} is ${value.length} characters long, more than ${max}`] : [];
}

/** Problems with one algorithm block at `field` (e.g. "spec.predictionMetrics[0].algorithm"). */
export function algorithmBoundsProblems(a: PredictionAlgorithm | undefined, field: string): string[] {
  if (!a) return [];
  const out: string[] = [];
  const d = a.dsp;
  const p = a.percentile;
  // Lengths first: nothing longer than the bound is parsed at all.
  for (const [name, v] of [
    ['dsp.sampleInterval', d?.sampleInterval],
    ['dsp.historyLength', d?.historyLength],
    ['percentile.sampleInterval', p?.sampleInterval],
    ['percentile.historyLength', p?.historyLength],
    ['percentile.histogram.halfLife', p?.histogram?.halfLife],
  ] as const) {
    out.push(...tooLong(`${field}.${name}`, v, BOUNDS.durationStringLength));
  }
  const floats: [string, string | undefined][] = [
    ['percentile.minSampleWeight', p?.minSampleWeight],
    ['percentile.marginFraction', p?.marginFraction],
    ['percentile.percentile', p?.percentile],
    ['percentile.targetUtilization', p?.targetUtilization],
    ...Object.entries(p?.histogram ?? {})
      .filter(([k]) => k !== 'halfLife')
      .map(([k, v]) => [`percentile.histogram.${k}`, v as string | undefined] as [string, string | undefined]),
  ];
  for (const [i, e] of (d?.estimators?.maxValue ?? []).entries()) floats.push([`dsp.estimators.maxValue[${i}].marginFraction`, e.marginFraction]);
  for (const [i, e] of (d?.estimators?.fft ?? []).entries()) {
    floats.push([`dsp.estimators.fft[${i}].marginFraction`, e.marginFraction]);
    floats.push([`dsp.estimators.fft[${i}].lowAmplitudeThreshold`, e.lowAmplitudeThreshold]);
    floats.push([`dsp.estimators.fft[${i}].highFrequencyThreshold`, e.highFrequencyThreshold]);
    for (const k of ['minNumOfSpectrumItems', 'maxNumOfSpectrumItems'] as const) {
      const n = e[k];
      if (n !== undefined && (!Number.isInteger(n) || n < 0 || n > BOUNDS.spectrumItems.max)) {
        out.push(`${field}.dsp.estimators.fft[${i}].${k} is ${n}, outside 0..${BOUNDS.spectrumItems.max}`);
      }
    }
  }
  for (const [name, v] of floats) out.push(...tooLong(`${field}.${name}`, v, BOUNDS.floatStringLength));
  for (const kind of ['maxValue', 'fft'] as const) {
    const n = d?.estimators?.[kind]?.length ?? 0;
    if (n > BOUNDS.estimatorsPerKind) out.push(`${field}.dsp.estimators.${kind} has ${n} items, more than ${BOUNDS.estimatorsPerKind}`);
  }
  if (out.length) return out;

  // What will run: Crane falls back to its defaults on a bad string, and the defaults are in bounds.
  const percentile = a.algorithmType === 'percentile';
  const block = percentile ? 'percentile' : 'dsp';
  const s = percentile ? percentileSettingsFromSpec(p).settings : dspSettingsFromSpec(d).settings;
  const { min: iMin, max: iMax } = BOUNDS.sampleIntervalSeconds;
  const intervalOk = Number.isInteger(s.intervalSeconds) && s.intervalSeconds >= iMin && s.intervalSeconds <= iMax;
  if (!intervalOk) {
    out.push(`${field}.${block}.sampleInterval is ${s.intervalSeconds}s; it must be a whole number of seconds from ${iMin}s to ${iMax}s`);
  }
  if (!(s.historySeconds > 0) || s.historySeconds > BOUNDS.historyLengthSeconds.max) {
    out.push(`${field}.${block}.historyLength is ${s.historySeconds}s; it must be positive and at most ${BOUNDS.historyLengthSeconds.max / 86_400}d`);
  } else if (intervalOk && s.historySeconds / s.intervalSeconds > BOUNDS.historyPoints) {
    out.push(
      `${field}.${block}: historyLength / sampleInterval is ${Math.ceil(s.historySeconds / s.intervalSeconds)} points per series, more than ${BOUNDS.historyPoints}; lengthen the interval or shorten the history`,
    );
  }
  if (percentile) out.push(...percentileValueProblems((s as PercentileSettings).config, `${field}.percentile`));
  else for (const [i, e] of (s as DspSettings).craneEstimators.entries()) out.push(...estimatorValueProblems(e, `${field}.dsp.estimators.${e.kind}[${i}]`));
  if (percentile && p?.histogram?.halfLife) {
    let halfLife = NaN;
    try {
      halfLife = craneParseDurationSeconds(p.histogram.halfLife);
    } catch {
      // Crane's parser already refused it: the defaults run, and crane-config reports the error.
    }
    if (halfLife > BOUNDS.halfLifeSeconds.max) out.push(`${field}.percentile.histogram.halfLife is ${halfLife}s, more than ${BOUNDS.halfLifeSeconds.max / 86_400}d`);
  }
  return out;
}

const inRange = (x: number, r: { min: number; max: number }) => Number.isFinite(x) && x >= r.min && x <= r.max;

/**
 * The numbers a percentile block runs with, each finite and in a range where the forecast
 * (percentile × (1 + margin) / targetUtilization) is a finite, non-negative number of the history's order,
 * and the histogram's bucket count, computed before anything is allocated.
 */
function percentileValueProblems(c: PercentileConfig, field: string): string[] {
  const out: string[] = [];
  if (!inRange(c.percentile, { min: 0, max: 1 })) out.push(`${field}.percentile is ${c.percentile}; it must be from 0 to 1`);
  const { marginFraction: m, targetUtilization: u } = BOUNDS;
  if (!inRange(c.marginFraction, m)) out.push(`${field}.marginFraction is ${c.marginFraction}; it must be from ${m.min} to ${m.max}`);
  if (!inRange(c.targetUtilization, u)) out.push(`${field}.targetUtilization is ${c.targetUtilization}; it must be from ${u.min} to ${u.max}`);
  if (!(Number.isFinite(c.minSampleWeight) && c.minSampleWeight >= 0)) out.push(`${field}.minSampleWeight is ${c.minSampleWeight}; it must be a finite number ≥ 0`);
  const h = c.histogram;
  const sizes: [string, number][] =
    h.kind === 'linear'
      ? [['maxValue', h.maxValue], ['bucketSize', h.bucketSize], ['epsilon', h.epsilon]]
      : [['maxValue', h.maxValue], ['firstBucketSize', h.firstBucketSize], ['bucketSizeGrowthRatio', h.ratio - 1], ['epsilon', h.epsilon]];
  const bad = sizes.filter(([, v]) => !(Number.isFinite(v) && v > 0));
  for (const [name, v] of bad) out.push(`${field}.histogram.${name} is ${v}; it must be a finite number > 0`);
  if (bad.length === 0) {
    const n = histogramBucketCount(h);
    if (!(n <= BOUNDS.histogramBuckets)) {
      const fields = h.kind === 'linear' ? 'maxValue / bucketSize' : 'maxValue, firstBucketSize and bucketSizeGrowthRatio';
      out.push(`${field}.histogram: ${fields} make ${n} buckets, more than ${BOUNDS.histogramBuckets}; use larger buckets or a smaller maxValue`);
    }
  }
  return out;
}

/** The numbers a Crane fft or maxValue estimator runs with: a margin in range, thresholds finite and ≥ 0. */
function estimatorValueProblems(e: CraneEstimatorSpec, field: string): string[] {
  const out: string[] = [];
  const m = BOUNDS.marginFraction;
  if (!inRange(e.marginFraction, m)) out.push(`${field}.marginFraction is ${e.marginFraction}; it must be from ${m.min} to ${m.max}`);
  if (e.kind === 'fft') {
    for (const [name, v] of [['lowAmplitudeThreshold', e.lowAmplitudeThreshold], ['highFrequencyThreshold', e.highFrequencyThreshold]] as const) {
      if (!(Number.isFinite(v) && v >= 0)) out.push(`${field}.${name} is ${v}; it must be a finite number ≥ 0`);
    }
  }
  return out;
}

/** Problems with a TSP's spec as a whole; empty when it may be predicted. */
export function tspBoundsProblems(tsp: TimeSeriesPrediction): string[] {
  const out: string[] = [];
  const spec = tsp.spec;
  const w = spec.predictionWindowSeconds;
  const { min, max } = BOUNDS.predictionWindowSeconds;
  if (!Number.isInteger(w) || w < min || w > max) out.push(`spec.predictionWindowSeconds is ${String(w)}; it must be a whole number from ${min} to ${max}`);
  const ref = spec.targetRef ?? { kind: '', name: '' };
  out.push(...tooLong('spec.targetRef.name', ref.name, BOUNDS.nameLength));
  out.push(...tooLong('spec.targetRef.kind', ref.kind, BOUNDS.kindLength));
  out.push(...tooLong('spec.targetRef.namespace', ref.namespace, BOUNDS.nameLength));
  out.push(...tooLong('spec.targetRef.apiVersion', ref.apiVersion, BOUNDS.apiVersionLength));
  const coverage = coverageFromAnnotations(tsp.metadata.annotations);
  if (coverage.problem) out.push(coverage.problem);
  const extraCost = acceptExtraCostFromAnnotations(tsp.metadata.annotations);
  if (extraCost.problem) out.push(extraCost.problem);
  const metrics = spec.predictionMetrics ?? [];
  if (metrics.length > BOUNDS.predictionMetrics) out.push(`spec.predictionMetrics has ${metrics.length} items, more than ${BOUNDS.predictionMetrics}`);
  for (const [i, m] of metrics.slice(0, BOUNDS.predictionMetrics).entries()) {
    const f = `spec.predictionMetrics[${i}]`;
    out.push(...tooLong(`${f}.resourceIdentifier`, m.resourceIdentifier, BOUNDS.metricNameLength));
    out.push(...tooLong(`${f}.expressionQuery.expression`, m.expressionQuery?.expression, BOUNDS.promqlLength));
    const bounds = algorithmBoundsProblems(m.algorithm, `${f}.algorithm`);
    // Only a block within its bounds is parsed for what Crane would silently replace.
    out.push(...(bounds.length ? bounds : algorithmSettingsProblems(m.algorithm, `${f}.algorithm`)));
  }
  return out;
}

/** The forecast samples a status would hold, against BOUNDS.statusSamples; a message when too many. */
export function statusSamplesProblem(samples: number): string | undefined {
  return samples > BOUNDS.statusSamples
    ? `the forecast has ${samples} samples, more than the ${BOUNDS.statusSamples} one TimeSeriesPrediction status may hold; aggregate the query to fewer series or shorten predictionWindowSeconds`
    : undefined;
}

/**
 * Forecast samples one series can put in a status: the points in [now, now + 2 × window] of a `stepSeconds`
 * grid that starts after the history's last sample, which is at or before now (the history query ends at now
 * rounded down to the step). Such a grid never has a point on both ends, so there are at most
 * ceil(2 × window / step); the check after the fits holds a forecaster that does otherwise to the bound.
 */
export function samplesPerSeries(windowSeconds: number, stepSeconds: number): number {
  return Math.ceil((2 * windowSeconds) / stepSeconds);
}

/**
 * The status-size bound, checked as soon as one metric's query has answered and before anything is fitted:
 * `series` forecast series of samplesPerSeries each, on top of the `before` samples the TSP's earlier metrics
 * already hold. It counts every series the query returns, including any the algorithm would go on to decline
 * (a DSP series without a period), so it bounds what the query asks for, not what a fit happens to give; a
 * message naming the numbers when over.
 */
export function statusSizeProblem(o: { field: string; series: number; windowSeconds: number; stepSeconds: number; before: number }): string | undefined {
  const each = samplesPerSeries(o.windowSeconds, o.stepSeconds);
  const total = o.before + o.series * each;
  if (total <= BOUNDS.statusSamples) return undefined;
  const earlier = o.before > 0 ? ` + ${o.before} held by the metrics before it` : '';
  return (
    `${o.field}: the query returns ${o.series} series × ${each} forecast samples each (2 × predictionWindowSeconds ${o.windowSeconds} / sample interval ${o.stepSeconds}s)` +
    `${earlier} = ${total} samples, more than the ${BOUNDS.statusSamples} one TimeSeriesPrediction status may hold; nothing was fitted for it; ` +
    'aggregate the query to fewer series, shorten predictionWindowSeconds or lengthen the sample interval'
  );
}
