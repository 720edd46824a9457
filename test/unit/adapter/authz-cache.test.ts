// The SubjectAccessReview cache (L1): LRU order, TTL, and one review for identical concurrent questions.
import { expect } from 'chai';
import { CachingAuthorizer, type Authorizer, type Decision } from '../../../src/adapter/authz.ts';
import type { UserInfo } from '../../../src/adapter/authn.ts';

const attrs = { nonResource: { path: '/apis', verb: 'get' } };
const user = (name: string): UserInfo => ({ name, groups: ['system:authenticated'], extra: {} });

/** An Authorizer whose reviews stay pending until released, counting each one. */
class GatedAuthorizer implements Authorizer {
  calls: string[] = [];
  private gates: (() => void)[] = [];
  fail = false;
  async authorize(u: UserInfo): Promise<Decision> {
    this.calls.push(u.name);
    await new Promise<void>((r) => this.gates.push(r));
    if (this.fail) throw new Error('SAR failed');
    return { allowed: u.name !== 'mallory' };
  }
  releaseAll(): void {
    for (const g of this.gates.splice(0)) g();
  }
}

describe('CachingAuthorizer: LRU, TTL and single flight', () => {
  it('50 concurrent identical questions cost one SubjectAccessReview, and all get its answer', async () => {
    const inner = new GatedAuthorizer();
    const cache = new CachingAuthorizer(inner, { ttlMs: 10_000, now: () => 0 });
    const pending = Array.from({ length: 50 }, () => cache.authorize(user('hpa'), attrs));
    inner.releaseAll();
    const answers = await Promise.all(pending);
    expect(inner.calls).to.deep.equal(['hpa']);
    expect(answers.every((d) => d.allowed)).to.equal(true);
    // And the answer is now cached: no further review.
    await cache.authorize(user('hpa'), attrs);
    expect(inner.calls).to.have.length(1);
  });

  it('a failed review is shared by its waiters but not cached', async () => {
    const inner = new GatedAuthorizer();
    inner.fail = true;
    const cache = new CachingAuthorizer(inner, { ttlMs: 10_000, now: () => 0 });
    const pending = Array.from({ length: 5 }, () => cache.authorize(user('hpa'), attrs).then(() => 'ok', (e: Error) => e.message));
    inner.releaseAll();
    expect(await Promise.all(pending)).to.deep.equal(Array(5).fill('SAR failed'));
    expect(inner.calls).to.have.length(1);
    inner.fail = false;
    const again = cache.authorize(user('hpa'), attrs);
    inner.releaseAll();
    expect((await again).allowed).to.equal(true);
    expect(inner.calls).to.have.length(2);
  });

  it('evicts the least recently used entry when full, not everything', async () => {
    let reviews = 0;
    const inner: Authorizer = { authorize: async () => (reviews++, { allowed: true }) };
    const cache = new CachingAuthorizer(inner, { ttlMs: 60_000, now: () => 0, maxEntries: 3 });
    for (const n of ['a', 'b', 'c']) await cache.authorize(user(n), attrs);
    await cache.authorize(user('a'), attrs); // a becomes the most recently used: order b, c, a
    await cache.authorize(user('d'), attrs); // full: b goes
    const names = cache.keys().map((k) => (JSON.parse(k) as { user: string }).user);
    expect(names).to.deep.equal(['c', 'a', 'd']);
    expect(reviews).to.equal(4);
    await cache.authorize(user('a'), attrs);
    await cache.authorize(user('c'), attrs);
    expect(reviews, 'a and c still cached').to.equal(4);
    await cache.authorize(user('b'), attrs);
    expect(reviews, 'b was evicted').to.equal(5);
    expect(cache.size).to.equal(3);
  });

  it('answers expire after the TTL; a TTL of 0 caches nothing but still shares reviews in flight', async () => {
    let reviews = 0;
    const clock = { t: 0 };
    const inner: Authorizer = { authorize: async () => (reviews++, { allowed: true }) };
    const cache = new CachingAuthorizer(inner, { ttlMs: 1_000, now: () => clock.t });
    await cache.authorize(user('a'), attrs);
    clock.t = 999;
    await cache.authorize(user('a'), attrs);
    expect(reviews).to.equal(1);
    clock.t = 1_000;
    await cache.authorize(user('a'), attrs);
    expect(reviews).to.equal(2);

    const gated = new GatedAuthorizer();
    const noTtl = new CachingAuthorizer(gated, { ttlMs: 0, now: () => 0 });
    const two = [noTtl.authorize(user('a'), attrs), noTtl.authorize(user('a'), attrs)];
    gated.releaseAll();
    await Promise.all(two);
    expect(gated.calls).to.have.length(1);
    expect(noTtl.size).to.equal(0);
  });
});
