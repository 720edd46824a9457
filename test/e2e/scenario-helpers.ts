// Shared set-up of the end-to-end scenario suites: install what a user installs (crds/, the RBAC of
// manifests/), route the three metrics APIs to `ehpa-adapter serve` started as its own process with the
// adapter's service-account identity, and small builders for EHPAs and cron windows.
import { expect } from 'chai';
import { join } from 'node:path';
import { installCrds, installManifestRbac, waitFor, type AdapterProcess, type Cluster } from './harness/index.ts';
import { quantityMilli as parseMilli } from '../../src/quantity/index.ts';

export const EHPA_API = '/apis/autoscaling.crane.io/v1alpha1';
export const ehpaPath = (ns: string, name = '') => `${EHPA_API}/namespaces/${ns}/effectivehorizontalpodautoscalers${name ? `/${name}` : ''}`;
export const hpaPath = (ns: string, name = '') => `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers${name ? `/${name}` : ''}`;
export const tspPath = (ns: string, name = '') => `/apis/prediction.crane.io/v1alpha1/namespaces/${ns}/timeseriespredictions${name ? `/${name}` : ''}`;

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

export interface Obj {
  metadata: { name: string; uid: string; resourceVersion?: string; labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: { kind: string; name: string; uid: string }[] };
  spec: Record<string, unknown>;
  status?: Record<string, unknown> & { conditions?: Condition[] };
}

/** CRDs and RBAC as a user applies them, then the APIServices pointing at cluster.adapterPort. */
export async function installForServe(c: Cluster): Promise<void> {
  await installCrds(c);
  await installManifestRbac(c);
  await c.routeMetricsApisToAdapter();
}

/** `ehpa-adapter serve` (adapter + leader-elected controllers) on cluster.adapterPort, as its own process. */
export async function startServe(c: Cluster, name: string, extra: string[] = []): Promise<AdapterProcess> {
  const p = await c.startAdapterProcess({
    name,
    args: [
      `--secure-port=${c.adapterPort}`,
      '--bind-address=127.0.0.1',
      `--cert-dir=${join(c.dir, 'adapter-certs')}`,
      `--prometheus-url=${c.promUrl}`,
      '--leader-election-namespace=ehpa-system',
      `--leader-election-identity=${name}`,
      '--leader-election-lease-duration=4s',
      '--leader-election-renew-deadline=3s',
      '--leader-election-retry-period=1s',
      '--prediction-update-frequency=5s',
      '--log-level=debug',
      // The scenarios test how a forecast is served; whether it pays on their two days of history is
      // prediction-pays.test.ts's question, which passes --prediction-pays=enforce (the default) itself.
      '--prediction-pays=observe',
      ...extra,
    ],
  });
  await c.waitMetricsApisAvailable(120_000);
  return p;
}

export function ehpaObject(ns: string, name: string, target: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'autoscaling.crane.io/v1alpha1',
    kind: 'EffectiveHorizontalPodAutoscaler',
    metadata: { name, namespace: ns },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target }, ...spec },
  };
}

/** A daily UTC cron expression firing at the minute of `ms` (seconds dropped). */
export function dailyCronAt(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
}

/**
 * A cron window active now: it started at the current UTC minute and ends `minutes` whole minutes later.
 * Returns the crons entry and the end instant.
 */
export function cronWindowNow(name: string, minutes: number, targetReplicas: number, nowMs = Date.now()) {
  const startMs = nowMs - (nowMs % 60_000);
  const endMs = startMs + minutes * 60_000;
  return { cron: { name, timezone: 'UTC', start: dailyCronAt(startMs), end: dailyCronAt(endMs), targetReplicas }, startMs, endMs };
}

export async function post(c: Cluster, path: string, body: unknown): Promise<Obj> {
  const r = await c.admin.request('POST', path, { body });
  expect(r.status, r.body).to.equal(201);
  return r.json as Obj;
}

export async function mergePatch(c: Cluster, path: string, body: unknown): Promise<Obj> {
  const r = await c.admin.request('PATCH', path, { body, contentType: 'application/merge-patch+json' });
  expect(r.status, r.body).to.equal(200);
  return r.json as Obj;
}

export const exists = async (c: Cluster, path: string) => (await c.admin.get(path)).status === 200;

export function condition(o: Obj | undefined, type: string): Condition | undefined {
  return o?.status?.conditions?.find((x) => x.type === type);
}

/** Wait for `path` to exist and satisfy `pred`; returns the object. */
export async function waitObj(c: Cluster, path: string, what: string, pred: (o: Obj) => boolean, timeoutMs = 120_000): Promise<Obj> {
  let last: Obj | undefined;
  await waitFor(what, async () => {
    const r = await c.admin.get(path);
    if (r.status !== 200) return false;
    last = r.json as Obj;
    return pred(last);
  }, { timeoutMs }).catch((e: Error) => {
    throw new Error(`${e.message}; last: ${JSON.stringify(last?.status ?? null)}`);
  });
  return last!;
}

/** External metric value (milli-units) as served through the aggregator to `client`. */
export function externalItems(body: unknown): { metricName: string; value: string; metricLabels?: Record<string, string> }[] {
  return (body as { items: { metricName: string; value: string; metricLabels?: Record<string, string> }[] }).items;
}

/** Quantity string (as the metrics APIs write it) to milli-units; throws on anything else. */
export function quantityMilli(q: string): number {
  const milli = parseMilli(q);
  if (milli === undefined) throw new Error(`unexpected quantity ${q}`);
  return milli;
}

export const cronSelector = (ns: string, target: string) =>
  encodeURIComponent(`resourceIdentifier=cron,targetKind=Deployment,targetName=${target},targetNamespace=${ns}`);
