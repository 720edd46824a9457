// The fit's shortcuts (src/prediction/dsp/fit-shortcuts.ts: the permutation test's reused buffers and its
// early stop, the backtest folds' shared spectra, the calibration's pair-free ratios and reused selection
// buffer, the value replay's per-cut forecast) must not move a
// single bit: on real traces, the forecast a controller publishes (auto mode calibrated with the
// pay-or-step-aside verdict, and Crane mode) is compared whole with the one the straightforward path gives.
import { expect } from 'chai';
import { forecast, type Forecast } from '../../src/prediction/index.ts';
import { fitShortcuts } from '../../src/prediction/dsp/fit-shortcuts.ts';
import { findPeriod } from '../../src/prediction/dsp/period.ts';
import { peakScratch, realDftMagnitudes, realDftPeakMagnitude } from '../../src/prediction/dsp/dft.ts';
import { preprocess } from '../../src/prediction/dsp/preprocess.ts';
import { craneTraces, loadTrace, otherTraces, type Trace } from '../helpers/traces.ts';

/** Crane's fetch: the last 15 days and one hour of the trace. */
function history(t: Trace): { timestamps: number[]; values: number[]; now: number } {
  const full = loadTrace(t);
  const keep = Math.round((15 * 86_400 + 3600) / t.intervalSeconds);
  const timestamps = Array.from(full.timestamps).slice(-keep);
  const values = Array.from(full.values).slice(-keep);
  return { timestamps, values, now: timestamps[timestamps.length - 1] as number };
}

function withShortcuts<T>(enabled: boolean, f: () => T): T {
  const before = fitShortcuts.enabled;
  fitShortcuts.enabled = enabled;
  try {
    return f();
  } finally {
    fitShortcuts.enabled = before;
  }
}

// Daily, weekly, Crane's false weekly (input7), none (input3; input5, where no permutation runs), a daily trace whose period auto rejects
// (input10), and two 5-minute CloudWatch series without a period.
const NAMES = ['crane/input0', 'crane/input3', 'crane/input5', 'crane/input7', 'crane/input9', 'crane/input10', 'crane/input14'];
const TRACES = [...craneTraces().filter((t) => NAMES.includes(t.name)), ...otherTraces().slice(0, 2)];

describe('fit shortcuts: bit-identical to the straightforward fit on real traces', function () {
  this.timeout(300_000);

  for (const t of TRACES) {
    it(`${t.name.split(' ')[0]}: calibrated auto forecast with its pay verdict, and Crane mode`, () => {
      const h = history(t);
      for (const estimators of ['auto', 'crane'] as const) {
        for (const seed of [1, 7]) {
          const run = (enabled: boolean): Forecast =>
            withShortcuts(enabled, () =>
              forecast(h, { algorithm: 'dsp', sampleIntervalSeconds: t.intervalSeconds, estimators, coverage: 0.9, coverageWindowSeconds: 3600 }, { now: h.now, seed }),
            );
          const fast = run(true);
          const plain = run(false);
          // JSON keeps every float64 exactly (shortest round-trip text), and the whole object: samples,
          // estimator, backtest, calibration and the value verdict.
          expect(JSON.stringify(fast), `${t.name} ${estimators} seed ${seed}`).to.equal(JSON.stringify(plain));
          if (estimators === 'auto' && fast.samples.length > 0 && fast.calibration) expect(fast.calibration.value, 'the pay verdict is part of the fit').to.not.equal(undefined);
        }
      }
    });
  }

  it('the period verdict with the early stop equals the full permutation test, over many seeds', () => {
    for (const t of TRACES) {
      const h = history(t);
      const signal = { sampleRate: 1 / t.intervalSeconds, samples: preprocess(h, t.intervalSeconds).values };
      for (let seed = 100; seed < 103; seed++) {
        expect(withShortcuts(true, () => findPeriod(signal, seed)), `${t.name} seed ${seed}`).to.equal(withShortcuts(false, () => findPeriod(signal, seed)));
      }
    }
  });

  it('the permutation peak equals the largest magnitude past k = 0, to the bit', () => {
    const h = history(craneTraces()[9] as Trace);
    const x = Float64Array.from(h.values.slice(0, 20_160));
    const scratch = peakScratch(x.length);
    for (const n of [4, 6, 1440, 20_160]) {
      const s = x.subarray(0, n);
      const mags = realDftMagnitudes(s);
      let peak = 0;
      for (let k = 1; k < mags.length; k++) if ((mags[k] as number) > peak) peak = mags[k] as number;
      expect(realDftPeakMagnitude(s, n === x.length ? scratch : peakScratch(n))).to.equal(peak);
    }
  });
});
