// manifests/network-policy.yaml names the Deployment's ports by name: a renamed port or a new one would
// silently fall outside the policy (and be blocked), so the two are checked against each other here. The
// policy itself passes server-side dry run in test/e2e/manifests.test.ts.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

const root = new URL('../../../', import.meta.url);
const load = (p: string) => parseAllDocuments(readFileSync(new URL(p, root), 'utf8')).map((d) => d.toJS());

interface Peer {
  namespaceSelector?: { matchLabels?: Record<string, string> };
  podSelector?: unknown;
  ipBlock?: unknown;
}
interface IngressRule {
  from?: Peer[];
  ports: { port: string; protocol: string }[];
}

describe('manifests/network-policy.yaml', () => {
  const policy = load('manifests/network-policy.yaml').find((d) => d?.kind === 'NetworkPolicy');
  const dep = load('manifests/deployment.yaml').find((d) => d?.kind === 'Deployment');

  it('is installed by the kustomization and selects the Deployment’s pods', () => {
    const k = load('manifests/kustomization.yaml')[0] as { resources: string[] };
    expect(k.resources).to.include('network-policy.yaml');
    expect(policy.metadata.namespace).to.equal(dep.metadata.namespace);
    expect(policy.spec.podSelector.matchLabels).to.deep.equal(dep.spec.template.metadata.labels);
    expect(policy.spec.policyTypes).to.deep.equal(['Ingress']);
  });

  it('covers every container port: https from anywhere, http-metrics only from the monitoring namespace', () => {
    const rules = policy.spec.ingress as IngressRule[];
    const ports: { name: string; containerPort: number }[] = dep.spec.template.spec.containers[0].ports;
    expect(rules.flatMap((r) => r.ports.map((p) => p.port)).sort()).to.deep.equal(ports.map((p) => p.name).sort());
    const https = rules.find((r) => r.ports.some((p) => p.port === 'https'))!;
    expect(https.from).to.equal(undefined); // any source: the aggregator's address is not selectable
    const metrics = rules.find((r) => r.ports.some((p) => p.port === 'http-metrics'))!;
    expect(metrics.ports).to.have.length(1); // the unauthenticated port shares its rule with nothing
    expect(metrics.from).to.deep.equal([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }]);
    // The probes use the plain-HTTP port (they come from the node, which NetworkPolicy always admits).
    expect(dep.spec.template.spec.containers[0].livenessProbe.httpGet.port).to.equal('http-metrics');
  });
});
