// The VerticalPodAutoscalerCheckpoint status in its API JSON shape (k8s.io/autoscaler vertical-pod-autoscaler
// v1.x pkg/apis/autoscaling.k8s.io/v1/types.go VerticalPodAutoscalerCheckpointStatus, HistogramCheckpoint):
// omitempty drops an empty bucket map, a zero total and a zero sample count; metav1.Time writes whole seconds
// and the zero time as null; bucket keys are Go ints and weights uint32, so anything else is refused.
import { expect } from 'chai';
import { checkpointStatusFromJSON, checkpointStatusToJSON, type CheckpointStatusJSON } from '../../../../src/vpa/model/checkpoint-json.ts';
import type { AggregateCheckpoint } from '../../../../src/vpa/model/aggregate-container-state.ts';
import { GO_ZERO_TIME } from '../../../../src/gomath/go-time.ts';

// 2026-01-02T03:04:05Z = 1767323045 s after the Unix epoch (date -u -d @1767323045).
const T = 1767323045_000_000;
const T_TEXT = '2026-01-02T03:04:05Z';

function checkpoint(over: Partial<AggregateCheckpoint> = {}): AggregateCheckpoint {
  return {
    lastUpdateTime: T,
    version: 'v3',
    firstSampleStart: T,
    lastSampleStart: T,
    totalSamplesCount: 0,
    cpuHistogram: { totalWeight: 0, bucketWeights: new Map(), referenceTimestamp: GO_ZERO_TIME },
    memoryHistogram: { totalWeight: 0, bucketWeights: new Map(), referenceTimestamp: GO_ZERO_TIME },
    ...over,
  };
}

const status = (over: Partial<CheckpointStatusJSON> = {}): CheckpointStatusJSON => ({
  lastUpdateTime: T_TEXT,
  firstSampleStart: null,
  lastSampleStart: null,
  ...over,
});

describe('checkpoint status JSON', () => {
  it('omits an empty bucket map, a zero total weight and a zero sample count (omitempty)', () => {
    const j = checkpointStatusToJSON(checkpoint());
    expect(j.cpuHistogram).to.deep.equal({ referenceTimestamp: null });
    expect(j.memoryHistogram).to.deep.equal({ referenceTimestamp: null });
    expect(j).to.not.have.property('totalSamplesCount');
    expect(j.lastUpdateTime).to.equal(T_TEXT);
  });

  it('writes non-empty buckets, the total and the sample count, and null for the zero time', () => {
    const j = checkpointStatusToJSON(checkpoint({
      totalSamplesCount: 7,
      firstSampleStart: GO_ZERO_TIME,
      memoryHistogram: { totalWeight: 2.5, bucketWeights: new Map([[9, 4], [2, 10000]]), referenceTimestamp: T + 999_999 },
    }));
    expect(j.totalSamplesCount).to.equal(7);
    expect(j.firstSampleStart).to.equal(null);
    expect(j.memoryHistogram).to.deep.equal({ referenceTimestamp: T_TEXT, bucketWeights: { '2': 10000, '9': 4 }, totalWeight: 2.5 });
  });

  it('reads null and missing times as Go zero time and truncates sub-seconds', () => {
    const cp = checkpointStatusFromJSON(status({ lastUpdateTime: '2026-01-02T03:04:05.75Z', lastSampleStart: undefined as unknown as null }));
    expect(cp.lastUpdateTime).to.equal(T);
    expect(cp.firstSampleStart).to.equal(GO_ZERO_TIME);
    expect(cp.lastSampleStart).to.equal(GO_ZERO_TIME);
    expect(cp.version).to.equal('');
    expect(cp.totalSamplesCount).to.equal(0);
    expect(cp.cpuHistogram).to.deep.equal({ totalWeight: 0, bucketWeights: new Map(), referenceTimestamp: GO_ZERO_TIME });
  });

  it('reads buckets, the total weight, the version and the sample count', () => {
    const cp = checkpointStatusFromJSON(status({
      version: 'v3',
      totalSamplesCount: 12,
      cpuHistogram: { referenceTimestamp: T_TEXT, bucketWeights: { '0': 0, '17': 4294967295 }, totalWeight: 3 },
    }));
    expect(cp.version).to.equal('v3');
    expect(cp.totalSamplesCount).to.equal(12);
    expect(cp.cpuHistogram.referenceTimestamp).to.equal(T);
    expect(cp.cpuHistogram.totalWeight).to.equal(3);
    expect([...cp.cpuHistogram.bucketWeights]).to.deep.equal([[0, 0], [17, 4294967295]]);
  });

  it('refuses a non-object, a non-string time, a non-integer bucket key, a non-uint32 weight and a non-number total, naming the field', () => {
    expect(() => checkpointStatusFromJSON(null as unknown as CheckpointStatusJSON)).to.throw('checkpoint status: expected an object');
    expect(() => checkpointStatusFromJSON('x' as unknown as CheckpointStatusJSON, 'cp')).to.throw('cp: expected an object');
    expect(() => checkpointStatusFromJSON(status({ lastSampleStart: 5 as unknown as string }))).to.throw('checkpoint status.lastSampleStart: expected an RFC 3339 string');
    expect(() => checkpointStatusFromJSON(status({ firstSampleStart: 5 as unknown as string }))).to.throw('checkpoint status.firstSampleStart: expected an RFC 3339 string');
    expect(() => checkpointStatusFromJSON(status({ lastUpdateTime: 5 as unknown as string }))).to.throw('checkpoint status.lastUpdateTime: expected an RFC 3339 string');
    const hist = (h: object, which: 'cpuHistogram' | 'memoryHistogram' = 'memoryHistogram') => () => checkpointStatusFromJSON(status({ [which]: { referenceTimestamp: null, ...h } }));
    expect(hist({ referenceTimestamp: 1 })).to.throw('checkpoint status.memoryHistogram.referenceTimestamp: expected an RFC 3339 string');
    expect(hist({ referenceTimestamp: 1 }, 'cpuHistogram')).to.throw('checkpoint status.cpuHistogram.referenceTimestamp: expected an RFC 3339 string');
    for (const key of ['1.5', 'a1', '1a', ' 1', '']) {
      expect(hist({ bucketWeights: { [key]: 1 } }), key).to.throw(`checkpoint status.memoryHistogram: bucket key "${key}" is not an integer`);
    }
    expect(checkpointStatusFromJSON(status({ memoryHistogram: { referenceTimestamp: null, bucketWeights: { '-3': 1 } } })).memoryHistogram.bucketWeights.get(-3)).to.equal(1);
    for (const w of [-1, 1.5, 4294967296]) {
      expect(hist({ bucketWeights: { '3': w } }), String(w)).to.throw(`checkpoint status.memoryHistogram: bucket weight ${w} is not a uint32`);
    }
    expect(hist({ totalWeight: '3' })).to.throw('checkpoint status.memoryHistogram: totalWeight must be a number');
  });
});
