// What a TSP's algorithm block says, read the way Crane reads it, apart from how any forecaster fits it:
// whether it runs `auto` mode, and which series of a query are fitted (an aggregated percentile block fits
// one histogram over all of them). The controller and the forecasters both read blocks through this file,
// so the controller needs nothing from a forecaster's implementation (docs/architecture.md).
import type { PredictionAlgorithm } from '../../api/prediction.ts';
import type { HistorySeries } from '../../prometheus/series.ts';
import { percentileSettingsFromSpec } from '../index.ts';
import { mergeSeries } from '../percentile/aggregate-series.ts';

/**
 * The series to fit for an algorithm block: Crane's percentile with `aggregated` (its default when the
 * block is absent or does not parse) fits one histogram over every series of the query, so they become one
 * unlabelled series (docs/crane-behaviour.md §E.2; its timestamps may repeat, which the percentile
 * estimate ignores); everything else fits each series on its own.
 */
export function seriesToFit(history: readonly HistorySeries[], a: PredictionAlgorithm): HistorySeries[] {
  if (a.algorithmType !== 'percentile' || history.length < 2) return [...history];
  return percentileSettingsFromSpec(a.percentile).settings.aggregated ? [mergeSeries(history)] : [...history];
}

/**
 * How many series seriesToFit makes of `historySeries` query series, without building them (merging is
 * itself work over every point): the most forecast series a status can hold for the metric, known as soon
 * as the query has answered.
 */
export function fitSeriesCount(historySeries: number, a: PredictionAlgorithm): number {
  if (a.algorithmType !== 'percentile' || historySeries < 2) return historySeries;
  return percentileSettingsFromSpec(a.percentile).settings.aggregated ? 1 : historySeries;
}

/** True when the algorithm block runs `auto` mode, the one that calibrates its window maximum (not Crane's own estimators, not percentile). */
export function calibratesWindowMax(a: PredictionAlgorithm): boolean {
  return a.algorithmType !== 'percentile' && (a.dsp?.estimators?.fft?.length ?? 0) + (a.dsp?.estimators?.maxValue?.length ?? 0) === 0;
}
