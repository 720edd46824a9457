// End-to-end, run alone (test/serial: it bounds another namespace's metric latency and serve's RSS): the
// hostile cases test/helpers/crd-fuzz.ts generates from the CRD schemas, created on the real control plane in
// namespace `attacker`, 20 at a time. Meanwhile namespace `victim`'s EHPA has its HPA read the cron metric.
// After each batch: serve is alive (same process, /healthz 200), its RSS stayed under RSS_BUDGET_BYTES all
// along, every victim metric request was answered 200 within VICTIM_BOUND_MS, and every object either was
// refused by kube-apiserver (400/413/422; the message is recorded, and a 422 must name the field) or, within
// VERDICT_MS, carries a False condition whose message names the fuzzed field, or is Ready with a forecast that
// is finite and ≥ 0. Kinds no controller here sets a condition on (VPA, its checkpoint, Substitute) are
// judged by serve's health and by the sanity of any status they carry. The failures make one table, printed
// at the end, which must be empty. At the end serve is restarted with the attacker's checkpoints present (the
// recommender reads them at start).
//
// By default a deterministic sample (FUZZ_SAMPLE, 150) covering every CRD, every field type and every pair;
// FUZZ_ALL=1 runs every generated case (npm run test:fuzz). FUZZ_REPORT=<file> writes every outcome as JSON.
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { createDeployment, createNamespace, waitFor, waitHpa, type AdapterProcess, type Cluster, type RestClient } from '../e2e/harness/index.ts';
import { CRANE_TRACES, useCluster } from '../e2e/helpers.ts';
import { fileURLToPath } from 'node:url';
import { cronSelector, cronWindowNow, ehpaObject, ehpaPath, installForServe, post, startServe, tspPath } from '../e2e/scenario-helpers.ts';
import { fuzzCases, fuzzSample, type FuzzCase } from '../helpers/crd-fuzz.ts';

const VICTIM = 'victim';
const ATTACKER = 'attacker';
const BATCH = 20;
/** serve's resident memory, sampled every 250 ms through the whole run; the Deployment's limit is 1 GiB. */
const RSS_BUDGET_BYTES = 600 * 2 ** 20;
/** Each victim metric request through the aggregator, answered 200 within this. */
const VICTIM_BOUND_MS = 2_000;
/** Victim metric reads per second while a batch is judged (the two HPA reads of a few dozen HPAs). */
const VICTIM_RATE = 10;
/** How long an accepted object has to show its condition or become Ready. */
const VERDICT_MS = Number(process.env.FUZZ_VERDICT_MS ?? 60_000);
/** How long an accepted VPA, checkpoint or Substitute is watched before it is judged harmless. */
const SETTLE_MS = 12_000;
const TRACE = fileURLToPath(new URL('input1.csv', CRANE_TRACES));
/** The victim HPA's metric read, through the aggregator. */
const victimPath = `/apis/external.metrics.k8s.io/v1beta1/namespaces/${VICTIM}/crane_autoscaling_cron?labelSelector=${cronSelector(VICTIM, 'web')}`;

const all = fuzzCases();
const cases = process.env.FUZZ_ALL === '1' ? all : fuzzSample(all, Number(process.env.FUZZ_SAMPLE ?? 150));

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface Stored {
  metadata: { name: string };
  status?: { conditions?: Condition[]; predictionMetrics?: { prediction?: { samples?: { value: string }[] }[] }[]; recommendation?: { containerRecommendations?: Record<string, unknown>[] } };
}

type Outcome = { case: string; verdict: 'refused' | 'condition' | 'ready' | 'inert' | 'FAIL'; detail: string };

const pluralPath = (c: FuzzCase, ns: string, name = '') => `/apis/${c.crd.group}/${c.crd.version}/namespaces/${ns}/${c.crd.plural}${name ? `/${name}` : ''}`;

/** Tenants hold `edit` (EHPAs and TSPs through our aggregated role); VPAs and checkpoints are written by an
 *  admin on the tenant's behalf, as a cluster that grants them to tenants would let the tenant. */
const tenantWrites = (c: FuzzCase) => c.crd.group === 'autoscaling.crane.io' && c.crd.kind !== 'Substitute' || c.crd.group === 'prediction.crane.io';

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) * 1024;
}

const namesField = (c: FuzzCase, text: string) => c.names.some((n) => text.toLowerCase().includes(n.toLowerCase()));

/** kube-apiserver's schema errors name paths with indexes ("spec.crons[0].start"). A refusal names the field,
 *  or a block around it that the case had to create (a `pods` metric block missing its required `target`). */
function refusalNamesField(c: FuzzCase, message: string): boolean {
  if (namesField(c, message)) return true;
  return c.fields.some((f) => {
    const segs = f.replace(/\[\]/g, '.[0]').replace(/\{\}/g, '').split('.');
    for (let n = segs.length - 1; n >= 2; n--) if (message.includes(segs.slice(0, n).join('.').replace(/\.\[0\]/g, '[0]'))) return true;
    return false;
  });
}

/** Every number a TSP status publishes, and every quantity a VPA recommends, is finite and ≥ 0. */
function insaneValues(o: Stored): string[] {
  const bad: string[] = [];
  for (const m of o.status?.predictionMetrics ?? []) for (const p of m.prediction ?? []) for (const s of p.samples ?? []) if (!(Number(s.value) >= 0 && Number.isFinite(Number(s.value)))) bad.push(`sample ${s.value}`);
  for (const r of o.status?.recommendation?.containerRecommendations ?? []) {
    for (const k of ['target', 'lowerBound', 'upperBound', 'uncappedTarget']) {
      for (const [res, q] of Object.entries((r[k] ?? {}) as Record<string, unknown>)) if (typeof q === 'string' && /^-|NaN|Inf/i.test(q)) bad.push(`${k}.${res} ${q}`);
    }
  }
  return bad;
}

/** The verdict on a stored object, or undefined while it has none. */
function judge(c: FuzzCase, o: Stored, related: Stored | undefined, settled: boolean): Outcome | undefined {
  const conds = [...(o.status?.conditions ?? []), ...(related?.status?.conditions ?? [])];
  const bad = [...insaneValues(o), ...(related ? insaneValues(related) : [])];
  if (bad.length) return { case: c.id, verdict: 'FAIL', detail: `published ${bad.slice(0, 3).join(', ')}` };
  // A PromQL expression is judged by what its query did: a condition about "the query" or the history it
  // returned (none, no period, a subquery over the bound) speaks of that field, the metric's only query.
  const names = (m: string) => namesField(c, m) || (c.semantics.includes('promql') && /\bquery\b|subquery|history/i.test(m));
  const naming = conds.find((x) => x.status === 'False' && names(x.message ?? ''));
  if (naming) return { case: c.id, verdict: 'condition', detail: `${naming.type}=False ${naming.reason}: ${naming.message}` };
  const refusing = conds.find((x) => x.status === 'False' && /Invalid|Refus|Unsupported|TooMany|TooLarge/.test(x.reason ?? ''));
  if (refusing) return { case: c.id, verdict: 'FAIL', detail: `condition does not name ${c.names.join('/')}: ${refusing.type}=False ${refusing.reason}: ${refusing.message}` };
  if (c.crd.kind === 'EffectiveHorizontalPodAutoscaler' || c.crd.kind === 'TimeSeriesPrediction') {
    const ready = (o.status?.conditions ?? []).find((x) => x.type === 'Ready');
    if (ready?.status === 'True') return { case: c.id, verdict: 'ready', detail: ready.message ?? '' };
    return undefined;
  }
  // A VPA is judged on its recommendation once the recommender has made one, or once two of its loops
  // (--recommender-interval=5s) have passed; the other kinds once that time has passed.
  if (o.status?.recommendation?.containerRecommendations?.length) return { case: c.id, verdict: 'inert', detail: 'accepted; recommendation finite and >= 0' };
  return settled ? { case: c.id, verdict: 'inert', detail: 'accepted; no controller condition for this kind' } : undefined;
}

interface Sampler {
  start(): { stop(): Promise<number[]> };
  close(): Promise<number>;
}
function startVictimSampler(c: Cluster, paths: string[]): Sampler {
  const worker = new Worker(new URL('./victim-sampler.mjs', import.meta.url), {
    workerData: { server: c.apiserverUrl, ca: c.pki.ca.certPath, cert: c.pki.admin.certPath, key: c.pki.admin.keyPath, paths },
  });
  return {
    start() {
      // The worker reports a failed request at once, while the batch still runs: kept until stop() asks.
      const answer = new Promise<{ latencies?: number[]; error?: string }>((resolve) => worker.once('message', resolve));
      worker.postMessage({ until: 'stop', perSecond: VICTIM_RATE });
      return {
        stop: async () => {
          worker.postMessage('stop');
          const m = await answer;
          if (m.error !== undefined) throw new Error(m.error);
          return m.latencies ?? [];
        },
      };
    },
    close: () => worker.terminate(),
  };
}

describe(`e2e: schema-driven hostile fuzzing (${cases.length} of ${all.length} generated cases)`, function () {
  this.timeout(cases.length * 20_000 + 600_000);
  // Service-account credentials: the clusterrole-aggregation controller may then grant what it folds into `edit`.
  const env = useCluster({
    useServiceAccountCredentials: true,
    traces: [{ file: TRACE, namespace: ATTACKER, pod: 'fuzz-5f6d7c8b9a-zzzzz', container: 'app', cpuScale: 0.1, lastPoints: 2 * 1440 + 120 }],
  });
  let serve: AdapterProcess;
  let tenant: RestClient;
  let sampler: Sampler;
  let maxRss = 0;
  let rssTimer: NodeJS.Timeout | undefined;
  const outcomes: Outcome[] = [];
  const victimLatencies: number[] = [];
  const serveArgs = ['--controllers=ehpa,tsp,vpa-recommender', '--recommender-interval=5s', '--history-length=1d'];
  const watchRss = (pid: number) => {
    clearInterval(rssTimer);
    rssTimer = setInterval(() => {
      try {
        maxRss = Math.max(maxRss, rssBytes(pid));
      } catch {
        // the process is gone: the liveness check reports it
      }
    }, 250);
  };

  before(async function () {
    this.timeout(400_000);
    const c = env.cluster;
    await installForServe(c);
    await createNamespace(c, VICTIM);
    await createNamespace(c, ATTACKER);
    await post(c, `/apis/rbac.authorization.k8s.io/v1/namespaces/${ATTACKER}/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'attacker-edit', namespace: ATTACKER },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'attacker' }],
    });
    tenant = (await c.identity('attacker')).rest;
    await waitFor('attacker may list TSPs through edit', async () => (await tenant.get(tspPath(ATTACKER))).status === 200, { timeoutMs: 60_000 });
    await createDeployment(c, VICTIM, 'web', { replicas: 1, cpuRequest: '100m' });
    await createDeployment(c, ATTACKER, 'web', { replicas: 1, cpuRequest: '100m' });
    // One target per batch slot: a Preview EHPA scales its target to specificReplicas (0, int32 max), which
    // must not decide the verdict on the other EHPAs of its batch. The quota keeps int32 max from becoming
    // pods; the targets go back to one replica after each batch.
    for (let i = 0; i < BATCH; i++) await createDeployment(c, ATTACKER, `web-${i}`, { replicas: 1, cpuRequest: '10m' });
    await post(c, `/api/v1/namespaces/${ATTACKER}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'pods', namespace: ATTACKER }, spec: { hard: { pods: '60' } } });
    // The VPA the hostile checkpoints name (vpaObjectName web): without it the recommender's garbage
    // collection deletes them before the restart that reads them.
    await post(c, `/apis/autoscaling.k8s.io/v1/namespaces/${ATTACKER}/verticalpodautoscalers`, {
      apiVersion: 'autoscaling.k8s.io/v1',
      kind: 'VerticalPodAutoscaler',
      metadata: { name: 'web', namespace: ATTACKER },
      spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, updatePolicy: { updateMode: 'Off' }, recommenders: [{ name: 'ehpa-adapter' }] },
    });
    serve = await startServe(c, 'serve-fuzz', serveArgs);
    watchRss(serve.pid as number);
    await post(c, ehpaPath(VICTIM), ehpaObject(VICTIM, 'web', 'web', { maxReplicas: 3, crons: [cronWindowNow('all-run', 24 * 60 - 2, 2).cron] }));
    await waitHpa(c, VICTIM, 'ehpa-web', 'victim HPA reads the cron metric', (h) => ((h.status?.currentMetrics ?? []) as { type: string }[]).some((m) => m.type === 'External'), 180_000);
    sampler = startVictimSampler(c, [victimPath]);
  });

  after(async () => {
    clearInterval(rssTimer);
    await sampler?.close();
    await serve?.stop();
  });

  /** Creates the cases of one batch, judges each, checks serve and the victim; returns the outcomes. */
  async function runBatch(batch: FuzzCase[], index: number, keep: (c: FuzzCase) => boolean, minMs = 0): Promise<Outcome[]> {
    const c = env.cluster;
    const began = performance.now();
    const pid = serve.pid as number;
    const sampling = sampler.start();
    const out: Outcome[] = [];
    const pending: { c: FuzzCase; name: string }[] = [];
    await Promise.all(
      batch.map(async (fc, i) => {
        const name = `f${index}-${i}`;
        const body = { apiVersion: `${fc.crd.group}/${fc.crd.version}`, kind: fc.crd.kind, metadata: { name, namespace: ATTACKER }, ...structuredClone(fc.object) };
        const ref = (body as { spec?: { scaleTargetRef?: { name?: string } } }).spec?.scaleTargetRef;
        if (ref?.name === 'web') ref.name = `web-${i}`;
        const client = tenantWrites(fc) ? tenant : c.admin;
        const r = await client.request('POST', pluralPath(fc, ATTACKER), { body, timeoutMs: 60_000 });
        const full = (r.json as { message?: string } | undefined)?.message ?? r.body;
        const message = full.slice(0, 300);
        if (r.status === 201) pending.push({ c: fc, name });
        else if (r.status === 422 && !refusalNamesField(fc, full)) out.push({ case: fc.id, verdict: 'FAIL', detail: `422 without the field's name: ${message}` });
        else if ([400, 413, 422].includes(r.status)) out.push({ case: fc.id, verdict: 'refused', detail: `${r.status} ${message}` });
        else out.push({ case: fc.id, verdict: 'FAIL', detail: `create answered ${r.status}: ${message}` });
      }),
    );
    // Judged from one list per kind a poll (the objects may be large; a GET each would be the harness's load).
    const deadline = performance.now() + VERDICT_MS;
    while (pending.length) {
      const lists = new Map<string, Map<string, Stored>>();
      const listOf = async (fc: FuzzCase) => {
        const key = pluralPath(fc, ATTACKER);
        if (!lists.has(key)) {
          const items = (await c.admin.getJson<{ items: Stored[] }>(key)).items;
          lists.set(key, new Map(items.map((o) => [o.metadata.name, o])));
        }
        return lists.get(key)!;
      };
      const tsps = new Map(((await c.admin.getJson<{ items: Stored[] }>(tspPath(ATTACKER))).items).map((o) => [o.metadata.name, o]));
      for (const p of [...pending]) {
        const o = (await listOf(p.c)).get(p.name);
        if (!o) continue;
        const v = judge(p.c, o, p.c.crd.kind === 'EffectiveHorizontalPodAutoscaler' ? tsps.get(`ehpa-${p.name}`) : undefined, performance.now() - began > SETTLE_MS);
        if (v) {
          out.push(v);
          pending.splice(pending.indexOf(p), 1);
        }
      }
      if (!pending.length || performance.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 2_000));
    }
    for (const p of pending) {
      const o = (await c.admin.get(pluralPath(p.c, ATTACKER, p.name))).json as Stored;
      out.push({ case: p.c.id, verdict: 'FAIL', detail: `no verdict in ${VERDICT_MS / 1000} s; conditions ${JSON.stringify(o?.status?.conditions ?? null).slice(0, 300)}` });
    }
    const left = minMs - (performance.now() - began);
    if (left > 0) await new Promise((r) => setTimeout(r, left));
    // serve's health after the batch.
    let latencies: number[] = [];
    try {
      latencies = await sampling.stop();
    } catch (e) {
      out.push({ case: `batch ${index}: victim`, verdict: 'FAIL', detail: (e as Error).message.slice(0, 300) });
    }
    victimLatencies.push(...latencies);
    const slow = latencies.filter((ms) => ms > VICTIM_BOUND_MS);
    if (slow.length) out.push({ case: `batch ${index}: victim`, verdict: 'FAIL', detail: `${slow.length} of ${latencies.length} requests over ${VICTIM_BOUND_MS} ms (max ${Math.max(...slow).toFixed(0)})` });
    if (!serve.running || serve.pid !== pid) out.push({ case: `batch ${index}: serve`, verdict: 'FAIL', detail: 'serve exited' });
    else {
      const h = await fetch(`${serve.metricsUrl}/healthz`).then((r) => r.status, (e: Error) => e.message);
      if (h !== 200) out.push({ case: `batch ${index}: serve`, verdict: 'FAIL', detail: `/healthz ${h}` });
    }
    if (maxRss > RSS_BUDGET_BYTES) out.push({ case: `batch ${index}: serve`, verdict: 'FAIL', detail: `RSS ${(maxRss / 2 ** 20).toFixed(0)} MiB over the ${RSS_BUDGET_BYTES / 2 ** 20} MiB budget` });
    // The batch's objects go (an EHPA's TSP and HPA with it, by owner reference), so each batch is judged on
    // its own; the ones kept stay for the restart at the end.
    await Promise.all(
      batch.map(async (fc, i) => {
        if (!keep(fc)) await c.admin.request('DELETE', pluralPath(fc, ATTACKER, `f${index}-${i}`));
      }),
    );
    await Promise.all(
      batch.map((_, i) => c.admin.request('PATCH', `/apis/apps/v1/namespaces/${ATTACKER}/deployments/web-${i}/scale`, { body: { spec: { replicas: 1 } }, contentType: 'application/merge-patch+json' })),
    );
    return out;
  }

  it('every generated case is refused, named in a condition, or Ready and sane; serve and the victim unharmed', async () => {
    const started = performance.now();
    const keepCheckpoint = (fc: FuzzCase) => fc.crd.kind === 'VerticalPodAutoscalerCheckpoint';
    // The valid bases first: each must come out Ready (or inert), or the verdicts below mean nothing.
    const { baseObjects } = await import('../helpers/crd-fuzz.ts');
    const controls = [...new Map(all.map((fc) => [fc.crd.kind, fc.crd])).values()].flatMap((crd) =>
      baseObjects(crd.kind).map((object, i) => ({ id: `${crd.kind} base ${i}`, crd, fields: [], names: ['\u0000never'], semantics: [], pair: false, object }) satisfies FuzzCase),
    );
    const control = await runBatch(controls, 0, () => false);
    for (const o of control) expect(o.verdict, `${o.case}: ${o.detail}`).to.be.oneOf(['ready', 'inert']);
    for (let b = 0; b * BATCH < cases.length; b++) {
      const t0 = performance.now();
      const got = await runBatch(cases.slice(b * BATCH, (b + 1) * BATCH), b + 1, keepCheckpoint);
      outcomes.push(...got);
      // Written as it goes, so a long run stopped early still says what it found.
      if (process.env.FUZZ_REPORT) writeFileSync(process.env.FUZZ_REPORT, JSON.stringify(outcomes, null, 1));
      for (const f of got.filter((o) => o.verdict === 'FAIL')) console.log(`        FAIL ${f.case}: ${f.detail}`);
      console.log(`      batch ${b + 1}: ${got.length} outcomes in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${got.filter((o) => o.verdict === 'FAIL').length} failures; serve max RSS so far ${(maxRss / 2 ** 20).toFixed(0)} MiB`);
    }
    // serve restarted with the attacker's checkpoints stored: the recommender reads every one at start.
    const c = env.cluster;
    await serve.stop();
    serve = await startServe(c, 'serve-fuzz', serveArgs);
    watchRss(serve.pid as number);
    // Until its caches have synced a fresh serve answers 503 by design; from then on the victim is judged.
    const restarted = performance.now();
    await waitFor('victim answered after the restart', async () => (await c.admin.get(victimPath)).status === 200, { timeoutMs: 60_000 });
    const stored = (await c.admin.getJson<{ items: unknown[] }>(`/apis/autoscaling.k8s.io/v1/namespaces/${ATTACKER}/verticalpodautoscalercheckpoints`)).items.length;
    console.log(`      serve restarted with ${stored} checkpoints stored in ${ATTACKER} (the accepted hostile ones and the recommender's own); the victim answered after ${((performance.now() - restarted) / 1000).toFixed(1)} s`);
    const after = await runBatch([], cases.length, () => true, 15_000);
    outcomes.push(...after.map((o) => ({ ...o, case: `restart with the checkpoints: ${o.case}` })));

    const count = (v: Outcome['verdict']) => outcomes.filter((o) => o.verdict === v).length;
    const sorted = [...victimLatencies].sort((a, b) => a - b);
    console.log(`      ${cases.length} cases in ${((performance.now() - started) / 1000).toFixed(0)} s: refused ${count('refused')}, condition ${count('condition')}, ready ${count('ready')}, inert ${count('inert')}, failed ${count('FAIL')}`);
    console.log(`      serve max RSS ${(maxRss / 2 ** 20).toFixed(0)} MiB (budget ${RSS_BUDGET_BYTES / 2 ** 20}); victim ${sorted.length} requests, p99 ${(sorted[Math.ceil(0.99 * sorted.length) - 1] ?? NaN).toFixed(0)} ms, max ${(sorted.at(-1) ?? NaN).toFixed(0)} ms`);
    if (process.env.FUZZ_REPORT) writeFileSync(process.env.FUZZ_REPORT, JSON.stringify(outcomes, null, 1));
    const failures = outcomes.filter((o) => o.verdict === 'FAIL');
    if (failures.length) console.log(`\n      FAILURES\n${failures.map((f) => `      | ${f.case} | ${f.detail} |`).join('\n')}\n`);
    expect(failures.map((f) => `${f.case}: ${f.detail}`)).to.deep.equal([]);
  });
});
