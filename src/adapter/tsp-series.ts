// The forecast series craned's exporter publishes for every TimeSeriesPrediction, whatever created it (an
// EHPA, a user's own TSP, a Node TSP): docs/crane-behaviour.md §C.6, gocrane/crane HEAD
// pkg/metrics/metric_collector.go. For each TSP target and each resourceIdentifier its status forecasts:
//   crane_autoscaling_prediction{targetKind, targetName, targetNamespace, resourceIdentifier, algorithm}
//     the value the adapter answers for that selector (forecast-value.ts `predictionAnswer`: the window
//     maximum, not truncated), stamped by the scrape;
//   crane_prediction_tsp{same labels}
//     the first forecast point at or after now, stamped with its own (future) time.
// Pure: the TSPs, the EHPAs' targets and the time come in. Bounded: at most `maxPairs` (target,
// resourceIdentifier) pairs, shared fairly between namespaces, so one tenant's thousands of TSPs cannot
// crowd out another's series nor make the scrape unbounded; the work yields to the event loop every few
// milliseconds so a scrape does not hold up the metrics API answering HPAs.
import type { TimeSeriesPrediction } from '../api/prediction.ts';
import { BOUNDS } from '../api/bounds.ts';
import { predictionAnswer, STEPPED_ASIDE_VALUE, stepsAside } from '../metric-values/forecast-value.ts';
import { nextForecastPoint, readyPredictionSeries } from '../metric-values/forecast-window.ts';
import { resourceAliases, type PredictionTarget } from '../metric-values/tsp-lookup.ts';
import { TimeSlice } from '../kube/event-loop-turns.ts';

/** Crane's label set for both series, in its order. */
export interface TspSeriesLabels {
  targetKind: string;
  targetName: string;
  targetNamespace: string;
  resourceIdentifier: string;
  algorithm: string;
  [k: string]: string;
}

export interface TspSeries {
  labels: TspSeriesLabels;
  /** crane_autoscaling_prediction's value; absent when the adapter would refuse the selector (not ready, outdated). */
  prediction?: number;
  /** crane_prediction_tsp's point; absent when the series has no ready point at or after now. */
  next?: { value: number; timestampMs: number };
}

export interface TspSeriesOptions {
  /** Most (target, resourceIdentifier) pairs exported, over all namespaces. */
  maxPairs: number;
  /** `namespace/kind/name` of every EHPA target: within a namespace, these come first under the bound. */
  ehpaTargets?: ReadonlySet<string>;
  /** Longest stretch of work, in ms, between two yields to the event loop (default 5). */
  sliceMs?: number;
}

/** Most pairs by default: 10,000 targets' two series is 20,000 samples, a few MB of text per scrape. */
export const DEFAULT_MAX_PAIRS = 10_000;

/** Kinds whose objects have no namespace: Crane's label is then empty (the TSP's targetRef has none). */
const CLUSTER_SCOPED_KINDS = new Set(['Node']);

export function targetKey(namespace: string, kind: string, name: string): string {
  return `${namespace}/${kind}/${name}`;
}

/**
 * The workload a TSP's series are labelled with, and the lookup target that finds it among its namespace's
 * TSPs; none for a targetRef naming another namespace (no such TSP is ever forecast, §security: a prediction
 * reads its own namespace only, and its series must not name another namespace's workload).
 */
function exportedTarget(t: TimeSeriesPrediction): { lookup: PredictionTarget; labelNamespace: string } | undefined {
  const ns = t.metadata.namespace ?? '';
  const ref = t.spec?.targetRef;
  if (!ref?.kind || !ref.name) return undefined;
  if (ref.namespace && ref.namespace !== ns) return undefined;
  // Crane labels targetNamespace with targetRef.namespace as written; a user's TSP often leaves it out, and
  // the TSP's own namespace is the only one it can mean. A node has none, as in Crane.
  const labelNamespace = CLUSTER_SCOPED_KINDS.has(ref.kind) ? '' : ns;
  return { lookup: { kind: ref.kind, name: ref.name, namespace: ns }, labelNamespace };
}

interface Pair {
  namespace: string;
  priority: number;
  tspName: string;
  target: PredictionTarget;
  labelNamespace: string;
  rid: string;
  /** The namespace's TSPs that target `target` and forecast `rid` itself, in list order. */
  forecasting: TimeSeriesPrediction[];
}

/**
 * How many pairs each namespace keeps: every namespace gets the same share, a namespace that needs less
 * gives the rest back (water filling), and what cannot be split evenly goes to namespaces in name order.
 */
export function fairShares(counts: ReadonlyMap<string, number>, max: number): Map<string, number> {
  const out = new Map<string, number>();
  let left = Math.max(0, Math.floor(max));
  let open = [...counts.keys()].sort();
  for (const ns of open) out.set(ns, 0);
  while (left > 0 && open.length > 0) {
    const share = Math.max(1, Math.floor(left / open.length));
    const next: string[] = [];
    for (const ns of open) {
      if (left === 0) break;
      const want = (counts.get(ns) ?? 0) - (out.get(ns) ?? 0);
      const give = Math.min(want, share, left);
      out.set(ns, (out.get(ns) ?? 0) + give);
      left -= give;
      if (want > give) next.push(ns);
    }
    open = next;
  }
  return out;
}

/** Both series for every TSP's target and forecast identifier, and how many pairs the bound left out. */
export async function tspSeries(tsps: readonly TimeSeriesPrediction[], nowMs: number, opts: TspSeriesOptions): Promise<{ series: TspSeries[]; leftOut: number }> {
  // An HPA's request to the metrics API waits at most one slice behind a scrape, however many TSPs there are.
  const slice = new TimeSlice(opts.sliceMs ?? 5);
  // 1. Pairs, per namespace, without reading any forecast point (cheap: a few identifiers per TSP).
  const byTarget = new Map<string, Map<string, TimeSeriesPrediction[]>>();
  const pairs = new Map<string, Pair>();
  for (let i = 0; i < tsps.length; i++) {
    if (i % 64 === 0) await slice.pause();
    const t = tsps[i] as TimeSeriesPrediction;
    const ns = t.metadata.namespace ?? '';
    const et = exportedTarget(t);
    // The adapter's lookup (tspForTarget) also counts a TSP labelled for a target: group by both, so the TSP
    // answering a pair here is the one the adapter picks for the same selector.
    const l = t.metadata.labels ?? {};
    const keys = new Set<string>();
    if (et) keys.add(targetKey(ns, et.lookup.kind, et.lookup.name));
    const lk = l['app.kubernetes.io/target-kind'];
    const ln = l['app.kubernetes.io/target-name'];
    if (lk && ln && l['app.kubernetes.io/target-namespace'] === ns) keys.add(targetKey(ns, lk, ln));
    const rids = (t.status?.predictionMetrics ?? []).slice(0, BOUNDS.predictionMetrics).map((m) => m.resourceIdentifier);
    for (const key of keys) {
      let byRid = byTarget.get(key);
      if (!byRid) byTarget.set(key, (byRid = new Map()));
      for (const rid of rids) {
        const list = byRid.get(rid);
        if (list) list.push(t);
        else byRid.set(rid, [t]);
      }
    }
    if (!et) continue;
    const key = targetKey(ns, et.lookup.kind, et.lookup.name);
    for (const rid of rids) {
      const pk = `${key}/${rid}`;
      if (pairs.has(pk)) continue;
      const pair: Pair = {
        namespace: ns,
        priority: opts.ehpaTargets?.has(key) ? 0 : 1,
        tspName: t.metadata.name ?? '',
        target: et.lookup,
        labelNamespace: et.labelNamespace,
        rid,
        forecasting: byTarget.get(key)?.get(rid) ?? [],
      };
      pairs.set(pk, pair);
    }
  }
  // 2. The bound: a fair share per namespace; within one, EHPA targets first, then by TSP name, so the same
  //    pairs stay in from one scrape to the next.
  const perNs = new Map<string, Pair[]>();
  for (const p of pairs.values()) {
    const list = perNs.get(p.namespace);
    if (list) list.push(p);
    else perNs.set(p.namespace, [p]);
  }
  const shares = fairShares(new Map([...perNs].map(([ns, l]) => [ns, l.length])), opts.maxPairs);
  const kept: Pair[] = [];
  for (const [ns, list] of [...perNs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    list.sort((a, b) => a.priority - b.priority || (a.tspName < b.tspName ? -1 : a.tspName > b.tspName ? 1 : 0) || (a.rid < b.rid ? -1 : a.rid > b.rid ? 1 : 0));
    kept.push(...list.slice(0, shares.get(ns) ?? 0));
  }
  // 3. Values, from the one function that decides what is served. Every TSP that forecasts `rid` for the
  //    target is in `forecasting`, in the namespace's order, and at least one does (the pair came from its
  //    status), so tspForTarget picks from it what it would pick from the whole namespace.
  const out = new Map<string, TspSeries>();
  for (let i = 0; i < kept.length; i++) {
    if (i % 16 === 0) await slice.pause();
    const p = kept[i] as Pair;
    const a = predictionAnswer(p.forecasting, p.target, p.rid, nowMs);
    if (!a.ok && a.status === 404) continue;
    const tsp = a.tsp;
    const algorithm = tsp.spec?.predictionMetrics?.find((m) => m.resourceIdentifier === p.rid)?.algorithm?.algorithmType ?? '';
    const labels: TspSeriesLabels = {
      targetKind: p.target.kind,
      targetName: p.target.name,
      targetNamespace: p.labelNamespace,
      resourceIdentifier: p.rid,
      algorithm,
    };
    const key = JSON.stringify(labels);
    // Two namespaces may forecast one node: the first namespace in name order keeps the label set.
    if (out.has(key)) continue;
    const s: TspSeries = { labels };
    // A forecast that stepped aside is exported as the adapter serves it (0: the HPA scales on its other
    // metrics); a missing series would instead stop the HPA's scale-downs (one metric unavailable).
    if (a.ok) s.prediction = Number(a.milli) / 1000;
    else if (stepsAside(a.reason)) s.prediction = STEPPED_ASIDE_VALUE;
    // The model's next point comes from the same TSP's ready series (under the identifier or its alias),
    // stepped aside or not: it is what the model says, not what the HPA is served.
    for (const id of resourceAliases(p.rid)) {
      const r = readyPredictionSeries(tsp, id);
      if (!r.ok) continue;
      const next = nextForecastPoint(r.metric, nowMs);
      if (next) s.next = next;
      break;
    }
    if (s.prediction !== undefined || s.next) out.set(key, s);
  }
  return { series: [...out.values()], leftOut: pairs.size - kept.length };
}
