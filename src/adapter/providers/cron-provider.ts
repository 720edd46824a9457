// The cron external metric (docs/crane-behaviour.md §C.4, §C.5; semantics from §C.5.2 and Crane's EHPA tutorial,
// see src/metric-values/cron-replicas.ts). Served under every name Crane has used:
//   - `crane_cron_<ehpaName>` (v0.6–v0.7), EHPA looked up by name in the request namespace;
//   - `<ehpaName>` (v0.4–v0.5), only when the selector pins that EHPA's uid, so we never shadow someone
//     else's metric of the same name;
//   - `crane_autoscaling_cron` (v0.8+), EHPA found from the targetKind/targetName/targetNamespace selector.
// One semantics for all names, so switching an EHPA between Crane versions never changes its replicas.
import { EHPA_UID_LABEL, type EffectiveHorizontalPodAutoscaler } from '../../api/ehpa.ts';
import { cronWindowActive, CronWindowError } from '../../cron/cron-window.ts';
import { cronReplicas } from '../../metric-values/cron-replicas.ts';
import { BOUNDS } from '../../api/bounds.ts';
import { cronLengthProblems } from '../../ehpa/validation.ts';
import { badRequest, MetricError, notFound, unavailable } from '../status.ts';
import type { LabelSelector } from '../../selectors/label-selector.ts';
import type { ExternalMetricProvider, ExternalQuery, ExternalValue } from './provider.ts';
import type { AdapterSources } from './sources.ts';

export const CRON_METRIC_HEAD = 'crane_autoscaling_cron';
export const CRON_METRIC_PREFIX = 'crane_cron_';

export interface CronProviderOptions {
  sources: AdapterSources;
  /** IANA zone that `timezone: Local` means (the process zone, resolved at the edge). */
  localZone: string;
}

/** Replica count the cron metric reports for one EHPA at `nowMs`. Errors name the EHPA and the cron. */
export async function cronValueFor(ehpa: EffectiveHorizontalPodAutoscaler, nowMs: number, opts: CronProviderOptions): Promise<number> {
  const id = `EffectiveHorizontalPodAutoscaler ${ehpa.metadata.namespace}/${ehpa.metadata.name}`;
  const activeTargets: number[] = [];
  const errors: string[] = [];
  const crons = ehpa.spec.crons ?? [];
  // An object stored before the CRD bound: refuse it without evaluating a single cron, so its cost per
  // request stays bounded (the controller reports the same bound as a condition).
  if (crons.length > BOUNDS.crons) throw new MetricError(500, `${id}: spec.crons has ${crons.length} items, more than ${BOUNDS.crons}`);
  for (const [i, cron] of crons.entries()) {
    const tooLong = cronLengthProblems(cron);
    if (tooLong.length) {
      errors.push(`cron #${i}: ${tooLong.join(', ')}`);
      continue;
    }
    try {
      if (cronWindowActive(cron, nowMs, opts.localZone)) activeTargets.push(cron.targetReplicas ?? 0);
    } catch (e) {
      if (!(e instanceof CronWindowError)) throw e;
      errors.push(`cron "${cron.name ?? `#${i}`}": ${e.message}`);
    }
  }
  if (errors.length) throw new MetricError(500, `${id}: ${errors.join('; ')}`);
  const needsCurrent = activeTargets.length === 0 && (ehpa.spec.metrics?.length ?? 0) === 0;
  const current = needsCurrent ? await opts.sources.getScaleReplicas(ehpa.metadata.namespace, ehpa.spec.scaleTargetRef) : undefined;
  const r = cronReplicas({
    activeTargets,
    hasOtherMetrics: (ehpa.spec.metrics?.length ?? 0) > 0,
    minReplicas: ehpa.spec.minReplicas ?? 1,
    ...(current === undefined ? {} : { currentReplicas: current }),
  });
  if (!r.ok) throw unavailable(`${id}: ${r.message}`);
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
