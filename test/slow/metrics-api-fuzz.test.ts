// Property test over real HTTPS: 10,000 seeded random requests (paths, selectors, query strings, identity
// headers, certificates, methods). Properties: the server never crashes or drops a request, never answers
// 5xx (every fixture object is valid, so any 5xx would be our bug or a client mistake mis-classified), every
// error is a metav1.Status, and nobody gets data without authentication and authorization.
// Reproduce a failure with FUZZ_SEED=<seed printed in the assertion message>.
import { expect } from 'chai';
import { startTestAdapter, type RequestOpts, type Running } from '../helpers/adapter-fixture.ts';
import { ehpa, pod, tsp, UID } from '../unit/adapter/fixtures.ts';
import { mulberry32 } from '../helpers/seeded-random.ts';

const ALLOWED_USER = 'system:serviceaccount:kube-system:horizontal-pod-autoscaler';

interface Case {
  path: string;
  opts: RequestOpts;
  /** Whether the identity sent may see data. */
  authorized: boolean;
  health: boolean;
}

function generator(rand: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const junk = () => {
    const alphabet = 'abcxyz019-_.~%2A%2F%3D%2C%28%29%21*()!=,/:@$&+;';
    let s = '';
    const n = Math.floor(rand() * 12);
    for (let i = 0; i < n; i++) s += pick([...alphabet]);
    return s;
  };
  const enc = (s: string) => (rand() < 0.7 ? encodeURIComponent(s) : s.replace(/[^!-~]/g, (c) => encodeURIComponent(c)).replace(/[#?]/g, (c) => encodeURIComponent(c)));
  const selectorPieces = [
    'app=web', 'app==web', 'app!=db', 'app in (web,api)', 'app notin (db)', 'tier', '!tier', 'replicas>3', 'replicas<9', `autoscaling.crane.io/effective-hpa-uid=${UID}`,
    'autoscaling.crane.io/effective-hpa-uid=nope', 'targetKind=Deployment', 'targetName=shop', 'targetNamespace=default', 'resourceIdentifier=cron',
    'resourceIdentifier=resource.cpu', 'targetName=web', 'app in (web', 'a b', '=x', 'a=b=c', '', ',', 'UPPER/x=1', 'x>y', `k=${'v'.repeat(70)}`,
  ];
  const selector = () => {
    const n = 1 + Math.floor(rand() * 3);
    return Array.from({ length: n }, () => pick(selectorPieces)).join(',');
  };
  const ns = () => pick(['default', 'default', 'other', 'kube-system', junk()]);
  const metric = () => pick(['crane_pod_cpu_usage', 'crane_pod_cpu_usage', 'crane_cron_shop', 'crane_cron_batch', 'crane_autoscaling_cron', 'crane_autoscaling_prediction', 'shop', 'http_requests', junk()]);
  const customPath = () => {
    const v = pick(['v1beta1', 'v1beta2', 'v1beta2', 'v2', junk()]);
    const base = `/apis/custom.metrics.k8s.io/${v}`;
    switch (Math.floor(rand() * 6)) {
      case 0: return base;
      case 1: return `${base}/namespaces/${enc(ns())}/${pick(['pods', 'deployments.apps', 'nodes', junk()])}/${pick(['%2A', '*', 'web-1', 'web-2', junk()])}/${enc(metric())}`;
      case 2: return `${base}/namespaces/${enc(ns())}/metrics/${enc(metric())}`;
      case 3: return `${base}/${pick(['nodes', 'namespaces', 'pods'])}/${pick(['%2A', 'n1'])}/${enc(metric())}`;
      case 4: return `${base}/namespaces/${enc(ns())}${pick(['', '/pods', '/pods/%2A', '/pods/%2A/m/extra', '//pods/%2A/m'])}`;
      default: return `${base}/${Array.from({ length: Math.floor(rand() * 5) }, junk).join('/')}`;
    }
  };
  const externalPath = () => {
    const base = `/apis/external.metrics.k8s.io/${pick(['v1beta1', 'v1beta1', 'v1'])}`;
    return pick([base, `${base}/namespaces/${enc(ns())}/${enc(metric())}`, `${base}/namespaces/${enc(ns())}`, `${base}/namespaces/${enc(ns())}/${enc(metric())}/x`]);
  };
  const path = () =>
    pick([
      customPath, customPath, customPath, externalPath, externalPath,
      () => pick(['/apis', '/apis/custom.metrics.k8s.io', '/apis/external.metrics.k8s.io', '/apis/metrics.k8s.io', '/openapi/v2', '/openapi/v3', '/metrics', '/version']),
      () => pick(['/healthz', '/livez', '/readyz']),
      () => `/${Array.from({ length: Math.floor(rand() * 6) }, junk).join('/')}`,
      () => pick(['/apis/custom.metrics.k8s.io/v1beta2/namespaces/%E0%A4%A/pods/%2A/m', '/apis/%ZZ', '/apis/custom.metrics.k8s.io/v1beta2/namespaces/%00/pods/%2A/m']),
    ])();
  const query = () => {
    const parts: string[] = [];
    const n = Math.floor(rand() * 4);
    for (let i = 0; i < n; i++) {
      const key = pick(['labelSelector', 'labelSelector', 'metricLabelSelector', 'metricLabelSelector', 'fieldSelector', 'pretty', 'selector', junk()]);
      const value = rand() < 0.8 ? selector() : junk();
      parts.push(`${encodeURIComponent(key)}=${rand() < 0.85 ? encodeURIComponent(value) : value.replace(/[^!-~]/g, '+').replace(/[#&]/g, '%26')}`);
    }
    return parts.length ? `?${parts.join('&')}` : '';
  };

  return (): Case => {
    const p = path();
    const cert = pick(['front-proxy', 'front-proxy', 'front-proxy', 'none', 'untrusted', 'not-allowed'] as const);
    const user = pick([ALLOWED_USER, ALLOWED_USER, 'jane', '', 'system:kube-aggregator']);
    const groups = Array.from({ length: Math.floor(rand() * 3) }, () => pick(['system:masters', 'dev', 'system:authenticated', junk()]));
    const headers: [string, string][] = [];
    if (user !== '' || rand() < 0.3) headers.push(['X-Remote-User', user]);
    for (const g of groups) headers.push(['X-Remote-Group', g]);
    if (rand() < 0.2) headers.push([`X-Remote-Extra-${pick(['scopes', 'a%2Fb', 'x'])}`, junk()]);
    if (rand() < 0.3) headers.push(['Accept', pick(['application/json', '*/*', 'application/vnd.kubernetes.protobuf, */*', 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', 'text/html'])]);
    if (rand() < 0.1) headers.push(['Authorization', 'Bearer forged']);
    const method = pick(['GET', 'GET', 'GET', 'GET', 'HEAD', 'POST', 'DELETE', 'PUT']);
    const identityTrusted = cert === 'front-proxy' && user !== '';
    const authorized = identityTrusted && (user === ALLOWED_USER || groups.includes('system:masters'));
    const health = ['/healthz', '/livez', '/readyz'].includes(p);
    return { path: p + query(), opts: { cert, headers, method }, authorized, health };
  };
}

describe('metrics API fuzz (10,000 seeded requests over HTTPS)', function () {
  this.timeout(120_000);
  let a: Running;
  before(async () => {
    a = await startTestAdapter();
    const now = a.clock.now;
    a.sources.ehpas.push(
      ehpa(),
      ehpa({ crons: [{ name: 'day', start: '0 9 * * 1-5', end: '0 17 * * 1-5', targetReplicas: 8 }] }, 'shop', 'uid-shop'),
      ehpa({ metrics: [], crons: [{ name: 'night', start: '0 22 * * *', end: '0 6 * * *', targetReplicas: 3 }] }, 'batch', 'uid-batch'),
    );
    a.sources.tsps.push(tsp(now, [0.5, 0.7]), tsp(now, [1.5], { rid: 'resource.cpu', name: 'head', uid: 'x' }));
    for (let i = 0; i < 6; i++) a.sources.pods.push(pod(`web-${i}`, now, { labels: { app: 'web', tier: 'front', replicas: String(i) } }));
    a.sources.pods.push(pod('db-0', now, { labels: { app: 'db' } }));
    for (const p of a.sources.pods) a.sources.observed.set(`default/${p.metadata.name}`, 100);
    a.sources.scale.set('default/Deployment/batch', 4).set('default/Deployment/shop', 2);
    a.authorizer.allowedUsers.add(ALLOWED_USER);
  });
  after(async () => a.close());

  it('holds the properties for every request', async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 20261122);
    const next = generator(mulberry32(seed));
    const total = 10_000;
    const concurrency = 16;
    let done = 0;
    let twoXX = 0;
    const codes = new Map<number, number>();
    const failures: string[] = [];
    const worker = async () => {
      while (done < total && failures.length < 5) {
        done++;
        const c = next();
        const r = await a.get(c.path, c.opts).catch((e: Error) => ({ status: -1, text: e.message, json: undefined, headers: {} }));
        codes.set(r.status, (codes.get(r.status) ?? 0) + 1);
        const where = `seed ${seed}: ${c.opts.method} ${c.path} cert=${c.opts.cert} headers=${JSON.stringify(c.opts.headers)} → ${r.status} ${r.text.slice(0, 200)}`;
        if (r.status < 100) failures.push(`no answer: ${where}`);
        else if (r.status >= 500) failures.push(`5xx: ${where}`);
        else if (r.status < 300) {
          twoXX++;
          if (!c.health && !c.authorized) failures.push(`data without authorization: ${where}`);
        } else if (c.opts.method !== 'HEAD' && r.json?.kind !== 'Status') failures.push(`error without a Status body: ${where}`);
        if (!c.health && (c.opts.cert === 'untrusted' || c.opts.cert === 'not-allowed') && r.status !== 401) failures.push(`untrusted certificate not 401: ${where}`);
        if (c.opts.method === 'HEAD' && r.text !== '') failures.push(`HEAD with a body: ${where}`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(done).to.be.at.least(total);
    // The generator must actually reach the interesting outcomes, or the properties prove little.
    for (const code of [200, 400, 401, 403, 404, 405]) expect(codes.get(code) ?? 0, `code ${code} in ${JSON.stringify([...codes])}`).to.be.greaterThan(100);
    expect(codes.get(406) ?? 0, 'aggregated-discovery 406s').to.be.greaterThan(2);
    expect(twoXX).to.be.greaterThan(500);
    expect((await a.get('/healthz', { cert: 'none' })).status).to.equal(200);
  });
});
