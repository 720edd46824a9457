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

/** Plain-HPA headroom factors: the EHPA's target T over T, 0.9T, … 0.4T (50 % down to 20 %). */
export const PLAIN_HEADROOM = [1, 50 / 45, 50 / 40, 50 / 35, 50 / 30, 50 / 25, 50 / 20] as const;

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

/** Capacity asked for at each step: `demand(t)` held for the stabilization window, pods ready after start-up. */
function replay(input: ValueReplayInput, demand: (t: number) => number, judged: (t: number) => boolean): PolicyScore {
  const n = input.load.length;
  const dt = input.stepSeconds;
  const hold = Math.max(0, Math.round(input.stabilizationSeconds / dt));
  const start = Math.max(0, Math.round(input.podStartupSeconds / dt));
  const asked = new Float64Array(n);
  let short = 0;
  let paid = 0;
  for (let t = 1; t < n; t++) {
    // The HPA's answer at t: the largest recommendation of the stabilization window (scale up at once).
    let a = demand(t);
    for (let k = 1; k <= hold && t - k >= 1; k++) a = Math.max(a, demand(t - k));
    asked[t] = a;
    if (!judged(t)) continue;
    // Ready at t: what was asked throughout the last `start` steps (a pod asked for later is still starting;
    // one removed is gone at once).
    let ready = a;
    for (let k = 1; k <= start && t - k >= 1; k++) ready = Math.min(ready, asked[t - k] as number);
    if ((input.load[t] as number) > ready * (1 + 1e-9)) short++;
    paid += a;
  }
  return { shortMinutes: (short * dt) / 60, capacityHours: (paid * dt) / 3600 };
}

/** Linear interpolation of y at x between two points of a frontier. */
function lerp(x: number, x0: number, y0: number, x1: number, y1: number): number {
  return x1 === x0 ? Math.min(y0, y1) : y0 + ((x - x0) * (y1 - y0)) / (x1 - x0);
}

const fmt = (x: number) => String(Number(x.toPrecision(3)));

/** The verdict of one forecast on its own history; undefined when no step can be judged. */
export function valueVerdict(input: ValueReplayInput): ValueVerdict | undefined {
  const n = input.load.length;
  if (input.forecastWindowMax.length !== n) throw new RangeError('load and forecast must have one value per step');
  const judged = (t: number) => Number.isFinite(input.forecastWindowMax[t] as number) && Number.isFinite(input.load[t] as number);
  let steps = 0;
  for (let t = 1; t < n; t++) if (judged(t)) steps++;
  if (steps === 0) return undefined;
  const observed = (t: number) => Math.max(0, (input.load[t - 1] as number) || 0);
  const ehpa = replay(input, (t) => Math.max(observed(t), judged(t) ? (input.forecastWindowMax[t] as number) : 0), judged);
  const frontier = PLAIN_HEADROOM.map((k) => replay(input, (t) => k * observed(t), judged));
  const plain = frontier[0] as PolicyScore;
  const last = frontier[frontier.length - 1] as PolicyScore;

  // The frontier's shortage at the EHPA's cost, and its cost at the EHPA's shortage (both along the targets).
  let plainShortAtSameCost: number | undefined;
  let plainCostAtSameShort: number | undefined;
  for (let i = 0; i + 1 < frontier.length; i++) {
    const a = frontier[i] as PolicyScore;
    const b = frontier[i + 1] as PolicyScore;
    if (plainShortAtSameCost === undefined && ehpa.capacityHours >= a.capacityHours && ehpa.capacityHours <= b.capacityHours) {
      plainShortAtSameCost = lerp(ehpa.capacityHours, a.capacityHours, a.shortMinutes, b.capacityHours, b.shortMinutes);
    }
    if (plainCostAtSameShort === undefined && ehpa.shortMinutes <= a.shortMinutes && ehpa.shortMinutes >= b.shortMinutes) {
      plainCostAtSameShort = lerp(ehpa.shortMinutes, a.shortMinutes, a.capacityHours, b.shortMinutes, b.capacityHours);
    }
  }
  if (ehpa.capacityHours <= plain.capacityHours) plainShortAtSameCost ??= plain.shortMinutes;

  const extra = 1 + Math.max(0, input.acceptExtraCost);
  let pays: boolean;
  let reason: string;
  const costRatio = `${fmt(ehpa.capacityHours / Math.max(plain.capacityHours, Number.MIN_VALUE))}× the plain HPA's capacity`;
  if (ehpa.shortMinutes >= plain.shortMinutes) {
    pays = false;
    reason = `with the forecast the HPA was short ${fmt(ehpa.shortMinutes)} min, no fewer than without it (${fmt(plain.shortMinutes)} min), at ${costRatio}`;
  } else if (ehpa.shortMinutes < last.shortMinutes) {
    // Shorter than even the plain HPA with the most headroom: it pays if it costs no more than that one.
    pays = ehpa.capacityHours <= extra * last.capacityHours;
    reason = pays
      ? `with the forecast the HPA was short ${fmt(ehpa.shortMinutes)} min at ${costRatio}; no plain target down to 20 % gets that short (${fmt(last.shortMinutes)} min at the cost of ${fmt(last.capacityHours / Math.max(plain.capacityHours, Number.MIN_VALUE))}×)`
      : `with the forecast the HPA was short ${fmt(ehpa.shortMinutes)} min, but at ${costRatio}, more than a plain HPA at a 20 % target pays`;
  } else {
    const cost = plainCostAtSameShort as number;
    pays = ehpa.capacityHours <= extra * cost;
    const same = plainShortAtSameCost === undefined ? 'more than any plain target down to 20 % costs' : `where a plain HPA of the same cost is short ${fmt(plainShortAtSameCost)} min`;
    reason = `with the forecast the HPA was short ${fmt(ehpa.shortMinutes)} min at ${costRatio}, ${same}; a plain HPA as short costs ${fmt(cost / Math.max(plain.capacityHours, Number.MIN_VALUE))}×`;
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
