import { expect } from 'chai';
import { cpuEhpaFor, cpuEhpaIndex, ehpaScalesOnCpu, sameTarget, withoutCpu, type EhpaForSplit } from '../../../../src/vpa/routines/resource-split.ts';

const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
function ehpa(name: string, spec: Partial<EhpaForSplit['spec']>, namespace = 'ns'): EhpaForSplit {
  return { metadata: { name, namespace }, spec: { scaleTargetRef: deploy, ...spec } };
}
const cpu = { type: 'Resource', resource: { name: 'cpu' } };
const mem = { type: 'Resource', resource: { name: 'memory' } };

describe('vpa routines: HPA on CPU, VPA on memory', () => {
  it('an EHPA scales on CPU with a Resource or ContainerResource cpu metric, or with no metrics and no crons (the 80% default)', () => {
    expect(ehpaScalesOnCpu(ehpa('a', { metrics: [cpu] }))).to.equal(true);
    expect(ehpaScalesOnCpu(ehpa('a', { metrics: [{ type: 'ContainerResource', containerResource: { name: 'cpu' } }] }))).to.equal(true);
    expect(ehpaScalesOnCpu(ehpa('a', { metrics: [mem] }))).to.equal(false);
    expect(ehpaScalesOnCpu(ehpa('a', { metrics: [{ type: 'External' }] }))).to.equal(false);
    expect(ehpaScalesOnCpu(ehpa('a', {}))).to.equal(true);
    expect(ehpaScalesOnCpu(ehpa('a', { crons: [{}] }))).to.equal(false);
  });

  it('matches targets by kind, name and API group, not version', () => {
    expect(sameTarget(deploy, { apiVersion: 'apps/v1beta2', kind: 'Deployment', name: 'web' })).to.equal(true);
    expect(sameTarget(deploy, { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' })).to.equal(false);
    expect(sameTarget(deploy, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' })).to.equal(false);
    expect(sameTarget(deploy, { apiVersion: 'example.com/v1', kind: 'Deployment', name: 'web' })).to.equal(false);
    expect(sameTarget({ kind: 'Deployment' }, { kind: 'Deployment' })).to.equal(false);
  });

  it('finds the CPU EHPA of the same namespace and target, the first by name when several', () => {
    const list = [ehpa('z', { metrics: [cpu] }), ehpa('b', { metrics: [cpu] }), ehpa('a', { metrics: [mem] }), ehpa('c', { metrics: [cpu] }, 'other')];
    expect(cpuEhpaFor('ns', deploy, list)?.metadata.name).to.equal('b');
    expect(cpuEhpaFor('other', deploy, list)?.metadata.name).to.equal('c');
    expect(cpuEhpaFor('ns', { ...deploy, name: 'api' }, list)).to.equal(undefined);
    expect(cpuEhpaFor('ns', undefined, list)).to.equal(undefined);
    const idx = cpuEhpaIndex(list);
    for (const [ns, ref] of [['ns', deploy], ['other', deploy], ['ns', { ...deploy, name: 'api' }], ['ns', { ...deploy, apiVersion: 'apps/v1beta1' }], ['ns', undefined]] as const) {
      expect(idx(ns, ref)?.metadata.name, `${ns} ${JSON.stringify(ref)}`).to.equal(cpuEhpaFor(ns, ref, list)?.metadata.name);
    }
  });

  it('drops cpu from the controlled resources, keeping the rest in order', () => {
    expect(withoutCpu(['cpu', 'memory'])).to.deep.equal(['memory']);
    expect(withoutCpu(['cpu'])).to.deep.equal([]);
    expect(withoutCpu(['memory'])).to.deep.equal(['memory']);
  });
});
