// Differential test against Crane's own DSP code (gocrane/crane v0.11.0, built from the Go module proxy by
// crane-oracle-build.ts): the same preprocessed signal and period go to Crane's estimators and to ours, and
// every estimate, choice and forecast must be bit for bit equal (numbers cross as shortest round-trip JSON,
// so equal text means equal float64). Backtest errors may differ by at most 2 ulp: one of 176 (input12, the
// extra FFT estimator) differs by 1 ulp because its error sum runs in another order. The autocorrelation
// goes through another FFT (fft.js vs go-dsp), so it is compared to 1e-9 absolute (measured: 2.8e-11).
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { buildCraneOracle } from './crane-oracle-build.ts';
import { craneTraces, loadTrace } from '../helpers/traces.ts';
import { preprocess } from '../../src/prediction/dsp/preprocess.ts';
import { truncateToPeriods, DAY_SECONDS, WEEK_SECONDS, type Signal } from '../../src/prediction/dsp/signal.ts';
import {
  craneEstimate,
  DEFAULT_CRANE_ESTIMATORS,
  SharedSpectrum,
  type CraneEstimatorSpec,
} from '../../src/prediction/dsp/crane-estimators.ts';
import { selectCraneEstimator } from '../../src/prediction/dsp/crane-selection.ts';
import { autoCorrelation } from '../../src/prediction/dsp/autocorrelation.ts';
import { detectPeriod } from '../../src/prediction/dsp/period.ts';
import { percentileEstimate, type PercentileConfig } from '../../src/prediction/percentile/percentile-forecast.ts';
import { fillMissingData, InvalidSeriesError } from '../../src/prediction/dsp/preprocess.ts';
import { mulberry32 } from '../helpers/seeded-random.ts';
import { CoreForecaster } from '../../src/prediction/controller/core-forecaster.ts';
import { seriesToFit } from '../../src/prediction/controller/algorithm-block.ts';
import type { PercentileSpec } from '../../src/api/prediction.ts';
import type { HistorySeries } from '../../src/prometheus/series.ts';

const EXTRA: CraneEstimatorSpec[] = [
  { kind: 'maxValue', marginFraction: 0 },
  { kind: 'maxValue', marginFraction: 0.1 },
  { kind: 'fft', minNumOfSpectrumItems: 10, maxNumOfSpectrumItems: 30, highFrequencyThreshold: 1 / 7200, lowAmplitudeThreshold: 0.5, marginFraction: 0.05 },
];
const SPECS = [...DEFAULT_CRANE_ESTIMATORS, ...EXTRA];

function toWire(s: CraneEstimatorSpec) {
  return s.kind === 'maxValue'
    ? { kind: 'maxValue', margin: s.marginFraction }
    : { kind: 'fft', min: s.minNumOfSpectrumItems, max: s.maxNumOfSpectrumItems, hf: s.highFrequencyThreshold, low: s.lowAmplitudeThreshold, margin: s.marginFraction };
}

interface OracleEstimator {
  name: string;
  onHistory: number[];
  pe: number | null;
  onFullData: number[];
}
interface OracleResponse {
  error?: string;
  nPeriods?: number;
  estimators?: OracleEstimator[];
  best: number;
  forecast?: number[];
  acf?: number[];
  periods?: number[];
  value?: number;
  start?: number;
  values?: number[];
  series?: { labels: Record<string, string>; value: number }[];
}

/** Distance between two float64 values in units in the last place of the second. */
function ulps(a: number, b: number): number {
  if (a === b) return 0;
  const ulp = b === 0 ? Number.MIN_VALUE : 2 ** (Math.floor(Math.log2(Math.abs(b))) - 52);
  return Math.abs(a - b) / ulp;
}

function worstRelative(ours: ArrayLike<number>, theirs: ArrayLike<number>): number {
  expect(ours.length).to.equal(theirs.length);
  let worst = 0;
  for (let i = 0; i < ours.length; i++) {
    const a = ours[i] as number;
    const b = theirs[i] as number;
    if (a === b) continue;
    worst = Math.max(worst, Math.abs(a - b) / Math.max(Math.abs(b), Number.MIN_VALUE));
  }
  return worst;
}

// Preprocessing is the first thing both sides see, so it is compared too: Crane's own preProcessTimeSeries
// (reached by linkname in the oracle) against ours, on the 16 traces and on generated series with short
// gaps (interpolated), long gaps (history before them dropped), spikes (outlier replacement, which only
// happens from 1,000 samples on), partial hours (trimmed) and off-grid timestamps (refused by both).
describe('oracle: Crane preprocessing (gocrane/crane v0.11.0 preProcessTimeSeries) vs ours', function () {
  this.timeout(30 * 60 * 1000);

  function generated(seed: number): { timestamps: number[]; values: number[]; offGrid: boolean } {
    const rand = mulberry32(seed);
    const n = 200 + Math.floor(rand() * 3000);
    const timestamps: number[] = [];
    const values: number[] = [];
    let t = 1_700_000_000 - (1_700_000_000 % 60) + Math.floor(rand() * 60) * 60;
    let offGrid = false;
    for (let i = 0; i < n; i++) {
      const r = rand();
      if (r < 0.03) t += 60 * (1 + Math.floor(rand() * 5)); // a short gap: interpolated
      else if (r < 0.032) t += 60 * (61 + Math.floor(rand() * 120)); // over an hour: earlier data dropped
      if (seed % 10 === 0 && i === Math.floor(n / 2)) {
        t += 17; // off the interval grid: the whole series is invalid
        offGrid = true;
      }
      const base = 1 + Math.sin(i / 90) + rand() * 0.2;
      values.push(rand() < 0.004 ? base * (20 + rand() * 100) : rand() < 0.004 ? -base * 5 : base);
      timestamps.push(t);
      t += 60;
    }
    return { timestamps, values, offGrid };
  }

  it('gives the same regular series (start and every value, bit for bit) or the same refusal', () => {
    const oracle = buildCraneOracle();
    const cases: { name: string; timestamps: number[]; values: number[]; interval: number }[] = [];
    for (const trace of craneTraces()) {
      const s = loadTrace(trace);
      cases.push({ name: trace.name, timestamps: Array.from(s.timestamps), values: Array.from(s.values), interval: trace.intervalSeconds });
    }
    let offGrid = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const g = generated(seed);
      if (g.offGrid) offGrid++;
      cases.push({ name: `generated #${seed}`, timestamps: g.timestamps, values: g.values, interval: 60 });
    }
    const input = cases.map((c) => JSON.stringify({ op: 'preprocess', timestamps: c.timestamps, samples: c.values, intervalSeconds: c.interval })).join('\n') + '\n';
    const r = spawnSync(oracle, { input, maxBuffer: 1 << 30, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`oracle failed: ${r.stderr}`);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as OracleResponse);
    expect(answers).to.have.length(cases.length);
    let refused = 0;
    let replacedSomewhere = 0;
    cases.forEach((c, i) => {
      const go = answers[i] as OracleResponse;
      let ours: ReturnType<typeof preprocess> | undefined;
      try {
        ours = preprocess({ timestamps: c.timestamps, values: c.values }, c.interval);
      } catch (e) {
        if (!(e instanceof InvalidSeriesError)) throw e;
      }
      if (go.error !== undefined) {
        refused++;
        expect(ours, `${c.name}: Crane refused (${go.error}), we did not`).to.equal(undefined);
        return;
      }
      expect(ours, `${c.name}: we refused, Crane did not`).to.not.equal(undefined);
      const theirs = go.values ?? [];
      expect(ours!.values.length, c.name).to.equal(theirs.length);
      if (theirs.length > 0) expect(ours!.start, c.name).to.equal(go.start);
      expect(worstRelative(ours!.values, theirs), c.name).to.equal(0);
      // Did outlier replacement change anything here (compared with gap filling alone)?
      const filledOnly = fillMissingData({ timestamps: c.timestamps, values: c.values }, c.interval).values;
      if (filledOnly.some((v, k) => v !== theirs[k])) replacedSomewhere++;
    });
    // The generator reached every branch: refusals, and outliers replaced.
    expect(refused).to.equal(offGrid);
    expect(offGrid).to.be.greaterThan(10);
    expect(replacedSomewhere).to.be.greaterThan(10);
  });
});

describe('oracle: Crane DSP (gocrane/crane v0.11.0) vs ours', function () {
  this.timeout(30 * 60 * 1000); // a cold build downloads crane's dependencies from the module proxy
  let oracle: string;
  const signals: { name: string; signal: Signal; period: number }[] = [];
  const responses: OracleResponse[] = [];
  let periodResponses: OracleResponse[] = [];

  before(function () {
    oracle = buildCraneOracle(); // throws with one line when Go is missing: the oracle never skips
    const requests: string[] = [];
    const periodRequests: string[] = [];
    for (const trace of craneTraces()) {
      const series = loadTrace(trace);
      const pre = preprocess(series, trace.intervalSeconds);
      const signal: Signal = { sampleRate: 1.0 / trace.intervalSeconds, samples: pre.values };
      // Crane's label decides the period; the non-periodic traces are exercised with a day.
      const period = trace.label === 'week' ? WEEK_SECONDS : DAY_SECONDS;
      signals.push({ name: trace.name, signal, period });
      requests.push(JSON.stringify({ op: 'estimate', sampleRate: signal.sampleRate, periodSeconds: period, samples: Array.from(signal.samples), estimators: SPECS.map(toWire) }));
      // findPeriod's input: the last whole weeks when there are two, else the last whole days.
      const weeks = truncateToPeriods(signal, WEEK_SECONDS);
      const days = truncateToPeriods(signal, DAY_SECONDS);
      const chosen = weeks && weeks.periods > 1 ? weeks.signal : (days?.signal as Signal);
      periodRequests.push(JSON.stringify({ op: 'period', sampleRate: signal.sampleRate, samples: Array.from(chosen.samples), repeat: 1 }));
      periodRequests.push(JSON.stringify({ op: 'acf', samples: Array.from(chosen.samples) }));
    }
    const run = (lines: string[]) => {
      const r = spawnSync(oracle, { input: lines.join('\n') + '\n', maxBuffer: 1 << 30, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`oracle failed: ${r.stderr}`);
      return r.stdout.trim().split('\n').map((l) => JSON.parse(l) as OracleResponse);
    };
    responses.push(...run(requests));
    periodResponses = run(periodRequests);
  });

  it('gets one answer per trace', () => {
    expect(responses).to.have.length(16);
    for (const r of responses) expect(r.error).to.equal(undefined);
  });

  for (let i = 0; i < 16; i++) {
    it(`input${i}: all ${SPECS.length} estimators, the choice and the forecast equal Crane's bit for bit, backtest errors within 2 ulp`, () => {
      const { signal, period } = signals[i] as (typeof signals)[number];
      const go = responses[i] as OracleResponse;
      const t = truncateToPeriods(signal, period);
      if (!t) throw new Error('too short');
      expect(go.nPeriods).to.equal(t.periods);
      const per = Math.floor(t.signal.samples.length / t.periods);
      const history = new SharedSpectrum({ sampleRate: signal.sampleRate, samples: t.signal.samples.subarray(0, (t.periods - 1) * per) });
      const full = new SharedSpectrum(t.signal);
      const sel = selectCraneEstimator(SPECS, t.signal, t.periods, period);
      SPECS.forEach((spec, k) => {
        const g = (go.estimators as OracleEstimator[])[k] as OracleEstimator;
        expect(worstRelative(craneEstimate(spec, history, period), g.onHistory), `${g.name} on history`).to.equal(0);
        expect(worstRelative(craneEstimate(spec, full, period), g.onFullData), `${g.name} on all periods`).to.equal(0);
        const pe = sel.errors[k]?.value ?? null;
        if (g.pe === null) expect(pe).to.equal(null);
        else expect(ulps(pe as number, g.pe), `${g.name} backtest error ${pe} vs ${g.pe}`).to.be.at.most(2);
      });
      expect(sel.best).to.equal(go.best);
      const ours = craneEstimate(SPECS[sel.best] as CraneEstimatorSpec, full, period);
      expect(worstRelative(ours, go.forecast as number[])).to.equal(0);
    });
  }

  it('autocorrelation equals Crane dsp.AutoCorrelation within 1e-9 on every trace', () => {
    signals.forEach((_, i) => {
      const go = periodResponses[2 * i + 1] as OracleResponse;
      const { signal } = signals[i] as (typeof signals)[number];
      const weeks = truncateToPeriods(signal, WEEK_SECONDS);
      const chosen = weeks && weeks.periods > 1 ? weeks.signal : (truncateToPeriods(signal, DAY_SECONDS)?.signal as Signal);
      const ours = autoCorrelation(chosen.samples);
      const theirs = go.acf as number[];
      let worst = 0;
      for (let k = 0; k < ours.length; k++) worst = Math.max(worst, Math.abs((ours[k] as number) - (theirs[k] as number)));
      expect(worst, `input${i}`).to.be.below(1e-9);
    });
  });

  it("period detection agrees with Crane's Signal.FindPeriod on all 16 preprocessed traces", () => {
    signals.forEach(({ signal }, i) => {
      const go = periodResponses[2 * i] as OracleResponse;
      const weeks = truncateToPeriods(signal, WEEK_SECONDS);
      const chosen = weeks && weeks.periods > 1 ? weeks.signal : (truncateToPeriods(signal, DAY_SECONDS)?.signal as Signal);
      expect(detectPeriod(chosen, 1).periodSeconds, `input${i}`).to.equal((go.periods as number[])[0]);
    });
  });
});

describe("oracle: Crane percentile (gocrane/crane v0.11.0 + VPA v0.10.0 histogram) vs ours", function () {
  this.timeout(30 * 60 * 1000);
  const CONFIGS: PercentileConfig[] = [
    // Crane's default: linear 0..100 in 0.1 buckets, P99.
    { percentile: 0.99, marginFraction: 0, targetUtilization: 1, minSampleWeight: 1e-5, histogram: { kind: 'linear', maxValue: 100, bucketSize: 0.1, epsilon: 1e-10 } },
    { percentile: 0.9, marginFraction: 0.15, targetUtilization: 0.8, minSampleWeight: 1e-5, histogram: { kind: 'linear', maxValue: 1000, bucketSize: 0.5, epsilon: 1e-10 } },
    { percentile: 0.95, marginFraction: 0.1, targetUtilization: 1, minSampleWeight: 0.1, histogram: { kind: 'exponential', maxValue: 100000, firstBucketSize: 0.01, ratio: 1.05, epsilon: 1e-10 } },
  ];
  it('gives the same estimate on every Crane trace for three configurations', function () {
    const oracle = buildCraneOracle();
    const cases: { name: string; values: number[]; config: PercentileConfig }[] = [];
    for (const trace of craneTraces()) {
      const values = loadTrace(trace).values.slice(-7 * 1440); // Crane's default 7-day history
      for (const config of CONFIGS) cases.push({ name: trace.name, values, config });
    }
    const lines = cases.map(({ values, config }) =>
      JSON.stringify({
        op: 'percentile',
        samples: values,
        percentile: config.percentile,
        margin: config.marginFraction,
        targetUtilization: config.targetUtilization,
        minSampleWeight: config.minSampleWeight,
        histogram: config.histogram,
      }),
    );
    const r = spawnSync(oracle, { input: lines.join('\n') + '\n', maxBuffer: 1 << 28, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`oracle failed: ${r.stderr}`);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as OracleResponse);
    cases.forEach((c, i) => {
      const go = answers[i] as OracleResponse;
      expect(go.error, c.name).to.equal(undefined);
      expect(percentileEstimate(c.values, c.config), `${c.name} ${c.config.histogram.kind} p${c.config.percentile}`).to.equal(go.value);
    });
  });
  // Crane's own predictor (QueryRealtimePredictedValuesOnce -> process, which honours `aggregated`) against
  // our controller path (seriesToFit + CoreForecaster): the last day of five Crane traces as five "pods"
  // of one query, on a common timeline, pooled and per series.
  it('aggregated true/false: the same series and estimates as Crane\'s predictor on a five-series query', function () {
    const oracle = buildCraneOracle();
    const now = 1_800_000_000;
    const history: HistorySeries[] = [0, 3, 4, 5, 9].map((i) => {
      const values = loadTrace(craneTraces()[i]!).values.slice(-1440);
      return { labels: { pod: `input${i}` }, timestamps: values.map((_, k) => now - (values.length - k) * 60), values };
    });
    const blocks: PercentileSpec[] = [
      { sampleInterval: '1m', historyLength: '7d', histogram: { halfLife: '24h' } },
      { sampleInterval: '1m', historyLength: '7d', percentile: '0.9', marginFraction: '0.15', histogram: { halfLife: '24h', maxValue: '1000', bucketSize: '0.5' } },
      { sampleInterval: '1m', historyLength: '7d', percentile: '0.95', minSampleWeight: '0.1', histogram: { halfLife: '24h', maxValue: '100000', firstBucketSize: '0.01', bucketSizeGrowthRatio: '0.05' } },
    ];
    const cases = blocks.flatMap((b) => [true, false].map((aggregated) => ({ ...b, aggregated })));
    const lines = cases.map((spec) =>
      JSON.stringify({ op: 'percentile-query', series: history.map((h) => ({ labels: h.labels, timestamps: h.timestamps, samples: h.values })), percentileSpec: spec }),
    );
    const r = spawnSync(oracle, { input: lines.join('\n') + '\n', maxBuffer: 1 << 28, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`oracle failed: ${r.stderr}`);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as OracleResponse);
    const byLabels = (xs: { labels: Record<string, string>; value: number }[]) => Object.fromEntries(xs.map((x) => [JSON.stringify(x.labels), x.value]));
    const forecaster = new CoreForecaster();
    cases.forEach((spec, i) => {
      const go = answers[i] as OracleResponse;
      expect(go.error, JSON.stringify(spec)).to.equal(undefined);
      const algorithm = { algorithmType: 'percentile', percentile: spec };
      const ours = forecaster.forecast(seriesToFit(history, algorithm), algorithm, { nowS: now, horizonSeconds: 1200 });
      expect(byLabels(ours.map((s) => ({ labels: s.labels, value: s.values[0] as number }))), JSON.stringify(spec)).to.deep.equal(byLabels(go.series ?? []));
      expect(ours.length, JSON.stringify(spec)).to.equal(spec.aggregated ? 1 : history.length);
    });
  });
});
