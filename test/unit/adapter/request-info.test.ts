import { expect } from 'chai';
import { requestInfo, BadPathError } from '../../../src/adapter/request-info.ts';

describe('requestInfo (k8s.io/apiserver requestinfo.go, docs/metrics-api.md §5.4 table)', () => {
  const G = 'custom.metrics.k8s.io';
  it('derives SAR resource attributes like the reference', () => {
    expect(requestInfo('GET', `/apis/${G}/v1beta2/namespaces/default/pods/%2A/http_requests`).resource).to.deep.equal({ namespace: 'default', verb: 'get', group: G, version: 'v1beta2', resource: 'pods', subresource: 'http_requests', name: '*' });
    expect(requestInfo('GET', `/apis/${G}/v1beta2/namespaces/default/deployments.apps/web/rps`).resource).to.deep.equal({ namespace: 'default', verb: 'get', group: G, version: 'v1beta2', resource: 'deployments.apps', subresource: 'rps', name: 'web' });
    expect(requestInfo('GET', `/apis/${G}/v1beta2/namespaces/default/metrics/queue_depth`).resource).to.deep.equal({ namespace: 'default', verb: 'get', group: G, version: 'v1beta2', resource: 'metrics', name: 'queue_depth' });
    expect(requestInfo('GET', `/apis/${G}/v1beta2/nodes/%2A/node_load1`).resource).to.deep.equal({ verb: 'get', group: G, version: 'v1beta2', resource: 'nodes', subresource: 'node_load1', name: '*' });
    expect(requestInfo('GET', '/apis/external.metrics.k8s.io/v1beta1/namespaces/default/q').resource).to.deep.equal({ namespace: 'default', verb: 'list', group: 'external.metrics.k8s.io', version: 'v1beta1', resource: 'q' });
    expect(requestInfo('POST', '/apis/external.metrics.k8s.io/v1beta1/namespaces/default/q').resource?.verb).to.equal('create');
  });
  it('treats /apis, /apis/g and /apis/g/v as non-resource paths', () => {
    expect(requestInfo('GET', `/apis/${G}/v1beta2`)).to.deep.equal({ route: { kind: 'discovery-version', group: G, version: 'v1beta2' }, nonResource: { path: `/apis/${G}/v1beta2`, verb: 'get' } });
    expect(requestInfo('GET', '/apis').route.kind).to.equal('discovery-root');
    expect(requestInfo('GET', '/apis/other.group').route.kind).to.equal('not-found');
  });
  it('routes the five custom shapes and the external one', () => {
    expect(requestInfo('GET', `/apis/${G}/v1beta1/namespaces/ns/pods/%2A/m`).route).to.deep.equal({ kind: 'custom', version: 'v1beta1', namespace: 'ns', resource: 'pods', name: '*', metric: 'm', namespaceObject: false });
    expect(requestInfo('GET', `/apis/${G}/v1beta2/namespaces/ns/metrics/m`).route).to.deep.equal({ kind: 'custom', version: 'v1beta2', resource: 'namespaces', name: 'ns', metric: 'm', namespaceObject: true });
    expect(requestInfo('GET', `/apis/${G}/v1beta2/nodes/n1/m`).route).to.deep.include({ kind: 'custom', resource: 'nodes', name: 'n1' });
    expect(requestInfo('GET', `/apis/${G}/v1beta2/namespaces/ns/pods`).route).to.deep.equal({ kind: 'bad-request', message: 'invalid request path' });
    expect(requestInfo('GET', `/apis/${G}/v1beta2/namespaces/ns/pods/a/b/c`).route.kind).to.equal('not-found');
    expect(requestInfo('GET', `/apis/${G}/v1beta2/namespaces/ns/pods//m`).route.kind).to.equal('not-found');
  });
  it('refuses undecodable segments', () => {
    expect(() => requestInfo('GET', `/apis/${G}/v1beta2/namespaces/%E0%A4%A/pods/%2A/m`)).to.throw(BadPathError);
  });
});
