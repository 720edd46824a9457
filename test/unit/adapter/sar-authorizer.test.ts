// The production Authorizer: what it posts, how it reads the answer, and that reviews reuse one TLS
// connection (client-node's generated API opened a new one per review: at 10,000 HPAs a handshake on both
// ends for every namespace and metric every cache TTL). Against a loopback HTTPS server standing in for
// kube-apiserver.
import { expect } from 'chai';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { issueCertificate } from '../../../src/adapter/cert-factory.ts';
import { SUBJECT_ACCESS_REVIEWS_PATH, SubjectAccessReviewAuthorizer } from '../../../src/adapter/authz.ts';
import { KubeApiClient } from '../../../src/kube/api-client.ts';
import type { UserInfo } from '../../../src/adapter/authn.ts';

interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
  body: { kind?: string; spec?: { user?: string; groups?: string[]; resourceAttributes?: Record<string, string> } };
}

/** Answers every review with `answer(spec)`, recording requests and TLS connections. */
async function fakeApiserver(answer: (user: string) => { allowed: boolean; denied?: boolean; reason?: string }) {
  const now = Date.now();
  const cert = issueCertificate({ commonName: 'kube-apiserver', usage: 'server', ipAddresses: ['127.0.0.1'], notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000) });
  const seen: Seen[] = [];
  let connections = 0;
  const server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(text) as Seen['body'];
      seen.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, body });
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ ...body, status: answer(body.spec?.user ?? '') }));
    });
  });
  server.on('secureConnection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 'adapter-token' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return {
    kc,
    seen,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const user = (name: string): UserInfo => ({ name, groups: ['system:serviceaccounts', 'system:authenticated'], extra: {} });
const metric = (namespace: string) => ({ resource: { namespace, verb: 'get', group: 'custom.metrics.k8s.io', version: 'v1beta2', resource: 'pods', subresource: 'crane_pod_cpu_usage', name: '*' } });

describe('SubjectAccessReviewAuthorizer over the kept-alive API client', () => {
  let api: Awaited<ReturnType<typeof fakeApiserver>>;
  before(async () => {
    api = await fakeApiserver((u) => (u === 'mallory' ? { allowed: false, denied: true, reason: 'no RBAC rule' } : { allowed: true }));
  });
  after(async () => api.close());

  it('posts the review with the user and the resource, with the adapter\'s credentials, and reads allowed/denied', async () => {
    const authz = new SubjectAccessReviewAuthorizer(new KubeApiClient(api.kc));
    const yes = await authz.authorize(user('hpa'), metric('team-a'));
    const no = await authz.authorize(user('mallory'), metric('victim'));
    expect(yes).to.deep.equal({ allowed: true });
    expect(no).to.deep.equal({ allowed: false, reason: 'no RBAC rule' });
    const [first, second] = api.seen.slice(-2);
    expect(first).to.deep.include({ method: 'POST', path: SUBJECT_ACCESS_REVIEWS_PATH, authorization: 'Bearer adapter-token' });
    expect(first!.body.kind).to.equal('SubjectAccessReview');
    expect(first!.body.spec).to.deep.equal({ user: 'hpa', groups: ['system:serviceaccounts', 'system:authenticated'], resourceAttributes: metric('team-a').resource });
    expect(second!.body.spec?.resourceAttributes?.['namespace']).to.equal('victim');
  });

  it('50 reviews, 10 at a time, open at most 10 TLS connections (one each before: a handshake per review)', async () => {
    const before = api.connections();
    const authz = new SubjectAccessReviewAuthorizer(new KubeApiClient(api.kc));
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => authz.authorize(user('hpa'), metric(`ns-${round}-${i}`))));
      expect(answers.every((d) => d.allowed)).to.equal(true);
    }
    const opened = api.connections() - before;
    expect(opened).to.be.within(1, 10);
  });
});
