// Does a forecast pay (src/prediction/dsp/value-replay.ts): the replay's rules on loads small enough to count
// by hand, and the verdict against the plain frontier.
import { expect } from 'chai';
import { PLAIN_HEADROOM, valueVerdict, type ValueReplayInput } from '../../../../src/prediction/dsp/value-replay.ts';

const base = { stepSeconds: 60, stabilizationSeconds: 0, podStartupSeconds: 0, acceptExtraCost: 0 };
const input = (load: number[], forecast: number[], over: Partial<ValueReplayInput> = {}): ValueReplayInput => ({ ...base, load, forecastWindowMax: forecast, ...over });

describe('value replay: does serving the forecast pay against a plain HPA at the same cost', () => {
  it('acts on the last sample: a plain HPA is short at every rise; a forecast that saw it coming is not', () => {
    // A daily-like ramp: 1, 2, ... 10, repeated. The plain HPA at its target asks for the previous value.
    const load = Array.from({ length: 200 }, (_, i) => 1 + (i % 10));
    const perfect = load.map((_, t) => Math.max(...load.slice(t, t + 3)));
    const v = valueVerdict(input(load, perfect));
    // Steps 1..199 are judged; the plain HPA is short whenever the load rose: all but steps 10, 20, ... 190.
    expect(v?.plain.shortMinutes).to.equal(180);
    expect(v?.ehpa.shortMinutes).to.equal(0);
    expect(v?.pays).to.equal(true);
    expect(v?.reason).to.match(/^with the forecast the HPA was short 0 min at /);
  });

  it('pod start-up and stabilization: capacity asked for serves only after start-up, and is held for the window', () => {
    const load = [1, 1, 5, 5, 5, 1, 1, 1, 1, 1];
    const none = load.map(() => 0);
    // The plain HPA sees the 5 at step 3 (acting on step 2's sample): short at step 2 only without start-up.
    expect(valueVerdict(input(load, none))?.plain.shortMinutes).to.equal(1);
    // With 2 minutes of start-up the pods asked at step 3 serve from step 5: short at 2, 3 and 4.
    expect(valueVerdict(input(load, none, { podStartupSeconds: 120 }))?.plain.shortMinutes).to.equal(3);
    // Cost: the sum of what is asked; a 3-minute stabilization holds the 5 three steps longer.
    const fast = valueVerdict(input(load, none))?.plain.capacityHours as number;
    const held = valueVerdict(input(load, none, { stabilizationSeconds: 180 }))?.plain.capacityHours as number;
    expect(held - fast).to.be.closeTo((3 * 4 * 60) / 3600, 1e-12);
  });

  it('a forecast that only costs (no shortage to remove) does not pay', () => {
    const load = Array.from({ length: 100 }, () => 4);
    const v = valueVerdict(input(load, load.map(() => 8)));
    expect(v?.pays).to.equal(false);
    expect(v?.reason).to.match(/^with the forecast the HPA was short 0 min, no fewer than without it \(0 min\), at 2× the plain HPA's capacity/);
  });

  it('a forecast dearer than the plain frontier at the same shortage steps aside, unless the user accepts the extra cost', () => {
    // Random-looking bursts the forecast does not know: it holds 3× the load and removes the shortage a plain
    // HPA at 2× headroom would remove too, at less cost.
    const load = Array.from({ length: 500 }, (_, i) => 2 + ((i * 7919) % 13) / 13);
    const v = valueVerdict(input(load, load.map(() => 9)));
    expect(v?.pays).to.equal(false);
    expect(v?.plainCostAtSameShort ?? Infinity).to.be.below(v?.ehpa.capacityHours as number);
    const ratio = (v?.ehpa.capacityHours as number) / (v?.plainCostAtSameShort ?? v?.plain.capacityHours as number);
    expect(valueVerdict(input(load, load.map(() => 9), { acceptExtraCost: ratio }))?.pays).to.equal(true);
  });

  it('judges only steps with a forecast, and nothing without one', () => {
    expect(valueVerdict(input([1, 2, 3], [NaN, NaN, NaN]))).to.equal(undefined);
    const v = valueVerdict(input([1, 2, 3, 4], [NaN, 5, 5, NaN]));
    expect(v?.hours).to.equal(2 / 60);
    expect(() => valueVerdict(input([1, 2], [1]))).to.throw(RangeError);
    expect(PLAIN_HEADROOM[0]).to.equal(1);
    expect(PLAIN_HEADROOM[PLAIN_HEADROOM.length - 1]).to.equal(2.5);
  });

  it('a forecast that is only a lower target in disguise (k × the last sample) never pays, whatever k', () => {
    // A random walk of ±10 % a step (seeded LCG): at 1 % spacing near the own target the frontier is
    // sampled finely enough that no k between the grid points looks cheaper than the HPAs around it.
    let seed = 7;
    const rnd = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    const load: number[] = [10];
    for (let i = 1; i < 3000; i++) load.push(Math.max(1, (load[i - 1] as number) * (1 + 0.2 * (rnd() - 0.5))));
    for (const k of [1.01, 1.03, 1.05, 1.07, 1.1, 1.15, 1.3]) {
      for (const podStartupSeconds of [0, 60, 180]) {
        const disguised = load.map((_, t) => (t ? k * (load[t - 1] as number) : NaN));
        const v = valueVerdict(input(load, disguised, { podStartupSeconds, stabilizationSeconds: 0 }));
        expect(v?.pays, `k ${k}, start-up ${podStartupSeconds} s: ${v?.reason}`).to.equal(false);
      }
    }
    expect(PLAIN_HEADROOM).to.have.length(15);
  });
});
