// May this user do this? (docs/metrics-api.md §5.4). system:masters and the health paths are
// always allowed (in the request pipeline); everything else asks an Authorizer. The production Authorizer
// posts SubjectAccessReviews over the process's kept-alive API connections (kube/api-client.ts) and caches
// answers for a short TTL, keyed by the review's spec, so the HPA's steady polling costs one review per
// metric per TTL.
import type { V1SubjectAccessReview } from '@kubernetes/client-node';
import { resourcePath } from '../kube/api-client.ts';
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

/**
 * Wraps an Authorizer with a bounded cache of answers (allowed and denied alike, as k8s.io/apiserver v0.34
 * plugin/pkg/authorizer/webhook caches both) keyed by the review's spec:
 * - an LRU of at most `maxEntries` (default 10 000): a hit moves the entry to the young end, a full cache
 *   evicts the oldest, so a flood of distinct users or paths pushes out only the coldest answers instead of
 *   emptying the whole cache (which turned every steady HPA poll into a review again);
 * - entries live `ttlMs` from when the answer arrived;
 * - single flight: concurrent identical questions share one SubjectAccessReview in flight. Failures are not
 *   cached; every waiter of a failed review gets the failure.
 */
export class CachingAuthorizer implements Authorizer {
  // A Map iterates in insertion order: re-inserting on a hit makes the first key the least recently used.
  private readonly cache = new Map<string, { decision: Decision; expires: number }>();
  private readonly inFlight = new Map<string, Promise<Decision>>();
  private readonly maxEntries: number;

  constructor(
    private readonly inner: Authorizer,
    private readonly opts: { ttlMs: number; now: () => number; maxEntries?: number; metrics?: AdapterMetrics },
  ) {
    this.maxEntries = Math.max(1, opts.maxEntries ?? 10_000);
  }

  get size(): number {
    return this.cache.size;
  }

  /** Cached keys, least recently used first (for tests and debugging). */
  keys(): string[] {
    return [...this.cache.keys()];
  }

  authorize(user: UserInfo, attrs: AuthzAttributes): Promise<Decision> {
    const key = JSON.stringify(sarSpec(user, attrs));
    const now = this.opts.now();
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      if (hit.expires > now) {
        this.cache.set(key, hit);
        this.opts.metrics?.authzCache.inc({ result: 'hit' });
        return Promise.resolve(hit.decision);
      }
    }
    const pending = this.inFlight.get(key);
    if (pending) {
      this.opts.metrics?.authzCache.inc({ result: 'shared' });
      return pending;
    }
    this.opts.metrics?.authzCache.inc({ result: 'miss' });
    const review = this.inner.authorize(user, attrs).then(
      (decision) => {
        this.inFlight.delete(key);
        this.store(key, decision);
        return decision;
      },
      (err: unknown) => {
        this.inFlight.delete(key);
        throw err;
      },
    );
    this.inFlight.set(key, review);
    return review;
  }

  private store(key: string, decision: Decision): void {
    if (this.opts.ttlMs <= 0) return;
    this.cache.delete(key);
    while (this.cache.size >= this.maxEntries) {
      const oldest = this.cache.keys().next().value as string;
      this.cache.delete(oldest);
    }
    this.cache.set(key, { decision, expires: this.opts.now() + this.opts.ttlMs });
  }
}

/** What posting a review needs of the API client (KubeApiClient; a recording fake in unit tests). */
export interface ReviewPoster {
  create<T>(path: string, body: unknown): Promise<T>;
}

export const SUBJECT_ACCESS_REVIEWS_PATH = resourcePath('authorization.k8s.io/v1', 'subjectaccessreviews');

/**
 * Asks kube-apiserver with a SubjectAccessReview. Through a client that keeps its connections: client-node's
 * generated API opens a new TLS connection for every call (a fresh agent each time), which at 10,000 HPAs
 * (one review per namespace and metric per cache TTL) was a handshake per review on both ends.
 */
export class SubjectAccessReviewAuthorizer implements Authorizer {
  constructor(private readonly api: ReviewPoster) {}

  async authorize(user: UserInfo, attrs: AuthzAttributes): Promise<Decision> {
    const review = await this.api.create<V1SubjectAccessReview>(SUBJECT_ACCESS_REVIEWS_PATH, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: sarSpec(user, attrs),
    });
    const status = review.status;
    return { allowed: status?.allowed === true && status.denied !== true, ...(status?.reason ? { reason: status.reason } : {}) };
  }
}
