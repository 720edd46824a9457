// One namespace's queries against another's, through the real client with a fake fetch on a virtual
// clock: every Prometheus query takes QUERY_MS, and the test moves time from one answer to the next.
import { expect } from 'chai';
import { PrometheusClient, PrometheusError } from '../../../src/prometheus/client.ts';
import { FairSlots, NamespaceQueueFullError } from '../../../src/prometheus/fair-slots.ts';
import { NamespaceTimeBudget } from '../../../src/prometheus/namespace-time-budget.ts';

const QUERY_MS = 1000;

interface Pending {
  namespace: string;
  endsAt: number;
  answer: () => void;
}

/** A Prometheus that answers each query QUERY_MS after it arrives, on a clock the test advances. */
class FakePrometheus {
  clock = 0;
  readonly pending: Pending[] = [];
  readonly started: { namespace: string; at: number }[] = [];

  readonly fetch = (async (_url: string, init: RequestInit) => {
    const query = new URLSearchParams(String(init.body)).get('query') ?? '';
    const namespace = /namespace="([^"]+)"/.exec(query)?.[1] ?? '';
    this.started.push({ namespace, at: this.clock });
    await new Promise<void>((answer) => this.pending.push({ namespace, endsAt: this.clock + QUERY_MS, answer }));
    return new Response(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [] } }));
  }) as unknown as typeof fetch;

  /** Lets every promise chain run as far as it can without time passing. */
  async settle(): Promise<void> {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  }

  /** Moves the clock to `t`, answering every query due by then in order. */
  async runUntil(t: number): Promise<void> {
    await this.settle();
    for (;;) {
      this.pending.sort((a, b) => a.endsAt - b.endsAt);
      const next = this.pending[0];
      if (!next || next.endsAt > t) break;
      this.pending.shift();
      this.clock = next.endsAt;
      next.answer();
      await this.settle();
    }
    this.clock = t;
    await this.settle();
  }
}

function client(prom: FakePrometheus, perNamespace?: number, maxQueued?: number, share?: number): PrometheusClient {
  return new PrometheusClient({
    url: 'http://prometheus.invalid',
    fetch: prom.fetch,
    now: () => prom.clock,
    ...(share !== undefined ? { namespaceTime: { share, burstMs: 10_000 } } : {}),
    maxConcurrency: 8,
    ...(perNamespace !== undefined ? { maxConcurrencyPerNamespace: perNamespace } : {}),
    ...(maxQueued !== undefined ? { maxQueuedPerNamespace: maxQueued } : {}),
  });
}

/** Sends `n` queries for `ns` now; returns when each ended (virtual ms), or its error. */
function burst(c: PrometheusClient, prom: FakePrometheus, ns: string, n: number): Promise<number | Error>[] {
  return Array.from({ length: n }, () =>
    c.queryRange(`up{namespace="${ns}"}`, 0, 60, 15, { namespace: ns }).then(() => prom.clock, (e: Error) => e),
  );
}

describe('Prometheus queries per namespace (--prometheus-max-concurrency-per-namespace)', () => {
  it('one namespace saturating: another namespace\'s query starts at once and takes one query\'s time', async () => {
    const prom = new FakePrometheus();
    const c = client(prom, 2);
    const a = burst(c, prom, 'a', 50);
    await prom.runUntil(500);
    expect(prom.started.filter((s) => s.namespace === 'a')).to.have.length(2);
    const b = burst(c, prom, 'b', 1);
    await prom.runUntil(100_000);
    expect(await b[0]).to.equal(500 + QUERY_MS);
    // A still gets all its answers, two at a time.
    const aEnds = (await Promise.all(a)) as number[];
    expect(Math.max(...aEnds)).to.equal(25 * QUERY_MS);
  });

  it('every global slot taken by four saturating namespaces: another waits for one query at most', async () => {
    const prom = new FakePrometheus();
    const c = client(prom, 2);
    for (const ns of ['a', 'c', 'd', 'e']) burst(c, prom, ns, 20);
    await prom.runUntil(500);
    expect(prom.started).to.have.length(8);
    const b = burst(c, prom, 'b', 1);
    await prom.runUntil(100_000);
    // It waits for the first of the 8 to end (0.5 s, less than one query), then runs its own.
    expect(((await b[0]) as number) - 500).to.equal(500 + QUERY_MS);
  });

  it('without the per-namespace limit the same burst delays the other namespace by many queries (what the limit prevents)', async () => {
    const prom = new FakePrometheus();
    const c = client(prom);
    burst(c, prom, 'a', 50);
    await prom.runUntil(500);
    const b = burst(c, prom, 'b', 1);
    await prom.runUntil(100_000);
    expect(((await b[0]) as number) - 500).to.be.greaterThan(5 * QUERY_MS);
  });

  it('past its queue a namespace is refused at once, without a request, and others are not', async () => {
    const prom = new FakePrometheus();
    const c = client(prom, 2, 8);
    const a = burst(c, prom, 'a', 11);
    await prom.runUntil(0);
    expect(prom.started).to.have.length(2);
    const refused = await a[10];
    expect(refused).to.be.instanceOf(PrometheusError);
    expect((refused as Error).message).to.match(/namespace a already has 2 Prometheus queries running and 8 waiting.*--prometheus-max-concurrency-per-namespace/);
    const b = burst(c, prom, 'b', 1);
    await prom.runUntil(100_000);
    expect(await b[0]).to.equal(QUERY_MS);
    expect((await Promise.all(a.slice(0, 10))).every((x) => typeof x === 'number')).to.equal(true);
    expect(prom.started.filter((s) => s.namespace === 'a')).to.have.length(10);
  });

  it('queries without a namespace take global slots only', async () => {
    const slots = new FairSlots({ global: 3, perNamespace: 1, maxQueuedPerNamespace: 0 });
    const r1 = await slots.acquire();
    const r2 = await slots.acquire();
    const r3 = await slots.acquire('x');
    expect(slots.active).to.equal(3);
    let fourth = false;
    const p = slots.acquire().then((r) => ((fourth = true), r));
    await new Promise((r) => setImmediate(r));
    expect(fourth).to.equal(false);
    r1();
    (await p)();
    r2();
    // x's one slot is taken and it may queue none.
    await slots.acquire('x').then(() => expect.fail('admitted'), (e: Error) => expect(e).to.be.instanceOf(NamespaceQueueFullError));
    r3();
    r3(); // a second release is a no-op
    expect(slots.active).to.equal(0);
    expect(slots.namespaceLoad('x')).to.deep.equal({ admitted: 0, queued: 0 });
  });
});

describe('Prometheus time per namespace (--prometheus-namespace-time-share)', () => {
  /** 100 s in which namespace a sends 4 queries every second and b one every 5 s; what each got. */
  async function hundredSeconds(share?: number) {
    const prom = new FakePrometheus();
    const c = client(prom, 2, 8, share);
    const a: Promise<number | Error>[] = [];
    const b: Promise<number | Error>[] = [];
    for (let t = 0; t < 100_000; t += 1000) {
      await prom.runUntil(t);
      a.push(...burst(c, prom, 'a', 4));
      if (t % 5000 === 0) b.push(...burst(c, prom, 'b', 1));
    }
    await prom.runUntil(1_000_000);
    const aResults = await Promise.all(a);
    return {
      aServedMs: prom.started.filter((s) => s.namespace === 'a').length * QUERY_MS,
      aRefused: aResults.filter((r) => r instanceof Error) as Error[],
      bResults: await Promise.all(b),
    };
  }

  it('a namespace asking without pause gets burst + share × time of Prometheus, the other everything it asks', async () => {
    const limited = await hundredSeconds(0.25);
    // 10 s saved up + 0.25 × 100 s, plus at most its 2 queries in flight when the debt was run up.
    expect(limited.aServedMs).to.be.at.most(10_000 + 25_000 + 2 * QUERY_MS);
    expect(limited.aServedMs).to.be.at.least(25_000);
    expect(limited.aRefused.length).to.be.greaterThan(0);
    expect(limited.aRefused[0]!.message).to.match(/namespace a has used its share of Prometheus time \(0\.25 of wall time, --prometheus-namespace-time-share\); its next query may run in \d+s/);
    expect(limited.bResults.every((r) => typeof r === 'number')).to.equal(true);
    // Without the budget the same namespace keeps Prometheus busy two queries at a time for the whole run.
    const unlimited = await hundredSeconds();
    expect(unlimited.aServedMs).to.be.at.least(190_000);
  });

  it('the bucket: saved up to the burst, spent by durations, earned back at the share, forgotten when full', () => {
    const budget = new NamespaceTimeBudget({ share: 0.25, burstMs: 10_000 });
    expect(budget.waitMs('a', 0)).to.equal(undefined);
    budget.charge('a', 12_000, 12_000); // one query ran 12 s: 2 s of debt (it earned 0 while full)
    expect(budget.tokensMs('a', 12_000)).to.equal(-2000);
    expect(budget.waitMs('a', 12_000)).to.equal(Math.ceil(2001 / 0.25));
    expect(budget.waitMs('a', 12_000 + 8004)).to.equal(undefined);
    expect(budget.waitMs('b', 12_000)).to.equal(undefined); // another namespace is untouched
    budget.charge('a', 0, 100_000);
    expect(budget.size).to.equal(0);
  });
});
