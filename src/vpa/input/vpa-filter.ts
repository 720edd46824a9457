// Which VPAs a recommender instance handles (upstream input/cluster_feeder.go filterVPAs).
/** The upstream recommender's name: it also takes VPAs that list no recommender. */
export const DEFAULT_RECOMMENDER_NAME = 'default';
/**
 * The name `serve` recommends under unless told otherwise: a cluster that already runs the upstream
 * recommender keeps it for every VPA, and ours answers only the VPAs whose spec.recommenders name it.
 */
export const OWN_RECOMMENDER_NAME = 'ehpa-adapter';

export interface VpaSelection {
  namespace?: string;
  recommenders?: { name: string }[] | string[];
}

function names(v: VpaSelection): string[] {
  return (v.recommenders ?? []).map((r) => (typeof r === 'string' ? r : r.name));
}

export interface VpaFilterOptions {
  recommenderName: string;
  /** --vpa-object-namespace: when set, only this namespace. */
  vpaObjectNamespace?: string;
  /** --ignored-vpa-object-namespaces. */
  ignoredNamespaces?: readonly string[];
}

/** The default recommender takes VPAs listing no recommender or "default"; others only VPAs naming them. */
export function vpaSelectedByRecommender(vpa: VpaSelection, o: VpaFilterOptions): boolean {
  const list = names(vpa);
  if (o.recommenderName === DEFAULT_RECOMMENDER_NAME) {
    if (list.length > 0 && !list.includes(o.recommenderName)) return false;
  } else if (list.length === 0 || !list.includes(o.recommenderName)) return false;
  const ns = vpa.namespace ?? '';
  if (o.vpaObjectNamespace && ns !== o.vpaObjectNamespace) return false;
  if (o.ignoredNamespaces?.includes(ns)) return false;
  return true;
}
