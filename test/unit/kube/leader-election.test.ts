// The elector's timing, on a fake clock and an in-memory Lease: when a term ends, how each attempt is
// bounded, when a standby may take over, and the timing checks of client-go's NewLeaderElector.
import { expect } from 'chai';
import pino from 'pino';
import { LeaderElector, electionTimingProblem, type ElectionClock, type Lease, type LeaseStore } from '../../../src/kube/leader-election.ts';

const log = pino({ level: 'silent' });
const TIMING = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 };

/** Lets promise chains and listeners run: the elector's awaits between two timer firings. */
async function settle(): Promise<void> {
  for (let i = 0; i < 30; i++) await new Promise((r) => setImmediate(r));
}

class FakeClock implements ElectionClock {
  t = 0;
  private seq = 0;
  private timers: { at: number; seq: number; fn: () => void; live: boolean }[] = [];
  now = (): number => this.t;
  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, live: true };
    this.timers.push(timer);
    return () => (timer.live = false);
  }
  /** Fires every timer due up to `target`, in order, letting the code react between firings. */
  async advanceTo(target: number): Promise<void> {
    for (;;) {
      await settle();
      const due = this.timers.filter((x) => x.live && x.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.t = due.at;
      due.live = false;
      due.fn();
    }
    this.t = target;
    await settle();
  }
}

type Mode = 'ok' | 'hang' | 'hang-ignoring-abort';

/** An in-memory Lease with resourceVersions; calls can be made to hang or to take time on the fake clock. */
class FakeStore implements LeaseStore {
  lease: Lease | undefined;
  mode: Mode = 'ok';
  /** Extra time the next call takes before answering (fake clock). */
  nextDelayMs = 0;
  private rv = 0;
  /** Signals of calls that are hanging, with the clock time each one aborted at. */
  readonly hung: { signal: AbortSignal; abortedAt?: number; settled: boolean }[] = [];
  readonly writes: { at: number; holder: string }[] = [];

  constructor(private readonly clock: FakeClock) {}

  seed(spec: Lease['spec']): void {
    this.lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'ns', resourceVersion: String(++this.rv) }, spec };
  }

  private async call<T>(signal: AbortSignal, answer: () => T): Promise<T> {
    if (this.mode !== 'ok') {
      const h: { signal: AbortSignal; abortedAt?: number; settled: boolean } = { signal, settled: false };
      this.hung.push(h);
      return new Promise<T>((_, reject) => {
        signal.addEventListener('abort', () => {
          h.abortedAt = this.clock.now();
          if (this.mode === 'hang') {
            h.settled = true;
            reject(new Error('aborted'));
          }
        });
      });
    }
    const delay = this.nextDelayMs;
    this.nextDelayMs = 0;
    if (delay > 0) await new Promise<void>((r) => this.clock.after(delay, r));
    signal.throwIfAborted();
    return answer();
  }

  get(signal: AbortSignal) {
    return this.call(signal, () => (this.lease ? structuredClone(this.lease) : undefined));
  }
  create(lease: Lease, signal: AbortSignal) {
    return this.call(signal, () => {
      if (this.lease) return undefined;
      this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(++this.rv) } };
      this.writes.push({ at: this.clock.now(), holder: lease.spec.holderIdentity ?? '' });
      return structuredClone(this.lease);
    });
  }
  replace(lease: Lease, signal: AbortSignal) {
    return this.call(signal, () => {
      if (!this.lease || this.lease.metadata.resourceVersion !== lease.metadata.resourceVersion) return undefined;
      this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(++this.rv) } };
      this.writes.push({ at: this.clock.now(), holder: lease.spec.holderIdentity ?? '' });
      return structuredClone(this.lease);
    });
  }
}

/** Runs an elector; records when terms start and end on the fake clock. */
function campaign(identity: string, clock: FakeClock, store: LeaseStore, timing = TIMING) {
  const elector = new LeaderElector({ store, namespace: 'ns', name: 'l', identity, log, clock, ...timing });
  const shutdown = new AbortController();
  const terms: { startedAt: number; endedAt?: number; signal: AbortSignal }[] = [];
  const done = elector.run(shutdown.signal, async (term) => {
    const t: { startedAt: number; endedAt?: number; signal: AbortSignal } = { startedAt: clock.now(), signal: term };
    terms.push(t);
    await new Promise<void>((r) =>
      term.addEventListener('abort', () => {
        t.endedAt = clock.now();
        r();
      }),
    );
  });
  return { elector, shutdown, terms, done };
}

describe('leader election: timing checks (client-go NewLeaderElector)', () => {
  const cases: { t: typeof TIMING; problem: RegExp | undefined }[] = [
    { t: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 }, problem: undefined },
    { t: { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 }, problem: undefined },
    { t: { leaseDurationMs: 2000, renewDeadlineMs: 2000, retryPeriodMs: 500 }, problem: /^leaseDurationMs must be greater than renewDeadlineMs$/ },
    { t: { leaseDurationMs: 1000, renewDeadlineMs: 2000, retryPeriodMs: 500 }, problem: /^leaseDurationMs must be greater than renewDeadlineMs$/ },
    // 1.2 × 1000 = 1200: equal is refused, just above is fine.
    { t: { leaseDurationMs: 3000, renewDeadlineMs: 1200, retryPeriodMs: 1000 }, problem: /^renewDeadlineMs must be greater than retryPeriodMs × 1.2$/ },
    { t: { leaseDurationMs: 3000, renewDeadlineMs: 1201, retryPeriodMs: 1000 }, problem: undefined },
    { t: { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 2000 }, problem: /^renewDeadlineMs must be greater than retryPeriodMs/ },
    { t: { leaseDurationMs: 0, renewDeadlineMs: 0, retryPeriodMs: 0 }, problem: /^leaseDurationMs must be greater than zero$/ },
    { t: { leaseDurationMs: 3000, renewDeadlineMs: -1, retryPeriodMs: 500 }, problem: /^renewDeadlineMs must be greater than zero$/ },
    { t: { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 0 }, problem: /^retryPeriodMs must be greater than zero$/ },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.t)}: ${c.problem ? 'refused' : 'accepted'}`, () => {
      const p = electionTimingProblem(c.t);
      if (c.problem) expect(p).to.match(c.problem);
      else expect(p).to.equal(undefined);
    });
  }
  it('names fields the caller\'s way (flags)', () => {
    expect(electionTimingProblem({ leaseDurationMs: 2000, renewDeadlineMs: 2000, retryPeriodMs: 500 }, (f) => `--${f}`)).to.equal('--leaseDurationMs must be greater than --renewDeadlineMs');
  });
  it('the elector refuses bad timing at construction', () => {
    const store = new FakeStore(new FakeClock());
    expect(() => new LeaderElector({ store, namespace: 'ns', name: 'l', identity: 'a', log, leaseDurationMs: 2000, renewDeadlineMs: 2000, retryPeriodMs: 500 })).to.throw(/leaseDurationMs must be greater/);
  });
});

describe('leader election: terms end on time', () => {
  it('takes an absent Lease and leads', async () => {
    const clock = new FakeClock();
    const store = new FakeStore(clock);
    const a = campaign('a', clock, store);
    await clock.advanceTo(0);
    expect(a.terms).to.have.length(1);
    expect(a.elector.isLeader()).to.equal(true);
    expect(store.lease?.spec.holderIdentity).to.equal('a');
    await clock.advanceTo(1600); // renewals keep it
    expect(a.terms[0]?.signal.aborted).to.equal(false);
    expect(store.writes.filter((w) => w.holder === 'a').length).to.be.greaterThan(1);
    a.shutdown.abort();
    await clock.advanceTo(1601);
    await a.done;
  });

  it('ends the term at lastRenew + renewDeadline while a renewal hangs and ignores its abort', async () => {
    const clock = new FakeClock();
    const store = new FakeStore(clock);
    const a = campaign('a', clock, store);
    await clock.advanceTo(0); // acquired by the attempt started at 0
    store.mode = 'hang-ignoring-abort'; // from now on the API never answers, not even to an abort
    await clock.advanceTo(1999);
    expect(a.terms[0]?.endedAt).to.equal(undefined);
    expect(a.elector.isLeader()).to.equal(true);
    await clock.advanceTo(2000);
    // Stopped at the deadline itself, with the renewal that started at 500 still pending: the old elector
    // looked at the deadline only after an attempt returned, i.e. never here.
    expect(a.terms[0]?.endedAt).to.equal(2000);
    expect(a.elector.isLeader()).to.equal(false);
    expect(store.hung[0]?.settled).to.equal(false);
    expect(store.hung[0]?.abortedAt).to.equal(2000); // and the request was told to go away
  });

  it('counts the deadline from when the last successful renewal started, and aborts the next attempt then', async () => {
    const clock = new FakeClock();
    const store = new FakeStore(clock);
    const a = campaign('a', clock, store);
    await clock.advanceTo(0);
    store.nextDelayMs = 900; // the renewal that starts at 500 answers (successfully) at 1400
    await clock.advanceTo(1400);
    expect(store.writes.at(-1)).to.deep.equal({ at: 1400, holder: 'a' });
    store.mode = 'hang'; // the next renewal (at 1900) hangs until aborted
    await clock.advanceTo(2499);
    expect(a.terms[0]?.endedAt).to.equal(undefined);
    await clock.advanceTo(4000);
    // 500 + 2000, not 1400 + 2000: the renewal's write may have committed any time after 500.
    expect(a.terms[0]?.endedAt).to.equal(2500);
    expect(store.hung[0]?.abortedAt).to.equal(2500);
    expect(store.hung[0]?.settled).to.equal(true);
  });

  it('bounds an acquire attempt by renewDeadline and does not lead after it', async () => {
    const clock = new FakeClock();
    const store = new FakeStore(clock);
    store.mode = 'hang';
    const a = campaign('a', clock, store);
    await clock.advanceTo(1999);
    expect(store.hung[0]?.abortedAt).to.equal(undefined);
    await clock.advanceTo(2000);
    expect(store.hung[0]?.abortedAt).to.equal(2000);
    store.mode = 'ok';
    await clock.advanceTo(2500); // the next try, one retry period later, wins
    expect(a.terms.map((t) => t.startedAt)).to.deep.equal([2500]);
  });

  it('ends the term at once when a renewal finds another holder', async () => {
    const clock = new FakeClock();
    const store = new FakeStore(clock);
    const a = campaign('a', clock, store);
    await clock.advanceTo(0);
    store.seed({ holderIdentity: 'b', leaseDurationSeconds: 3, renewTime: 'x', leaseTransitions: 1 });
    await clock.advanceTo(500);
    expect(a.terms[0]?.endedAt).to.equal(500);
  });

  it('a standby waits leaseDuration from when it *saw* the holder\'s last renewal (after a slow read)', async () => {
    const clock = new FakeClock();
    const store = new FakeStore(clock);
    store.seed({ holderIdentity: 'gone', leaseDurationSeconds: 3, renewTime: 'r1', leaseTransitions: 0 });
    store.nextDelayMs = 1000; // the first read, started at 0, answers at 1000
    const b = campaign('b', clock, store);
    await clock.advanceTo(3999);
    expect(b.terms).to.have.length(0);
    await clock.advanceTo(4500);
    // Seen at 1000, so valid until 4000 on b's clock; counting from the read's start would take it at 3000.
    expect(b.terms.map((t) => t.startedAt)).to.deep.equal([4000]);
    expect(store.lease?.spec).to.include({ holderIdentity: 'b', leaseTransitions: 1 });
  });

  it('on shutdown stops leading, then releases the Lease', async () => {
    const clock = new FakeClock();
    const store = new FakeStore(clock);
    const a = campaign('a', clock, store);
    await clock.advanceTo(700);
    a.shutdown.abort();
    await clock.advanceTo(701);
    await a.done;
    expect(a.terms[0]?.endedAt).to.equal(700);
    expect(store.lease?.spec.holderIdentity).to.equal('');
    expect(a.elector.isLeader()).to.equal(false);
  });
});
