// The cron external metric (docs/crane-behaviour.md §C.4, §C.5; semantics from §C.5.2 and Crane's EHPA tutorial,
// see src/metric-values/cron-replicas.ts). Served under every name Crane has used:
//   - `crane_cron_<ehpaName>` (v0.6–v0.7), EHPA looked up by name in the request namespace;
//   - `<ehpaName>` (v0.4–v0.5), only when the selector pins that EHPA's uid, so we never shadow someone
//     else's metric of the same name;
//   - `crane_autoscaling_cron` (v0.8+), EHPA found from the targetKind/targetName/targetNamespace selector.
// One semantics for all names, so switching an EHPA between Crane versions never changes its replicas; which
// one (Crane v0.7's or HEAD's) is chosen by --cron-semantics. An EHPA whose crons cannot be evaluated gets
// 422 Invalid naming the EHPA and each bad field: a fault of the object, not of the adapter or the request.
import { EHPA_UID_LABEL, type EffectiveHorizontalPodAutoscaler } from '../../api/ehpa.ts';
import { cronWindowActive, cronWindowProblems, CronWindowError } from '../../cron/cron-window.ts';
import { cronNeedsCurrentReplicas, cronReplicas, type CronSemantics } from '../../metric-values/cron-replicas.ts';
import { BOUNDS } from '../../api/bounds.ts';
import { cronLengthProblems } from '../../ehpa/validation.ts';
import { badRequest, invalidObject, notFound, unavailable, type InvalidField } from '../status.ts';
import type { LabelSelector } from '../../selectors/label-selector.ts';
import type { ExternalMetricProvider, ExternalQuery, ExternalValue } from './provider.ts';
import type { AdapterSources } from './sources.ts';

export const CRON_METRIC_HEAD = 'crane_autoscaling_cron';
export const CRON_METRIC_PREFIX = 'crane_cron_';

export interface CronProviderOptions {
  sources: AdapterSources;
  /** IANA zone that `timezone: Local` means (the process zone, resolved at the edge). */
  localZone: string;
  /** Crane generation whose cron rules apply (default 'v0.7'): the no-active-cron value and the unset zone. */
  semantics?: CronSemantics;
}

/** What cronValueFor reads: only the scale subresource (for 'v0.7' cron-only EHPAs with no cron active). */
export type CronValueOptions = Omit<CronProviderOptions, 'sources'> & { sources: Pick<AdapterSources, 'getScaleReplicas'> };

/** Replica count the cron metric reports for one EHPA at `nowMs`. Errors (422) name the EHPA and each bad field. */
export async function cronValueFor(ehpa: EffectiveHorizontalPodAutoscaler, nowMs: number, opts: CronValueOptions): Promise<number> {
  const semantics = opts.semantics ?? 'v0.7';
  const unset = semantics === 'head' ? 'Local' : 'UTC';
  const object = { group: 'autoscaling.crane.io', kind: 'EffectiveHorizontalPodAutoscaler', namespace: ehpa.metadata.namespace, name: ehpa.metadata.name };
  const activeTargets: number[] = [];
  const invalid: InvalidField[] = [];
  const crons = ehpa.spec.crons ?? [];
  // An object stored before the CRD bound: refuse it without evaluating a single cron, so its cost per
  // request stays bounded (the controller reports the same bound as a condition).
  if (crons.length > BOUNDS.crons) throw invalidObject(object, [{ field: 'spec.crons', message: `${crons.length} items, more than ${BOUNDS.crons}` }]);
  for (const [i, cron] of crons.entries()) {
    const tooLong = cronLengthProblems(cron);
    if (tooLong.length) {
      for (const m of tooLong) invalid.push({ field: `spec.crons[${i}]`, message: m });
      continue;
    }
    try {
      if (cronWindowActive(cron, nowMs, opts.localZone, unset)) activeTargets.push(cron.targetReplicas ?? 0);
    } catch (e) {
      if (!(e instanceof CronWindowError)) throw e;
      const problems = cronWindowProblems(cron, opts.localZone, unset);
      if (problems.length === 0) invalid.push({ field: `spec.crons[${i}]`, message: e.message });
      for (const p of problems) invalid.push({ field: `spec.crons[${i}].${p.field}`, message: p.message });
    }
  }
  if (invalid.length) throw invalidObject(object, invalid);
  const hasOtherMetrics = (ehpa.spec.metrics?.length ?? 0) > 0;
  const current = cronNeedsCurrentReplicas(activeTargets.length, hasOtherMetrics, semantics)
    ? await opts.sources.getScaleReplicas(ehpa.metadata.namespace, ehpa.spec.scaleTargetRef)
    : undefined;
  const r = cronReplicas({
    activeTargets,
    hasOtherMetrics,
    minReplicas: ehpa.spec.minReplicas ?? 1,
    ...(current === undefined ? {} : { currentReplicas: current }),
    semantics,
  });
  if (!r.ok) throw unavailable(`EffectiveHorizontalPodAutoscaler ${ehpa.metadata.namespace}/${ehpa.metadata.name}: ${r.message}`);
  return r.replicas;
}

const TARGET_KEYS = ['targetKind', 'targetName', 'targetNamespace'] as const;

/**
 * The EHPA a `crane_autoscaling_cron` request means. Only the namespace of the request path counts: that is
 * what the caller was authorized for, so a selector naming another namespace answers nothing (Crane's
 * HPAs always name their own namespace; a request naming another one is reading someone else's replicas).
 */
async function findHeadEhpa(sources: AdapterSources, pathNamespace: string, selector: LabelSelector): Promise<EffectiveHorizontalPodAutoscaler> {
  const want = TARGET_KEYS.map((k) => selector.exactValue(k));
  const missing = TARGET_KEYS.filter((_, i) => want[i] === undefined);
  if (missing.length) throw badRequest(`metric ${CRON_METRIC_HEAD} needs labelSelector with ${missing.map((k) => `${k}=…`).join(', ')}`);
  const [kind, name, namespace] = want as [string, string, string];
  if (namespace !== pathNamespace) {
    throw notFound(`no EffectiveHorizontalPodAutoscaler with crons targets ${kind} ${namespace}/${name} in namespace ${pathNamespace}`);
  }
  const matches = (await sources.listEhpas(pathNamespace)).filter(
    (e) => (e.spec.crons?.length ?? 0) > 0 && e.spec.scaleTargetRef.kind === kind && e.spec.scaleTargetRef.name === name && e.metadata.namespace === namespace,
  );
  // Crane takes the last match; so do we.
  const ehpa = matches[matches.length - 1];
  if (!ehpa) throw notFound(`no EffectiveHorizontalPodAutoscaler with crons targets ${kind} ${namespace}/${name}`);
  return ehpa;
}

async function legacyEhpa(sources: AdapterSources, namespace: string, metric: string, selector: LabelSelector): Promise<EffectiveHorizontalPodAutoscaler | undefined> {
  if (metric.startsWith(CRON_METRIC_PREFIX)) {
    const ehpa = await sources.getEhpa(namespace, metric.slice(CRON_METRIC_PREFIX.length));
    const uid = selector.exactValue(EHPA_UID_LABEL);
    if (ehpa && uid !== undefined && ehpa.metadata.uid !== uid) return undefined;
    return ehpa;
  }
  const uid = selector.exactValue(EHPA_UID_LABEL);
  if (uid === undefined) return undefined;
  const ehpa = await sources.getEhpa(namespace, metric);
  return ehpa && ehpa.metadata.uid === uid && (ehpa.spec.crons?.length ?? 0) > 0 ? ehpa : undefined;
}

export function cronProvider(opts: CronProviderOptions): ExternalMetricProvider {
  const { sources } = opts;
  return {
    listed: () => [CRON_METRIC_HEAD],
    async owns(namespace, metric, selector) {
      if (metric === CRON_METRIC_HEAD || metric.startsWith(CRON_METRIC_PREFIX)) return true;
      return (await legacyEhpa(sources, namespace, metric, selector)) !== undefined;
    },
    async values(q: ExternalQuery): Promise<ExternalValue[]> {
      let ehpa: EffectiveHorizontalPodAutoscaler | undefined;
      if (q.metric === CRON_METRIC_HEAD) ehpa = await findHeadEhpa(sources, q.namespace, q.selector);
      else {
        ehpa = await legacyEhpa(sources, q.namespace, q.metric, q.selector);
        if (!ehpa) throw notFound(`the server could not find the external metric ${q.metric}: no matching EffectiveHorizontalPodAutoscaler in namespace ${q.namespace}`);
        if ((ehpa.spec.crons?.length ?? 0) === 0) throw notFound(`EffectiveHorizontalPodAutoscaler ${q.namespace}/${ehpa.metadata.name} has no crons`);
      }
      const replicas = await cronValueFor(ehpa, q.nowMs, opts);
      const labels = q.selector.toLabelSelector()?.matchLabels ?? {};
      return [{ labels, milli: BigInt(replicas) * 1000n }];
    },
  };
}
