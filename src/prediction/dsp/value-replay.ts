// Does serving this forecast pay? A replay of the series' own recent history through two autoscalers, in
// the units the user pays for: the HPA with the forecast beside the observed CPU (what an EHPA runs) against
// plain HPAs on the observed CPU alone at lower targets (what the user could buy instead: more headroom).
// Every policy is judged by one rule: a step is short when the load exceeds the ready capacity. The forecast
// pays when, at its own cost, the plain frontier is short more often, or, at its own shortage, the frontier
// costs more (docs/forecast-evaluation.md, "Does prediction pay"). Pure; cheap (no refit: the forecast at each
// backtest cut is the calibration's own).
//
// The capacity is continuous (the load's own unit at the per-pod target, so replicas × target): the HPA's
// rounding and tolerance are left out, which makes the verdict independent of the target the TSP does not
// know. What is kept is what decides whether a forecast helps: the HPA acts on the last observed sample, a
// scale-down waits for the stabilization window, and a new pod serves only after it has started.

/**
 * The plain HPAs a user could buy instead, as targets for an EHPA at 50 %: every 1 % near the EHPA's own
 * target, where the frontier falls steeply (at the target itself the HPA is short on most rises, a few
 * percent lower it rarely is), then 5 % steps down to 20 %. With 5 % steps throughout, interpolating
 * between 50 and 45 % made a forecast costing a few percent more look as if it paid.
 */
export const PLAIN_TARGETS_AT_50 = [50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 35, 30, 25, 20] as const;

/** Plain-HPA headroom factors over the EHPA's own target T: T / T, T / 0.98T, … T / 0.4T. */
export const PLAIN_HEADROOM: readonly number[] = PLAIN_TARGETS_AT_50.map((t) => 50 / t);

export interface ValueReplayInput {
  /** The observed load, one sample per step, oldest first. */
  load: ArrayLike<number>;
  /** The forecast's window maximum in force at each step (NaN where there is none: the step is not judged). */
  forecastWindowMax: ArrayLike<number>;
  stepSeconds: number;
  /** Scale-down stabilization (the HPA default: 300 s). */
  stabilizationSeconds: number;
  /** A new pod serves this long after the HPA asks for it. */
  podStartupSeconds: number;
  /** How much more than the plain frontier the user accepts to pay for the same shortage (0: none). */
  acceptExtraCost: number;
}

export interface PolicyScore {
  /** Minutes the load exceeded the ready capacity. */
  shortMinutes: number;
  /** Capacity paid for, in the load's unit × hours (replica-hours × the per-pod target). */
  capacityHours: number;
}

export interface ValueVerdict {
  pays: boolean;
  /** The replay's judged span, hours. */
  hours: number;
  ehpa: PolicyScore;
  /** The plain HPA at the EHPA's own target. */
  plain: PolicyScore;
  /** The plain frontier's shortage at the EHPA's cost (undefined: the EHPA costs more than the frontier's dearest point). */
  plainShortAtSameCost?: number;
  /** The frontier's cost at the EHPA's shortage (undefined: no plain target that short). */
  plainCostAtSameShort?: number;
  /** One sentence a condition can carry. */
  reason: string;
}

/**
 * Capacity asked for and ready at each step for a demand (index 0 is never judged): the HPA's answer is the
 * largest demand of the stabilization window (scale up at once, down after the window); ready is what was
 * asked throughout the last `start` steps (a pod asked for later is still starting; one removed is gone).
 */
function capacity(demand: Float64Array, hold: number, start: number): { asked: Float64Array; ready: Float64Array } {
  const n = demand.length;
  const asked = new Float64Array(n);
  const ready = new Float64Array(n);
  for (let t = 1; t < n; t++) {
    let a = demand[t] as number;
    for (let k = 1; k <= hold && t - k >= 1; k++) a = Math.max(a, demand[t - k] as number);
    asked[t] = a;
    let r = a;
    for (let k = 1; k <= start && t - k >= 1; k++) r = Math.min(r, asked[t - k] as number);
    ready[t] = r;
  }
  return { asked, ready };
}

/**
 * Shortage and cost of a policy whose capacity is `scale` × the given one: both the window maximum and the
 * start-up minimum commute with a positive scale, so every plain HPA of the frontier reuses one replay.
 */
function score(load: ArrayLike<number>, cap: { asked: Float64Array; ready: Float64Array }, scale: number, judged: Uint8Array, dt: number): PolicyScore {
  let short = 0;
  let paid = 0;
  for (let t = 1; t < judged.length; t++) {
    if (!judged[t]) continue;
    if ((load[t] as number) > scale * (cap.ready[t] as number) * (1 + 1e-9)) short++;
    paid += scale * (cap.asked[t] as number);
  }
  return { shortMinutes: (short * dt) / 60, capacityHours: (paid * dt) / 3600 };
}

const fmt = (x: number) => String(Number(x.toPrecision(3)));

/** The verdict of one forecast on its own history; undefined when no step can be judged. */
export function valueVerdict(input: ValueReplayInput): ValueVerdict | undefined {
  const n = input.load.length;
  if (input.forecastWindowMax.length !== n) throw new RangeError('load and forecast must have one value per step');
  const judged = new Uint8Array(n);
  let steps = 0;
  for (let t = 1; t < n; t++) {
    if (Number.isFinite(input.forecastWindowMax[t] as number) && Number.isFinite(input.load[t] as number)) {
      judged[t] = 1;
      steps++;
    }
  }
  if (steps === 0) return undefined;
  // The HPA acts on the last observed sample.
  const observed = new Float64Array(n);
  for (let t = 1; t < n; t++) observed[t] = Math.max(0, (input.load[t - 1] as number) || 0);
  const withForecast = observed.map((o, t) => (judged[t] ? Math.max(o, input.forecastWindowMax[t] as number) : o));
  const dt = input.stepSeconds;
  const hold = Math.max(0, Math.round(input.stabilizationSeconds / dt));
  const start = Math.max(0, Math.round(input.podStartupSeconds / dt));
  const ehpa = score(input.load, capacity(withForecast, hold, start), 1, judged, dt);
  const plainCapacity = capacity(observed, hold, start);
  const frontier = PLAIN_HEADROOM.map((k) => score(input.load, plainCapacity, k, judged, dt));
  const plain = frontier[0] as PolicyScore;
  const last = frontier[frontier.length - 1] as PolicyScore;

  // Between two plain targets the frontier is not known, and interpolating along a convex frontier overstates
  // it: a forecast that is only a lower target in disguise would "pay". So the bounds are the measured points:
  // the least shortage of a plain HPA costing at least as much, the most cost of one short longer.
  let plainShortAtSameCost: number | undefined;
  let plainCostAtSameShort: number | undefined;
  for (const p of frontier) {
    if (p.capacityHours >= ehpa.capacityHours) plainShortAtSameCost = Math.min(plainShortAtSameCost ?? Infinity, p.shortMinutes);
    if (p.shortMinutes > ehpa.shortMinutes) plainCostAtSameShort = Math.max(plainCostAtSameShort ?? -Infinity, p.capacityHours);
  }

  // It pays when a measured plain HPA costing at least as much (after the accepted extra) is short longer. A
  // tie in shortage does not pay: between two measured points a plain HPA may do as well for less.
  const extra = 1 + Math.max(0, input.acceptExtraCost);
  const beaten = frontier.find((p) => p.shortMinutes > ehpa.shortMinutes && extra * p.capacityHours >= ehpa.capacityHours);
  const pays = ehpa.shortMinutes < plain.shortMinutes && beaten !== undefined;
  const ofPlain = (x: number) => `${fmt(x / Math.max(plain.capacityHours, Number.MIN_VALUE))}×`;
  const costRatio = `${ofPlain(ehpa.capacityHours)} the plain HPA's capacity`;
  let reason: string;
  if (ehpa.shortMinutes >= plain.shortMinutes) {
    reason = `with the forecast the HPA was short ${fmt(ehpa.shortMinutes)} min, no fewer than without it (${fmt(plain.shortMinutes)} min), at ${costRatio}`;
  } else if (beaten) {
    reason = `with the forecast the HPA was short ${fmt(ehpa.shortMinutes)} min at ${costRatio}; a plain HPA with more headroom is short ${fmt(beaten.shortMinutes)} min at ${ofPlain(beaten.capacityHours)}`;
  } else if (ehpa.shortMinutes < last.shortMinutes) {
    reason = `with the forecast the HPA was short ${fmt(ehpa.shortMinutes)} min, but at ${costRatio}, more than a plain HPA at a 20 % target pays (${ofPlain(last.capacityHours)}, short ${fmt(last.shortMinutes)} min)`;
  } else {
    const cheaper = frontier.find((p) => p.shortMinutes <= ehpa.shortMinutes) as PolicyScore;
    reason = `with the forecast the HPA was short ${fmt(ehpa.shortMinutes)} min at ${costRatio}; a plain HPA with more headroom is as short (${fmt(cheaper.shortMinutes)} min) at ${ofPlain(cheaper.capacityHours)}`;
  }
  return {
    pays,
    hours: (steps * input.stepSeconds) / 3600,
    ehpa,
    plain,
    ...(plainShortAtSameCost !== undefined ? { plainShortAtSameCost } : {}),
    ...(plainCostAtSameShort !== undefined ? { plainCostAtSameShort } : {}),
    reason,
  };
}
