// Conformance handlers (see ../vpa-vectors.test.ts); kinds: histograms, decaying histograms, checkpoints, bucket tables, Go time rounding.
import { expect } from 'chai';
import {
  DecayingHistogram,
  Histogram,
  formatInstant,
  memoryAmountFromBytes,
  parseInstant,
  roundTime,
} from '../../../src/vpa/model/index.ts';
import { cpFromJSON, cpWeights, defaultOptions, duration, num, options, type Vector } from './common.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */
function checkPercentiles(h: Histogram, expected: Record<string, number>): void {
  for (const [p, v] of Object.entries(expected)) expect(h.percentile(Number(p)), `percentile ${p}`).to.equal(num(v));
}


function decaying(v: any, samples: any[]): DecayingHistogram {
  const h = new DecayingHistogram(options(v.options), duration(v.halfLife));
  for (const s of samples) h.addSample(s.value, s.weight, parseInstant(s.time));
  return h;
}

export const HISTOGRAM_HANDLERS: Record<string, (v: Vector) => void> = {
  histogram_options(v) {
    const o = options(v.input);
    expect(o.numBuckets).to.equal(v.expected.numBuckets);
    expect(o.epsilon).to.equal(v.expected.epsilon);
    for (const [b, s] of Object.entries(v.expected.getBucketStart)) expect(o.getBucketStart(Number(b))).to.equal(s);
    for (const f of v.expected.findBucket) expect(o.findBucket(f.value), `findBucket(${f.value})`).to.equal(f.bucket);
  },
  histogram(v) {
    const h = new Histogram(options(v.input.options));
    const empties: boolean[] = [];
    const checks: Record<string, number>[] = [];
    for (const op of v.input.ops) {
      if (op.op === 'add') h.addSample(op.value, op.weight);
      else if (op.op === 'subtract') h.subtractSample(op.value, op.weight);
      else if (op.op === 'isEmpty') empties.push(h.isEmpty());
      else if (op.op === 'check') checks.push(Object.fromEntries(op.percentiles.map((p: number) => [String(p), h.percentile(p)])));
    }
    if (v.expected.numBuckets !== undefined) expect(h.options.numBuckets).to.equal(v.expected.numBuckets);
    if (v.expected.percentiles) checkPercentiles(h, v.expected.percentiles);
    if (v.expected.isEmpty !== undefined) expect(h.isEmpty()).to.equal(v.expected.isEmpty);
    if (v.expected.isEmptySequence) expect(empties).to.deep.equal(v.expected.isEmptySequence);
    if (v.expected.checks) expect(checks).to.deep.equal(v.expected.checks);
  },
  histogram_merge(v) {
    const o = options(v.input.options);
    const build = (xs: [number, number][]) => {
      const h = new Histogram(o);
      for (const [val, w] of xs) h.addSample(val, w);
      return h;
    };
    const h1 = build(v.input.h1);
    h1.merge(build(v.input.h2));
    expect(h1.equals(build(v.expected.equalsHistogramWith))).to.equal(true);
    for (const [b, w] of Object.entries(v.expected.bucketWeights)) expect(h1.bucketWeight[Number(b)]).to.equal(w);
    expect(h1.totalWeight).to.equal(v.expected.totalWeight);
  },
  histogram_checkpoint_save(v) {
    const h = new Histogram(options(v.input.options));
    for (const [val, w] of v.input.samples) h.addSample(val, w);
    const cp = h.saveToCheckpoint();
    expect(cp.totalWeight).to.equal(v.expected.totalWeight);
    expect(cpWeights(cp.bucketWeights)).to.deep.equal(v.expected.bucketWeights);
  },
  histogram_checkpoint_load(v) {
    const h = new Histogram(options(v.input.options));
    let error = false;
    try {
      h.loadFromCheckpoint(cpFromJSON(v.input.checkpoint));
    } catch {
      error = true;
    }
    expect(error).to.equal(v.expected.error);
    if (!error) {
      expect(h.totalWeight).to.equal(v.expected.totalWeight);
      for (const [b, w] of Object.entries(v.expected.bucketWeight)) expect(h.bucketWeight[Number(b)]).to.equal(w);
    } else expect(h.totalWeight).to.equal(0);
  },
  histogram_checkpoint_roundtrip(v) {
    const o = options(v.input.options);
    const h = new Histogram(o);
    // "second weight is float64(MaxCheckpointWeight)*1e-15 - 1e-15 computed in float64"
    h.addSample(1, 1e-15);
    h.addSample(2, 10000 * 1e-15 - 1e-15);
    const cp = h.saveToCheckpoint();
    expect(cpWeights(cp.bucketWeights)).to.deep.equal(v.expected.saved.bucketWeights);
    expect(cp.totalWeight).to.equal(v.expected.saved.totalWeight);
    const loaded = new Histogram(o);
    loaded.loadFromCheckpoint(cp);
    expect(loaded.isEmpty()).to.equal(v.expected.loadedIsEmpty);
    expect(loaded.percentile(0)).to.equal(v.expected.loadedPercentile0);
    expect(loaded.percentile(1)).to.equal(v.expected.loadedPercentile1);
  },
  decaying_histogram(v) {
    checkPercentiles(decaying(v.input, v.input.samples), v.expected.percentiles);
  },
  decaying_histogram_merge(v) {
    const h1 = decaying(v.input, v.input.h1);
    h1.merge(decaying(v.input, v.input.h2));
    expect(h1.equals(decaying(v.input, v.expected.equalsHistogramBuiltFrom))).to.equal(true);
  },
  decaying_histogram_checkpoint_save(v) {
    const cp = decaying(v.input, v.input.samples).saveToCheckpoint();
    expect(formatInstant(cp.referenceTimestamp!)).to.equal(v.expected.referenceTimestamp);
    expect(cpWeights(cp.bucketWeights)).to.deep.equal(v.expected.bucketWeights);
    expect(cp.totalWeight).to.equal(v.expected.totalWeight);
  },
  decaying_histogram_checkpoint_load(v) {
    const h = decaying(v.input, []);
    h.loadFromCheckpoint(cpFromJSON(v.input.checkpoint));
    expect(h.isEmpty()).to.equal(v.expected.isEmpty);
    expect(formatInstant(h.referenceTimestamp)).to.equal(v.expected.referenceTimestamp);
  },
  histogram_options_bucket_starts(v) {
    const o = defaultOptions(v.input.histogram);
    expect(o.numBuckets).to.equal(v.expected.bucketStarts.length);
    v.expected.bucketStarts.forEach((s: string, b: number) => expect(o.getBucketStart(b), `bucket ${b}`).to.equal(Number(s)));
  },
  histogram_find_bucket(v) {
    const o = defaultOptions(v.input.histogram);
    for (const p of v.expected) expect(o.findBucket(Number(p.value)), `FindBucket(${p.value})`).to.equal(p.bucket);
  },
  histogram_percentile_plain(v) {
    const h = new Histogram(defaultOptions(v.input.histogram));
    for (const [val, w] of v.input.samples) h.addSample(val, w);
    const p = h.percentile(v.input.percentile);
    expect(p).to.equal(Number(v.expected.percentile));
    expect(memoryAmountFromBytes(p)).to.equal(v.expected.memoryAmountFromBytes);
  },
  go_time_round(v) {
    const got = v.input.map((x: any) => formatInstant(roundTime(parseInstant(x.t), duration(x.d))));
    expect(got).to.deep.equal(v.expected);
  },
};
