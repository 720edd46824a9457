// Period detection on Crane's 16 real traces with Crane's own test protocol (gocrane/crane
// pkg/prediction/dsp/signal_test.go TestSignal_FindPeriod: raw values, truncated to whole weeks, then
// FindPeriod), seeded, so the answer is the same on every run.
import { expect } from 'chai';
import { craneTraces, loadTrace, type PeriodLabel } from '../helpers/traces.ts';
import { detectPeriod } from '../../src/prediction/dsp/period.ts';
import { truncateToPeriods, DAY_SECONDS, WEEK_SECONDS, type Signal } from '../../src/prediction/dsp/signal.ts';

function label(seconds: number): PeriodLabel {
  return seconds === DAY_SECONDS ? 'day' : seconds === WEEK_SECONDS ? 'week' : 'none';
}

describe("conformance: periods of Crane's 16 test traces", function () {
  this.timeout(120_000);
  const weeks: { signal: Signal; label: PeriodLabel }[] = [];
  before(() => {
    for (const trace of craneTraces()) {
      const s = loadTrace(trace);
      const t = truncateToPeriods({ sampleRate: 1 / trace.intervalSeconds, samples: Float64Array.from(s.values) }, WEEK_SECONDS);
      if (!t) throw new Error(`${trace.name} is shorter than a week`);
      weeks.push({ signal: t.signal, label: trace.label as PeriodLabel });
    }
  });

  it('finds the labelled period on all 11 traces Crane labels periodic, and no day/week period on input3-6', () => {
    const got = weeks.map((w) => label(detectPeriod(w.signal, 1).periodSeconds));
    weeks.forEach((w, i) => {
      if (i !== 7) expect(got[i], `input${i}`).to.equal(w.label);
    });
  });

  it('input7: Week, as Crane\'s own FindPeriod says (its "non-periodic" label is never asserted upstream)', () => {
    // signal_test.go only asserts periodic[i] == true traces; gocrane/crane v0.11.0's FindPeriod on this
    // input returns 168h on every run (checked by test/oracles/crane-dsp.test.ts on the preprocessed series
    // and by hand on the raw week, 10 of 10 runs). Parity with Crane's code wins over the label in crane
    // mode; auto mode's out-of-sample confirmation rejects this week (auto-periods.test.ts).
    expect(detectPeriod((weeks[7] as (typeof weeks)[number]).signal, 1).periodSeconds).to.equal(WEEK_SECONDS);
  });

  it('gives the same periods on every run and for other seeds', () => {
    const first = weeks.map((w) => detectPeriod(w.signal, 1).periodSeconds);
    const again = weeks.map((w) => detectPeriod(w.signal, 1).periodSeconds);
    const otherSeed = weeks.map((w) => detectPeriod(w.signal, 20_261_122).periodSeconds);
    expect(again).to.deep.equal(first);
    expect(otherSeed.map(label)).to.deep.equal(first.map(label));
  });
});
