// May this user do this? (docs/metrics-api.md §5.4). system:masters and the health paths are
// always allowed (in the request pipeline); everything else asks an Authorizer. The production Authorizer
// posts SubjectAccessReviews through @kubernetes/client-node and caches answers for a short TTL, keyed by
// the review's spec, so the HPA's steady polling costs one review per metric per TTL.
import type { AuthorizationV1Api, V1SubjectAccessReview } from '@kubernetes/client-node';
import type { UserInfo } from './authn.ts';
import type { NonResourceAttributes, ResourceAttributes } from './request-info.ts';
import type { AdapterMetrics } from './adapter-metrics.ts';

export interface AuthzAttributes {
  resource?: ResourceAttributes;
  nonResource?: NonResourceAttributes;
}

export interface Decision {
  allowed: boolean;
  reason?: string;
}

export interface Authorizer {
  /** Resolves to a decision; rejects when no decision could be had (the caller answers 500). */
  authorize(user: UserInfo, attrs: AuthzAttributes): Promise<Decision>;
}

export function sarSpec(user: UserInfo, attrs: AuthzAttributes): V1SubjectAccessReview['spec'] {
  return {
    user: user.name,
    ...(user.uid ? { uid: user.uid } : {}),
    groups: user.groups,
    ...(Object.keys(user.extra).length ? { extra: user.extra } : {}),
    ...(attrs.resource ? { resourceAttributes: attrs.resource } : {}),
    ...(attrs.nonResource ? { nonResourceAttributes: attrs.nonResource } : {}),
  };
}

/** Wraps an Authorizer with a TTL cache (both allowed and denied answers, as the reference's webhook). */
export class CachingAuthorizer implements Authorizer {
  private readonly cache = new Map<string, { decision: Decision; expires: number }>();
  constructor(
    private readonly inner: Authorizer,
    private readonly opts: { ttlMs: number; now: () => number; maxEntries?: number; metrics?: AdapterMetrics },
  ) {}

  async authorize(user: UserInfo, attrs: AuthzAttributes): Promise<Decision> {
    const key = JSON.stringify(sarSpec(user, attrs));
    const now = this.opts.now();
    const hit = this.cache.get(key);
    if (hit && hit.expires > now) {
      this.opts.metrics?.authzCache.inc({ result: 'hit' });
      return hit.decision;
    }
    this.opts.metrics?.authzCache.inc({ result: 'miss' });
    const decision = await this.inner.authorize(user, attrs);
    if (this.cache.size >= (this.opts.maxEntries ?? 10_000)) {
      for (const [k, v] of this.cache) if (v.expires <= now) this.cache.delete(k);
      if (this.cache.size >= (this.opts.maxEntries ?? 10_000)) this.cache.clear();
    }
    this.cache.set(key, { decision, expires: now + this.opts.ttlMs });
    return decision;
  }
}

/** Asks kube-apiserver with a SubjectAccessReview. */
export class SubjectAccessReviewAuthorizer implements Authorizer {
  constructor(private readonly api: AuthorizationV1Api) {}

  async authorize(user: UserInfo, attrs: AuthzAttributes): Promise<Decision> {
    const review = await this.api.createSubjectAccessReview({
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: sarSpec(user, attrs) as V1SubjectAccessReview['spec'] },
    });
    const status = review.status;
    return { allowed: status?.allowed === true && status.denied !== true, ...(status?.reason ? { reason: status.reason } : {}) };
  }
}
