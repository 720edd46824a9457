// What the TSP controller needs from a forecasting algorithm, whichever it is. The real DSP and
// percentile forecasters plug in here; the controller never looks inside.
import type { PredictionAlgorithm } from '../../api/prediction.ts';
import type { HistorySeries } from '../../prometheus/series.ts';
import type { CalibrationSummary } from '../dsp/window-calibration.ts';

export interface ForecastWindow {
  /** Unix seconds. */
  nowS: number;
  /** How far ahead the controller needs samples: twice the TSP's window (docs/crane-behaviour.md §D.2). */
  horizonSeconds: number;
  /**
   * `auto` mode: the probability that the forecast's maximum over a prediction window covers the actual one
   * (docs/forecast-evaluation.md); default DEFAULT_COVERAGE_TARGET. Crane mode and percentile ignore it.
   */
  coverage?: number;
  /** The window that coverage is about: the TSP's predictionWindowSeconds (default: half the horizon). */
  coverageWindowSeconds?: number;
  /** `auto` mode: the extra cost, as a share, accepted over a plain HPA that is as short (whether the forecast pays). */
  acceptExtraCost?: number;
}

/** One forecast series, with what `auto` mode's calibration chose for it (absent when it did not calibrate). */
export interface ForecastSeries extends HistorySeries {
  calibration?: CalibrationSummary;
  /** The forecaster's remark on a series it did forecast (e.g. why it is not calibrated). */
  note?: string;
}

export interface Forecaster {
  /** How much history to fetch for this configuration, and at which step. */
  historyWindow(algorithm: PredictionAlgorithm): { lengthSeconds: number; stepSeconds: number };
  /**
   * One forecast series per history series it could model (label sets kept), timestamps in unix
   * seconds. An empty result means "no prediction" (Crane's DSP without a period, §D.4). `signal`
   * cancels the call (the TSP was deleted or its spec changed): it then rejects with the signal's reason.
   * `tenant` (the TSP's namespace) is whose turn the fit waits for where fits share workers.
   */
  forecast(history: HistorySeries[], algorithm: PredictionAlgorithm, window: ForecastWindow, options?: { signal?: AbortSignal; tenant?: string }): ForecastSeries[] | Promise<ForecastSeries[]>;
}
