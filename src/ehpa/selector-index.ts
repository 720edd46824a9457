// Which EHPAs a pod event concerns: each EHPA whose conversion needs pod requests remembers its target's pod
// selector, and a pod's add, update or delete requeues the EHPAs whose selector matches it. Kept per
// namespace, since a selector only ever matches pods of its own: a pod event costs the selectors of one
// namespace (10 in the scale bench) instead of every EHPA's. With one flat map, 10,000 EHPAs made each pod
// event 10,000 checks and the relist of 100,000 pods after a dropped watch blocked the event loop for
// seconds at a time (found by a CPU profile of serve under pod churn in the scale bench).

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

export class PodSelectorIndex {
  private readonly byNamespace = new Map<string, Map<string, LabelMatcher>>();
  /** key → its namespace, so a key moves or goes without scanning. */
  private readonly namespaceOf = new Map<string, string>();

  /** Remembers (or replaces) the selector of EHPA `key` ("namespace/name") in `namespace`. */
  set(key: string, namespace: string, matches: LabelMatcher): void {
    const previous = this.namespaceOf.get(key);
    if (previous !== undefined && previous !== namespace) this.delete(key);
    let m = this.byNamespace.get(namespace);
    if (!m) this.byNamespace.set(namespace, (m = new Map()));
    m.set(key, matches);
    this.namespaceOf.set(key, namespace);
  }

  delete(key: string): void {
    const namespace = this.namespaceOf.get(key);
    if (namespace === undefined) return;
    this.namespaceOf.delete(key);
    const m = this.byNamespace.get(namespace);
    m?.delete(key);
    if (m && m.size === 0) this.byNamespace.delete(namespace);
  }

  /** Keys of the EHPAs in `namespace` whose selector matches `labels`. */
  keysFor(namespace: string | undefined, labels: Record<string, string> | undefined): string[] {
    const out: string[] = [];
    for (const [key, matches] of this.byNamespace.get(namespace ?? '') ?? []) if (matches(labels)) out.push(key);
    return out;
  }

  get size(): number {
    return this.namespaceOf.size;
  }
}
