// VPA status conditions the recommender maintains (upstream model/vpa.go UpdateConditions).
import type { Instant } from '../../gomath/go-time.ts';

export type VpaConditionType = 'RecommendationProvided' | 'NoPodsMatched' | 'ConfigUnsupported' | 'ConfigDeprecated' | 'LowConfidence' | 'FetchingHistory';

export interface VpaCondition {
  type: VpaConditionType;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime: Instant;
}

/** Conditions keyed by type; `set` keeps lastTransitionTime when the status does not change. */
export class VpaConditions {
  private readonly byType = new Map<VpaConditionType, VpaCondition>();

  set(type: VpaConditionType, status: boolean, reason: string, message: string, now: Instant): void {
    const old = this.byType.get(type);
    const s = status ? 'True' : 'False';
    const lastTransitionTime = old && old.status === s ? old.lastTransitionTime : now;
    this.byType.set(type, { type, status: s, reason, message, lastTransitionTime });
  }

  delete(type: VpaConditionType): void {
    this.byType.delete(type);
  }

  get(type: VpaConditionType): VpaCondition | undefined {
    return this.byType.get(type);
  }

  /** Sorted by type, as upstream writes them into the status. */
  asList(): VpaCondition[] {
    return [...this.byType.values()].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  }

  /**
   * UpdateConditions: NoPodsMatched is set (True) when no pods match and deleted otherwise;
   * RecommendationProvided is True when there is a recommendation, else False (with the NoPodsMatched
   * reason and message when that is why).
   */
  update(podsMatched: boolean, hasRecommendation: boolean, now: Instant): void {
    let reason = '';
    let msg = '';
    if (podsMatched) this.delete('NoPodsMatched');
    else {
      reason = 'NoPodsMatched';
      msg = 'No pods match this VPA object';
      this.set('NoPodsMatched', true, reason, msg, now);
    }
    if (hasRecommendation) this.set('RecommendationProvided', true, '', '', now);
    else this.set('RecommendationProvided', false, reason, msg, now);
  }
}
