import { expect } from 'chai';
import { isAvailablePod, summarizeCpuRequests } from '../../../src/ehpa/pod-requests.ts';
import { type PodLike } from '../../../src/api/pod.ts';

const NOW = Date.parse('2026-11-22T08:00:00Z');
function pod(name: string, cpu: (string | undefined)[], readySince?: string, phase = 'Running'): PodLike {
  return {
    metadata: { name },
    spec: { containers: cpu.map((c, i) => ({ name: `c${i}`, resources: c ? { requests: { cpu: c } } : {} })) },
    status: { phase, conditions: readySince ? [{ type: 'Ready', status: 'True', lastTransitionTime: readySince }] : [] },
  };
}

describe('summarizeCpuRequests', () => {
  it('sums containers of available pods in millicores', () => {
    const r = summarizeCpuRequests([pod('a', ['500m', '0.25'], '2026-11-22T07:00:00Z'), pod('b', ['1'], '2026-11-22T07:00:00Z')], NOW);
    expect(r).to.deep.equal({ pods: 2, requestMilli: 1750, missing: [] });
  });
  it('counts only pods ready for more than 30 s when there are any', () => {
    expect(isAvailablePod(pod('a', ['1'], '2026-11-22T07:59:40Z'), NOW)).to.equal(false);
    const r = summarizeCpuRequests([pod('a', ['1'], '2026-11-22T07:00:00Z'), pod('new', ['3'], '2026-11-22T07:59:50Z')], NOW);
    expect(r).to.deep.equal({ pods: 1, requestMilli: 1000, missing: [] });
  });
  it('falls back to live pods during a rollout with none available, skipping finished ones', () => {
    const r = summarizeCpuRequests([pod('p', ['200m']), pod('done', ['900m'], undefined, 'Succeeded')], NOW);
    expect(r).to.deep.equal({ pods: 1, requestMilli: 200, missing: [] });
  });
  it('names pods with a container lacking a CPU request', () => {
    const r = summarizeCpuRequests([pod('b', ['100m', undefined], '2026-11-22T07:00:00Z'), pod('a', [], '2026-11-22T07:00:00Z')], NOW);
    expect(r.missing).to.deep.equal(['a', 'b']);
  });
});
