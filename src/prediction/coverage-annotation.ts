// The per-object coverage target of `auto` mode (docs/forecast-evaluation.md): the probability that the
// forecast's maximum over a prediction window covers the window's actual maximum. Crane's schema has no
// field for it, so it is an annotation, on a TimeSeriesPrediction or on the EHPA that owns one (the EHPA
// copies it onto its TSP, ehpa/desired-tsp.ts). Crane mode and percentile ignore it.
import { BOUNDS } from '../api/bounds.ts';
import { craneParseFloat } from './crane-config.ts';

export const COVERAGE_ANNOTATION = 'prediction.ehpa-adapter.io/coverage';

/**
 * How much more than a plain HPA that is as short a user accepts to pay for the forecast (a share: "0.1" is
 * 10 %): `auto` mode steps aside when its forecast costs more than that (docs/forecast-evaluation.md).
 */
export const ACCEPT_EXTRA_COST_ANNOTATION = 'prediction.ehpa-adapter.io/accept-extra-cost';

/** The annotations an EHPA copies onto its TSP: auto mode's settings, which Crane's schema has no field for. */
export const AUTO_MODE_ANNOTATIONS = [COVERAGE_ANNOTATION, ACCEPT_EXTRA_COST_ANNOTATION] as const;

/** The accepted extra cost, or the problem with it (for the InvalidSpec condition); `{}` when absent. */
export function acceptExtraCostFromAnnotations(annotations: Record<string, string> | undefined): { acceptExtraCost?: number; problem?: string } {
  const text = annotations?.[ACCEPT_EXTRA_COST_ANNOTATION];
  if (text === undefined) return {};
  const field = `annotation ${ACCEPT_EXTRA_COST_ANNOTATION}`;
  if (text.length > BOUNDS.floatStringLength) return { problem: `${field} is ${text.length} characters long, more than ${BOUNDS.floatStringLength}` };
  let value = NaN;
  try {
    value = craneParseFloat(text.trim(), NaN);
  } catch {
    // Not a number: reported below with the rest.
  }
  const { min, max } = BOUNDS.acceptExtraCost;
  if (!(value >= min && value <= max)) return { problem: `${field} is "${text}"; it must be a number from ${min} to ${max} (a share: "0.1" accepts 10 % more cost)` };
  return { acceptExtraCost: value };
}

/** The annotation's value, or the problem with it (for the InvalidSpec condition); `{}` when absent. */
export function coverageFromAnnotations(annotations: Record<string, string> | undefined): { coverage?: number; problem?: string } {
  const text = annotations?.[COVERAGE_ANNOTATION];
  if (text === undefined) return {};
  const field = `annotation ${COVERAGE_ANNOTATION}`;
  // Length first: nothing longer than any float anyone writes is parsed at all.
  if (text.length > BOUNDS.floatStringLength) return { problem: `${field} is ${text.length} characters long, more than ${BOUNDS.floatStringLength}` };
  let value = NaN;
  try {
    value = craneParseFloat(text.trim(), NaN);
  } catch {
    // Not a number: reported below with the rest.
  }
  // Exclusive bounds: 0 asks for nothing, 1 for a margin no finite backtest can justify.
  const { min, max } = BOUNDS.coverageTarget;
  if (!(value > min && value < max)) return { problem: `${field} is "${text}"; it must be a number strictly between ${min} and ${max} (e.g. "0.95")` };
  return { coverage: value };
}
