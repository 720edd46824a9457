// Bounds on what a prediction may ask for (api/bounds.ts, docs/security.md §2) and the linear-time
// parsers they rest on. The review's repros (sampleInterval "1ns", historyLength "100000000d",
// predictionWindowSeconds near int32 max, a 1 MB digit run) are each a case here.
import { expect } from 'chai';
import { BOUNDS } from '../../../src/api/bounds.ts';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import { parseGoDurationSeconds } from '../../../src/gomath/go-time.ts';
import { craneParseDurationSeconds, craneParseFloat } from '../../../src/prediction/crane-config.ts';
import { algorithmBoundsProblems, samplesPerSeries, statusSamplesProblem, statusSizeProblem, tspBoundsProblems } from '../../../src/prediction/spec-bounds.ts';
import { fitSeriesCount } from '../../../src/prediction/controller/algorithm-block.ts';
import { bestCpuMs } from '../../helpers/cpu-time.ts';

/** Runs f on inputs of 64 KB and 1 MB (16× longer): linear code takes ~16× as long on the larger, quadratic
 *  ~256×. The bound sits between (64×). Times are CPU time, best of 5 (test/helpers/cpu-time.ts): a run
 *  preempted on a loaded machine or hit by a GC does not count. */
function expectLinear(make: (n: number) => string, f: (s: string) => void): void {
  const small = make(64 * 1024);
  const large = make(1024 * 1024);
  f(small); // warm-up
  const ts = bestCpuMs(() => f(small));
  const tl = bestCpuMs(() => f(large));
  expect(tl, `1 MB took ${tl.toFixed(1)} ms of CPU`).to.be.below(1000);
  expect(tl / Math.max(ts, 0.05), `64 KB ${ts.toFixed(2)} ms, 1 MB ${tl.toFixed(2)} ms of CPU`).to.be.below(64);
}

const swallow = (f: (s: string) => unknown) => (s: string) => {
  try {
    f(s);
  } catch {
    // the point is the time it takes to refuse
  }
};

describe('parseGoDurationSeconds (Go 1.22 time.ParseDuration)', () => {
  it('accepts what Go accepts, with the same values', () => {
    // Values from Go's own table in src/time/time_test.go (parseDurationTests).
    const cases: [string, number][] = [
      ['0', 0],
      ['5s', 5],
      ['30s', 30],
      ['1478s', 1478],
      ['-5s', -5],
      ['+5s', 5],
      ['-0', 0],
      ['+0', 0],
      ['5.0s', 5],
      ['5.6s', 5.6],
      ['5.s', 5],
      ['.5s', 0.5],
      ['1.0s', 1],
      ['1.00s', 1],
      ['1.004s', 1.004],
      ['1.0040s', 1.004],
      ['100.00100s', 100.001],
      ['10ns', 1e-8],
      ['11us', 11e-6],
      ['12µs', 12e-6],
      ['12μs', 12e-6],
      ['13ms', 0.013],
      ['14s', 14],
      ['15m', 900],
      ['16h', 57600],
      ['3h30m', 12600],
      ['10.5s4m', 250.5],
      ['-2m3.4s', -123.4],
      ['1h2m3s4ms5us6ns', 3723.004005006],
      ['39h9m14.425s', 140_954.425],
    ];
    for (const [text, want] of cases) expect(parseGoDurationSeconds(text), text).to.be.closeTo(want, 1e-9);
  });
  it('refuses what Go refuses, with Go\'s message (time/format.go ParseDuration)', () => {
    for (const bad of ['', '-', 's', '.', '-.', '.s', '+.s', '3000000h1x', 'constructor', ' 5s']) {
      expect(() => parseGoDurationSeconds(bad), JSON.stringify(bad)).to.throw(`time: invalid duration "${bad}"`);
    }
    expect(() => parseGoDurationSeconds('3')).to.throw('time: missing unit in duration "3"');
    for (const [bad, unit] of [['1d', 'd'], ['1.5d', 'd'], ['1hh', 'hh'], ['1constructor', 'constructor'], ['5 s', ' s'], ['1__proto__', '__proto__']]) {
      expect(() => parseGoDurationSeconds(bad as string), bad).to.throw(`time: unknown unit "${unit}" in duration "${bad}"`);
    }
    // Past 1<<63-1 ns (about 292 years) Go reports an invalid duration; 1<<63 ns is allowed only negative.
    expect(() => parseGoDurationSeconds('2562048h')).to.throw('time: invalid duration "2562048h"');
    expect(parseGoDurationSeconds('2562047h')).to.equal(2562047 * 3600);
  });
  it('is linear on 1 MB inputs: a digit run with a bad tail, many parts, a long unit', () => {
    expectLinear((n) => '1'.repeat(n) + 'x', swallow(parseGoDurationSeconds));
    expectLinear((n) => '1s'.repeat(n / 2), swallow(parseGoDurationSeconds));
    expectLinear((n) => '1' + 'h'.repeat(n), swallow(parseGoDurationSeconds));
  });
});

describe("Crane's duration and float strings in linear time", () => {
  it('craneParseDurationSeconds keeps Crane\'s "Nd" rule and is linear on 1 MB', () => {
    expect(craneParseDurationSeconds('15d')).to.equal(15 * 86_400);
    expect(() => craneParseDurationSeconds('1d12h')).to.throw('time: unknown unit "d" in duration "1d12h"');
    // Review finding H1.d: "1"×8000 + "x" took 148 ms with the old regex (4× per doubling).
    expectLinear((n) => '1'.repeat(n) + 'x', swallow(craneParseDurationSeconds));
    expectLinear((n) => '1'.repeat(n) + 'dd', swallow(craneParseDurationSeconds));
  });
  it('craneParseFloat is linear on 1 MB', () => {
    expect(craneParseFloat('1.5e-3', 0)).to.equal(0.0015);
    expect(craneParseFloat('5.', 0)).to.equal(5);
    expectLinear((n) => '1'.repeat(n) + 'x', swallow((s) => craneParseFloat(s, 0)));
    expectLinear((n) => '1'.repeat(n) + '.' + '1'.repeat(n) + 'x', swallow((s) => craneParseFloat(s, 0)));
  });
});

const tsp = (spec: Partial<TimeSeriesPrediction['spec']>): TimeSeriesPrediction => ({
  apiVersion: 'prediction.crane.io/v1alpha1',
  kind: 'TimeSeriesPrediction',
  metadata: { name: 't', namespace: 'n' },
  spec: {
    targetRef: { kind: 'Deployment', name: 'web' },
    predictionWindowSeconds: 3600,
    predictionMetrics: [{ resourceIdentifier: 'cpu', type: 'ResourceQuery', resourceQuery: 'cpu' }],
    ...spec,
  },
});

describe('algorithmBoundsProblems', () => {
  const f = 'a';
  it("accepts Crane's documented settings and the defaults", () => {
    expect(algorithmBoundsProblems({ algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '15d' } }, f)).to.deep.equal([]);
    expect(algorithmBoundsProblems({ algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d' } }, f)).to.deep.equal([]);
    expect(algorithmBoundsProblems({ algorithmType: 'percentile', percentile: { sampleInterval: '60s', historyLength: '1d', histogram: { halfLife: '24h' } } }, f)).to.deep.equal([]);
    expect(algorithmBoundsProblems({ algorithmType: 'dsp' }, f)).to.deep.equal([]);
    expect(algorithmBoundsProblems(undefined, f)).to.deep.equal([]);
  });
  it('refuses the sample intervals of the review (1ns, 1ms) and a fraction of a second', () => {
    for (const si of ['1ns', '1ms', '1.5s']) {
      const p = algorithmBoundsProblems({ algorithmType: 'dsp', dsp: { sampleInterval: si, historyLength: '3d' } }, f);
      expect(p, si).to.have.length(1);
      expect(p[0]).to.match(/^a\.dsp\.sampleInterval is .*whole number of seconds from 1s to 3600s/);
    }
    const p = algorithmBoundsProblems({ algorithmType: 'percentile', percentile: { sampleInterval: '1ns', historyLength: '7d', histogram: { halfLife: '24h' } } }, f);
    expect(p[0]).to.match(/^a\.percentile\.sampleInterval is 1e-9s/);
  });
  it('refuses a history longer than 90 days and more points than the bound', () => {
    expect(algorithmBoundsProblems({ algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '100000000d' } }, f)[0]).to.match(/historyLength is 8640000000000s; it must be positive and at most 90d/);
    expect(algorithmBoundsProblems({ algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '90d' } }, f)[0]).to.match(/129600 points per series, more than 100000/);
    // At the bound exactly: 100,000 points.
    expect(algorithmBoundsProblems({ algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: `${100_000 * 60}s` } }, f)).to.deep.equal([]);
  });
  it('refuses over-long strings without parsing them, naming the field', () => {
    const long = '1'.repeat(BOUNDS.durationStringLength) + 's';
    expect(algorithmBoundsProblems({ algorithmType: 'dsp', dsp: { sampleInterval: long } }, f)).to.deep.equal([`a.dsp.sampleInterval is 33 characters long, more than 32`]);
    const p = algorithmBoundsProblems({ algorithmType: 'percentile', percentile: { percentile: '0.'.padEnd(40, '9'), histogram: { maxValue: '9'.repeat(33) } } }, f);
    expect(p).to.deep.equal(['a.percentile.percentile is 40 characters long, more than 32', 'a.percentile.histogram.maxValue is 33 characters long, more than 32']);
  });
  it('bounds estimator counts and spectrum sizes', () => {
    const many = Array.from({ length: 9 }, () => ({ marginFraction: '0.1' }));
    expect(algorithmBoundsProblems({ dsp: { estimators: { maxValue: many } } }, f)).to.deep.equal(['a.dsp.estimators.maxValue has 9 items, more than 8']);
    expect(algorithmBoundsProblems({ dsp: { estimators: { fft: [{ maxNumOfSpectrumItems: 1e9 }] } } }, f)).to.deep.equal([
      'a.dsp.estimators.fft[0].maxNumOfSpectrumItems is 1000000000, outside 0..1000',
    ]);
  });
  it('refuses a percentile histogram of more buckets than the bound before allocating it, naming the fields', () => {
    // The hostile-tenant probe's object: 1e8 buckets of 1 took serve out of memory in 6 s.
    const linear = { algorithmType: 'percentile', percentile: { sampleInterval: '60s', historyLength: '1d', histogram: { halfLife: '24h', maxValue: '1e8', bucketSize: '1' } } };
    const t0 = performance.now();
    expect(algorithmBoundsProblems(linear, f)).to.deep.equal([
      `a.percentile.histogram: maxValue / bucketSize make 100000001 buckets, more than ${BOUNDS.histogramBuckets}; use larger buckets or a smaller maxValue`,
    ]);
    expect(performance.now() - t0, 'refused by arithmetic, not by building it').to.be.below(50);
    // A growth ratio of 1 + 1e-12 makes an exponential layout of ~1e13 buckets.
    const exp = { algorithmType: 'percentile', percentile: { sampleInterval: '60s', historyLength: '1d', histogram: { halfLife: '24h', maxValue: '1e6', firstBucketSize: '0.01', bucketSizeGrowthRatio: '1e-12' } } };
    expect(algorithmBoundsProblems(exp, f)[0]).to.match(/^a\.percentile\.histogram: maxValue, firstBucketSize and bucketSizeGrowthRatio make \d+ buckets, more than 1000000/);
    // Crane's own example layouts pass (tsp-nodes-percent.yaml: 1e6 with 40 × 1.5 buckets; 1e6 / 10 linear).
    const crane = { algorithmType: 'percentile', percentile: { sampleInterval: '60s', historyLength: '1d', histogram: { halfLife: '24h', maxValue: '1000000.0', bucketSize: '10', firstBucketSize: '40', bucketSizeGrowthRatio: '1.5' } } };
    expect(algorithmBoundsProblems(crane, f)).to.deep.equal([]);
    expect(algorithmBoundsProblems({ algorithmType: 'percentile', percentile: { sampleInterval: '60s', historyLength: '1d', histogram: { halfLife: '24h', maxValue: '1000000', bucketSize: '10' } } }, f)).to.deep.equal([]);
  });
  it('refuses percentile numbers that make a forecast non-finite or negative (the probe published +Inf and -1.7)', () => {
    const pct = (extra: Record<string, string>, histogram: Record<string, string> = {}) =>
      algorithmBoundsProblems({ algorithmType: 'percentile', percentile: { sampleInterval: '60s', historyLength: '1d', ...extra, histogram: { halfLife: '24h', ...histogram } } }, f);
    expect(pct({ targetUtilization: '-1' })).to.deep.equal(['a.percentile.targetUtilization is -1; it must be from 0.01 to 10']);
    expect(pct({ targetUtilization: '0' })).to.deep.equal(['a.percentile.targetUtilization is 0; it must be from 0.01 to 10']);
    expect(pct({ targetUtilization: 'NaN' })).to.deep.equal(['a.percentile.targetUtilization is NaN; it must be from 0.01 to 10']);
    expect(pct({ marginFraction: 'Inf' })).to.deep.equal(['a.percentile.marginFraction is Infinity; it must be from 0 to 10']);
    expect(pct({ marginFraction: '-2' })).to.deep.equal(['a.percentile.marginFraction is -2; it must be from 0 to 10']);
    expect(pct({ percentile: '1.5' })).to.deep.equal(['a.percentile.percentile is 1.5; it must be from 0 to 1']);
    expect(pct({ percentile: 'nan' })).to.deep.equal(['a.percentile.percentile is NaN; it must be from 0 to 1']);
    expect(pct({ minSampleWeight: '-inf' })).to.deep.equal(['a.percentile.minSampleWeight is -Infinity; it must be a finite number ≥ 0']);
    expect(pct({}, { maxValue: 'Inf', bucketSize: '1' })).to.deep.equal(['a.percentile.histogram.maxValue is Infinity; it must be a finite number > 0']);
    expect(pct({}, { maxValue: '100', bucketSize: '1', epsilon: 'Inf' })).to.deep.equal(['a.percentile.histogram.epsilon is Infinity; it must be a finite number > 0']);
    expect(pct({ targetUtilization: '0.5', marginFraction: '0.15', percentile: '0.95', minSampleWeight: '0' })).to.deep.equal([]);
  });
  it("refuses a Crane estimator's margin or thresholds that are not finite", () => {
    const dsp = { sampleInterval: '60s', historyLength: '3d' };
    expect(algorithmBoundsProblems({ dsp: { ...dsp, estimators: { fft: [{ marginFraction: 'NaN', lowAmplitudeThreshold: '-1' }] } } }, f)).to.deep.equal([
      'a.dsp.estimators.fft[0].marginFraction is NaN; it must be from 0 to 10',
      'a.dsp.estimators.fft[0].lowAmplitudeThreshold is -1; it must be a finite number ≥ 0',
    ]);
    expect(algorithmBoundsProblems({ dsp: { ...dsp, estimators: { maxValue: [{ marginFraction: '1e308' }] } } }, f)).to.deep.equal(['a.dsp.estimators.maxValue[0].marginFraction is 1e+308; it must be from 0 to 10']);
    expect(algorithmBoundsProblems({ dsp: { ...dsp, estimators: { fft: [{ marginFraction: '0.2', highFrequencyThreshold: '0.01' }] } } }, f)).to.deep.equal([]);
  });
  it('bounds the percentile halfLife', () => {
    expect(algorithmBoundsProblems({ algorithmType: 'percentile', percentile: { histogram: { halfLife: '1000d' } } }, f)).to.deep.equal(['a.percentile.histogram.halfLife is 86400000s, more than 90d']);
  });
});

describe('tspBoundsProblems', () => {
  it('accepts an ordinary TSP', () => {
    expect(tspBoundsProblems(tsp({}))).to.deep.equal([]);
  });
  it('bounds predictionWindowSeconds to 1..86400 whole seconds (review: int32 max made 7e7 samples)', () => {
    expect(tspBoundsProblems(tsp({ predictionWindowSeconds: 86_400 }))).to.deep.equal([]);
    for (const w of [0, 86_401, 2_147_483_647, 1.5]) {
      expect(tspBoundsProblems(tsp({ predictionWindowSeconds: w }))[0], String(w)).to.match(/^spec\.predictionWindowSeconds is .*; it must be a whole number from 1 to 86400$/);
    }
  });
  it('bounds the metric count, names and expressions', () => {
    const metrics = Array.from({ length: 17 }, (_, i) => ({ resourceIdentifier: `m${i}`, type: 'ResourceQuery' as const, resourceQuery: 'cpu' }));
    expect(tspBoundsProblems(tsp({ predictionMetrics: metrics }))).to.deep.equal(['spec.predictionMetrics has 17 items, more than 16']);
    const expr = tsp({ predictionMetrics: [{ resourceIdentifier: 'x', type: 'ExpressionQuery', expressionQuery: { expression: 'a'.repeat(4097) } }] });
    expect(tspBoundsProblems(expr)).to.deep.equal(['spec.predictionMetrics[0].expressionQuery.expression is 4097 characters long, more than 4096']);
    expect(tspBoundsProblems(tsp({ targetRef: { kind: 'Deployment', name: 'n'.repeat(254) } }))).to.deep.equal(['spec.targetRef.name is 254 characters long, more than 253']);
  });
  it('names the algorithm field of the metric', () => {
    const t = tsp({ predictionMetrics: [{ resourceIdentifier: 'cpu', type: 'ResourceQuery', resourceQuery: 'cpu', algorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '1ns', historyLength: '15d' } } }] });
    expect(tspBoundsProblems(t)[0]).to.match(/^spec\.predictionMetrics\[0\]\.algorithm\.dsp\.sampleInterval is 1e-9s/);
  });
});

describe('statusSamplesProblem', () => {
  it('passes up to the bound and explains beyond it', () => {
    expect(statusSamplesProblem(BOUNDS.statusSamples)).to.equal(undefined);
    expect(statusSamplesProblem(BOUNDS.statusSamples + 1)).to.match(/20001 samples, more than the 20000/);
  });
});

describe('statusSizeProblem (the bound from a query\'s series count, before any fit)', () => {
  it('counts the forecast grid points a status shows in [now, now + 2 window]', () => {
    expect(samplesPerSeries(3600, 60)).to.equal(120);
    expect(samplesPerSeries(43_200, 60)).to.equal(1440);
    // An interval that does not divide the span: the most that fit in it.
    expect(samplesPerSeries(100, 60)).to.equal(4);
  });
  it('passes exactly at the bound, and over it names the metric, the series, the samples, what earlier metrics hold and the bound', () => {
    // 16 × 1,250 = 20,000: 2 × 37,500 / 60 = 1,250.
    const at = { field: 'spec.predictionMetrics[2] (cpu)', series: 16, windowSeconds: 37_500, stepSeconds: 60, before: 0 };
    expect(statusSizeProblem(at)).to.equal(undefined);
    expect(statusSizeProblem({ ...at, before: 1 })).to.match(
      /^spec\.predictionMetrics\[2\] \(cpu\): the query returns 16 series × 1250 forecast samples each \(2 × predictionWindowSeconds 37500 \/ sample interval 60s\) \+ 1 held by the metrics before it = 20001 samples, more than the 20000 /,
    );
  });
  it('an aggregated percentile block fits one series whatever the query returns; anything else fits each', () => {
    expect(fitSeriesCount(100, { algorithmType: 'percentile', percentile: { aggregated: true } })).to.equal(1);
    expect(fitSeriesCount(100, { algorithmType: 'percentile', percentile: { aggregated: false, sampleInterval: '60s', historyLength: '7d', histogram: { halfLife: '24h', maxValue: '100', bucketSize: '1' } } })).to.equal(100);
    expect(fitSeriesCount(100, { algorithmType: 'dsp' })).to.equal(100);
    expect(fitSeriesCount(0, { algorithmType: 'percentile' })).to.equal(0);
  });
});
