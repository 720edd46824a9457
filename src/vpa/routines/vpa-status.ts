// The status the recommender wants on a VPA (upstream routines/recommender.go UpdateVPAs +
// model/vpa.go UpdateConditions), computed from the observed status so condition transition times
// survive restarts, and compared semantically so an unchanged status is never written. Pure.
// One condition is ours, not upstream's: FetchingHistory=False (reason HistoryUnavailable) on a VPA whose
// start-up Prometheus history could not be loaded (e.g. Prometheus refused the credentials), so the cause
// is on the object and not only in the log (upstream defines FetchingHistory but never sets it).
import { semanticEqual } from '../../kube/semantic-equal.ts';
import { redactUrl } from '../../prometheus/client.ts';
import { formatInstantSeconds, type Instant } from '../../gomath/go-time.ts';
import { recommendationToJSON, type ContainerRecommendation, type ContainerRecommendationJSON } from '../logic/resource-list.ts';
import { SPLIT_CONDITION, SPLIT_REASON, splitMessage } from './resource-split.ts';

export interface VpaConditionJSON {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface VpaStatusJSON {
  recommendation?: { containerRecommendations?: ContainerRecommendationJSON[] };
  conditions?: VpaConditionJSON[];
  [other: string]: unknown;
}

export interface StatusInputs {
  /** The post-processed recommendation (empty when there is none). */
  recommendation: readonly ContainerRecommendation[];
  podsMatched: boolean;
  /** Set when the target cannot be resolved or is not a topmost controller: the ConfigUnsupported message. */
  configUnsupported?: string;
  /** Set while an EHPA scales the same target on CPU. */
  splitWithEhpa?: string;
  /** Set when this VPA should have had start-up history and did not: the condition message
   *  (historyUnavailableMessage). */
  historyUnavailable?: string;
  now: Instant;
}

const NO_PODS = 'No pods match this VPA object';

export const FETCHING_HISTORY_CONDITION = 'FetchingHistory';
export const HISTORY_UNAVAILABLE_REASON = 'HistoryUnavailable';
/** Characters of the cause kept in the message (an Event message may have at most 1024). */
const MAX_CAUSE_CHARS = 600;

/**
 * The FetchingHistory message and Warning event text for a failed start-up history load. The cause is a
 * PrometheusError text, which never carries a credential; URL credentials are stripped again here all the
 * same, and the cause is cut to a length an Event accepts.
 */
export function historyUnavailableMessage(cause: string): string {
  let c = redactUrl(cause);
  if (c.length > MAX_CAUSE_CHARS) c = `${c.slice(0, MAX_CAUSE_CHARS)}…`;
  return `Prometheus history could not be loaded when this recommender started: ${c}. Recommending from live usage only; the history is read again at the next start or change of leader`;
}

/** Conditions by type, starting from the observed ones; `set` keeps the transition time of an unchanged status. */
class Conditions {
  private readonly byType = new Map<string, VpaConditionJSON>();
  constructor(
    observed: readonly VpaConditionJSON[] | undefined,
    private readonly now: string,
  ) {
    for (const c of observed ?? []) if (c && typeof c.type === 'string') this.byType.set(c.type, c);
  }

  set(type: string, status: boolean, reason: string, message: string): void {
    const s = status ? 'True' : 'False';
    const old = this.byType.get(type);
    const c: VpaConditionJSON = { type, status: s, lastTransitionTime: old && old.status === s && old.lastTransitionTime ? old.lastTransitionTime : this.now };
    // Go's omitempty: empty reason/message are left out.
    if (reason) c.reason = reason;
    if (message) c.message = message;
    this.byType.set(type, c);
  }

  delete(type: string): void {
    this.byType.delete(type);
  }

  get(type: string): VpaConditionJSON | undefined {
    return this.byType.get(type);
  }

  list(): VpaConditionJSON[] {
    return [...this.byType.values()].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  }
}

export function desiredVpaStatus(observed: VpaStatusJSON | undefined, inp: StatusInputs): VpaStatusJSON {
  const conds = new Conditions(observed?.conditions, formatInstantSeconds(inp.now));
  if (inp.configUnsupported) conds.set('ConfigUnsupported', true, '', inp.configUnsupported);
  else conds.delete('ConfigUnsupported');
  conds.delete('ConfigDeprecated');
  if (inp.podsMatched) conds.delete('NoPodsMatched');
  else conds.set('NoPodsMatched', true, 'NoPodsMatched', NO_PODS);
  if (inp.recommendation.length > 0) conds.set('RecommendationProvided', true, '', '');
  else if (inp.podsMatched) conds.set('RecommendationProvided', false, '', '');
  else conds.set('RecommendationProvided', false, 'NoPodsMatched', NO_PODS);
  if (inp.splitWithEhpa) conds.set(SPLIT_CONDITION, true, SPLIT_REASON, splitMessage(inp.splitWithEhpa));
  else conds.delete(SPLIT_CONDITION);
  // Ours only: another writer's FetchingHistory (upstream's checkpoint writer reads True) is left alone.
  if (inp.historyUnavailable) conds.set(FETCHING_HISTORY_CONDITION, false, HISTORY_UNAVAILABLE_REASON, inp.historyUnavailable);
  else if (conds.get(FETCHING_HISTORY_CONDITION)?.reason === HISTORY_UNAVAILABLE_REASON) conds.delete(FETCHING_HISTORY_CONDITION);
  return { recommendation: recommendationToJSON(inp.recommendation), conditions: conds.list() };
}

/** Whether writing `desired` would change anything (quantities compare by value, like Semantic.DeepEqual). */
export function statusChanged(observed: VpaStatusJSON | undefined, desired: VpaStatusJSON): boolean {
  return !semanticEqual(observed ?? {}, desired);
}

export function hasTrueCondition(status: VpaStatusJSON | undefined, type: string): boolean {
  return !!status?.conditions?.some((c) => c.type === type && c.status === 'True');
}
