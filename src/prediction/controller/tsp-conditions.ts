// The conditions a TSP status carries after Ready, and auto mode's settings they depend on: Defaulted where
// Crane's default percentile configuration replaced a block, Calibrated and PredictionPays where a metric runs
// auto mode. No I/O: the reconciler passes in what its metrics gave.
import type { Condition } from '../../api/meta.ts';
import type { TimeSeriesPrediction } from '../../api/prediction.ts';
import { craneDefaultsApplied, craneDefaultsMessage } from '../crane-config.ts';
import { acceptExtraCostFromAnnotations, coverageFromAnnotations } from '../coverage-annotation.ts';
import { DEFAULT_COVERAGE_TARGET } from '../index.ts';
import { calibratesWindowMax } from './algorithm-block.ts';
import { calibratedCondition, paysCondition } from './calibration-status.ts';
import type { AutoSettings } from './metric-forecast.ts';
import type { CoverageCount } from './realized-coverage.ts';
import { defaultedCondition, type MetricOutcome } from './tsp-status.ts';

type PlainCondition = Omit<Condition, 'lastTransitionTime'>;

/** The coverage auto mode calibrates this TSP for, or undefined when no metric runs auto mode. An invalid
 *  annotation reads as the default here: such a TSP is refused by the bounds before anything uses it. */
export function coverageTargetOf(tsp: TimeSeriesPrediction): number | undefined {
  const anyAuto = (tsp.spec.predictionMetrics ?? []).some((m) => calibratesWindowMax(m.algorithm ?? {}));
  return anyAuto ? (coverageFromAnnotations(tsp.metadata.annotations).coverage ?? DEFAULT_COVERAGE_TARGET) : undefined;
}

/** auto mode's settings from the TSP's annotations (valid once the bounds passed), else the defaults; `annotated` when the coverage was set. */
export function autoSettingsOf(tsp: TimeSeriesPrediction, defaultAcceptExtraCost = 0): AutoSettings & { annotated: boolean } {
  const annotated = coverageFromAnnotations(tsp.metadata.annotations).coverage;
  return {
    coverage: annotated ?? DEFAULT_COVERAGE_TARGET,
    acceptExtraCost: acceptExtraCostFromAnnotations(tsp.metadata.annotations).acceptExtraCost ?? defaultAcceptExtraCost,
    annotated: annotated !== undefined,
  };
}

/** Defaulted=True where Crane would run its default percentile configuration (and so does this), else undefined. */
export function defaultedOf(tsp: TimeSeriesPrediction): PlainCondition | undefined {
  const blocks = (tsp.spec.predictionMetrics ?? []).flatMap((m, i) => craneDefaultsApplied(m.algorithm, `spec.predictionMetrics[${i}].algorithm`) ?? []);
  return blocks.length ? defaultedCondition(craneDefaultsMessage(blocks)) : undefined;
}

/** Calibrated and PredictionPays from the metrics' calibrations, and the pays verdict for /metrics (undefined: not judged). */
export function autoModeConditions(o: { outcomes: readonly MetricOutcome[]; settings: AutoSettings & { annotated: boolean }; windowSeconds: number; realized: CoverageCount; enforcePays: boolean }): {
  calibrated?: PlainCondition;
  pays?: PlainCondition;
  paying?: boolean;
} {
  const calibrations = o.outcomes.flatMap((m) => (m.calibration ? [m.calibration] : []));
  const pays = paysCondition(calibrations, { enforce: o.enforcePays });
  const calibrated = calibratedCondition(calibrations, { target: o.settings.coverage, windowSeconds: o.windowSeconds, annotated: o.settings.annotated, realized: o.realized });
  const paying = pays?.status === 'True' ? true : pays?.status === 'False' ? false : undefined;
  return { ...(calibrated ? { calibrated } : {}), ...(pays ? { pays } : {}), ...(paying !== undefined ? { paying } : {}) };
}
