// The TSP's `Calibrated` condition: what `auto` mode's window-maximum calibration chose for each metric (the
// method and multiplier, the target and the coverage its backtest achieved, docs/forecast-evaluation.md) and
// how the published forecasts fared since (realized coverage). Crane mode and percentile do not calibrate: a
// TSP with no `auto` metric gets no such condition, so its status stays exactly Crane's, unless its coverage
// annotation asks for a calibration it cannot get (then the condition says so).
import type { Condition } from '../../api/meta.ts';
import type { CalibrationSummary } from '../dsp/window-calibration.ts';
import type { CoverageCount } from './realized-coverage.ts';

export const CALIBRATED = 'Calibrated';
export const COVERAGE_CALIBRATED = 'CoverageCalibrated';
export const NOT_CALIBRATED = 'NotCalibrated';
export const CALIBRATION_NOT_APPLICABLE = 'NotApplicable';

/** One metric's part: whether it runs `auto` mode, and per forecast series its calibration or remark. */
export interface MetricCalibration {
  resourceIdentifier: string;
  auto: boolean;
  series: readonly { calibration?: CalibrationSummary; note?: string }[];
  /** Why the metric has no forecast. */
  error?: string;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const num = (x: number) => String(Number(x.toPrecision(4)));
const range = (xs: readonly number[], f: (x: number) => string) => {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return lo === hi ? f(lo) : `${f(lo)}–${f(hi)}`;
};

function calibratedText(cs: readonly CalibrationSummary[]): string {
  if (cs.length === 1) {
    const c = cs[0] as CalibrationSummary;
    return `${c.method} × ${num(c.multiplier)}, backtest coverage ${pct(c.backtestCoverage)} (slack ${pct(c.backtestSlack)}) on ${c.backtestWindows} windows${c.exact ? '' : ', too few for the finite-sample rank'}`;
  }
  const methods = [...new Set(cs.map((c) => c.method))].join(', ');
  return `${cs.length} series, × ${range(cs.map((c) => c.multiplier), num)}, backtest coverage ${range(cs.map((c) => c.backtestCoverage), pct)} (methods: ${methods})`;
}

/**
 * The condition (without its transition time), or undefined when the TSP should carry none. True when every
 * series of every `auto` metric was calibrated; False with NotCalibrated when one was not (too little
 * history, no forecast), with NotApplicable when the annotation asks for a target no metric can honour.
 */
export function calibratedCondition(
  metrics: readonly MetricCalibration[],
  o: { target: number; windowSeconds: number; annotated: boolean; realized?: CoverageCount },
): Omit<Condition, 'lastTransitionTime'> | undefined {
  const auto = metrics.filter((m) => m.auto);
  if (auto.length === 0) {
    return o.annotated
      ? {
          type: CALIBRATED,
          status: 'False',
          reason: CALIBRATION_NOT_APPLICABLE,
          message: 'the coverage annotation has no effect: no metric runs auto mode (Crane estimators listed, or percentile)',
        }
      : undefined;
  }
  let all = true;
  const parts = auto.map((m) => {
    const cs = m.series.flatMap((s) => (s.calibration ? [s.calibration] : []));
    if (m.series.length === 0 || cs.length < m.series.length) {
      all = false;
      const why = m.series.length === 0 ? (m.error ?? 'no forecast') : (m.series.find((s) => !s.calibration)?.note ?? 'uncalibrated');
      return `${m.resourceIdentifier}: not calibrated: ${why}`;
    }
    return `${m.resourceIdentifier}: ${calibratedText(cs)}`;
  });
  const realized = o.realized && o.realized.windows > 0 ? `; realized coverage over the last day ${pct(o.realized.covered / o.realized.windows)} of ${o.realized.windows} windows` : '';
  return {
    type: CALIBRATED,
    status: all ? 'True' : 'False',
    reason: all ? COVERAGE_CALIBRATED : NOT_CALIBRATED,
    message: `target ${pct(o.target)} over ${o.windowSeconds}s windows; ${parts.join('; ')}${realized}`.slice(0, 1024),
  };
}

export const PREDICTION_PAYS = 'PredictionPays';
export const FORECAST_PAYS = 'ForecastPays';
export const STEPPED_ASIDE = 'SteppedAside';
/** --prediction-pays=observe: the verdict is reported, the forecast served anyway. */
export const WOULD_STEP_ASIDE = 'WouldStepAside';
export const NOT_JUDGED = 'NotJudged';

const mins = (x: number) => String(Number(x.toPrecision(3)));

/**
 * Why an `auto` metric's forecast is not served, or undefined when it pays: a series whose verdict is that it
 * does not pay, or that could not be judged at all (too little history to calibrate, or no candidate within
 * ×4: a load this forecaster cannot predict). Prediction acts only where it has been shown to pay.
 */
export function stepAsideReason(m: MetricCalibration): string | undefined {
  if (!m.auto) return undefined;
  for (const s of m.series) {
    const v = s.calibration?.value;
    if (v && !v.pays) return v.reason;
    if (!v) return `not judged (${s.note ?? 'uncalibrated'}); served from observation until it can be`;
  }
  return undefined;
}

/**
 * The TSP's `PredictionPays` condition: for each `auto` metric, whether its forecast beat a plain HPA at the
 * same cost on a replay of its own recent history (value-replay.ts), with the figures. True when every series
 * pays; False (SteppedAside) when one does not or cannot be judged: that metric is then served from
 * observation. With --prediction-pays=observe: False (WouldStepAside) or Unknown (NotJudged), and nothing
 * steps aside. None without `auto` metrics.
 */
export function paysCondition(metrics: readonly MetricCalibration[], o: { enforce: boolean } = { enforce: true }): Omit<Condition, 'lastTransitionTime'> | undefined {
  const auto = metrics.filter((m) => m.auto);
  if (auto.length === 0) return undefined;
  let judged = 0;
  let declined = 0;
  const parts = auto.map((m) => {
    const verdicts = m.series.flatMap((s) => (s.calibration?.value ? [s.calibration.value] : []));
    judged += verdicts.length;
    const no = verdicts.find((v) => !v.pays);
    if (no) declined++;
    const v = no ?? verdicts[0];
    if (!v) return `${m.resourceIdentifier}: not judged (${m.error ?? 'uncalibrated'})`;
    return `${m.resourceIdentifier}: ${v.pays ? 'pays' : o.enforce ? 'steps aside' : 'would step aside (observe mode: served anyway)'} over the last ${mins(v.hours)} h replayed: ${v.reason}`;
  });
  const unjudged = auto.some((m) => m.series.length === 0 || m.series.some((s) => !s.calibration?.value));
  if (o.enforce && unjudged) declined++;
  if (judged === 0 && !o.enforce) return { type: PREDICTION_PAYS, status: 'Unknown', reason: NOT_JUDGED, message: parts.join('; ').slice(0, 1024) };
  return {
    type: PREDICTION_PAYS,
    status: declined ? 'False' : 'True',
    reason: declined ? (o.enforce ? STEPPED_ASIDE : WOULD_STEP_ASIDE) : FORECAST_PAYS,
    message: parts.join('; ').slice(0, 1024),
  };
}
