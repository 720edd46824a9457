import { expect } from 'chai';
import { summarizeCpuRequests, summarizeRequests } from '../../../src/ehpa/pod-requests.ts';
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
  it('counts only available pods when there are any (the rule itself: test/unit/api/pod.test.ts)', () => {
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

describe('summarizeRequests: memory and one container (Utilization of memory and ContainerResource metrics)', () => {
  const since = '2026-11-22T07:00:00Z';
  const p = (name: string, containers: { name: string; requests: Record<string, string> }[]): PodLike => ({
    metadata: { name },
    spec: { containers: containers.map((c) => ({ name: c.name, resources: { requests: c.requests } })) },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: since }] },
  });
  const pods = [
    p('a', [{ name: 'app', requests: { cpu: '400m', memory: '256Mi' } }, { name: 'sidecar', requests: { cpu: '100m', memory: '64Mi' } }]),
    p('b', [{ name: 'app', requests: { cpu: '400m', memory: '256Mi' } }, { name: 'sidecar', requests: { cpu: '100m' } }]),
  ];
  it('sums memory in milli-bytes and names a pod whose container has none', () => {
    expect(summarizeRequests(pods, NOW, 'memory')).to.deep.equal({ pods: 2, requestMilli: (2 * 256 + 64) * 1024 * 1024 * 1000, missing: ['b'] });
  });
  it('counts only the named container, and a pod without it is missing', () => {
    expect(summarizeRequests(pods, NOW, 'memory', 'app')).to.deep.equal({ pods: 2, requestMilli: 2 * 256 * 1024 * 1024 * 1000, missing: [] });
    expect(summarizeRequests(pods, NOW, 'cpu', 'app')).to.deep.equal({ pods: 2, requestMilli: 800, missing: [] });
    expect(summarizeRequests(pods, NOW, 'cpu', 'nope').missing).to.deep.equal(['a', 'b']);
  });
});
