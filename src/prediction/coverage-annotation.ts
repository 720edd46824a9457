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

/**
 * A number-valued annotation: absent, its value when `ok` accepts it, or the problem (for the InvalidSpec
 * condition). Length first: nothing longer than any float anyone writes is parsed at all.
 */
function numberAnnotation(annotations: Record<string, string> | undefined, key: string, ok: (v: number) => boolean, expected: string): { value?: number; problem?: string } {
  const text = annotations?.[key];
  if (text === undefined) return {};
  const field = `annotation ${key}`;
  if (text.length > BOUNDS.floatStringLength) return { problem: `${field} is ${text.length} characters long, more than ${BOUNDS.floatStringLength}` };
  let value = NaN;
  try {
    value = craneParseFloat(text.trim(), NaN);
  } catch {
    // Not a number: reported below with the rest.
  }
  return ok(value) ? { value } : { problem: `${field} is "${text}"; it must be ${expected}` };
}

/** The accepted extra cost, or the problem with it; `{}` when absent. */
export function acceptExtraCostFromAnnotations(annotations: Record<string, string> | undefined): { acceptExtraCost?: number; problem?: string } {
  const { min, max } = BOUNDS.acceptExtraCost;
  const r = numberAnnotation(annotations, ACCEPT_EXTRA_COST_ANNOTATION, (v) => v >= min && v <= max, `a number from ${min} to ${max} (a share: "0.1" accepts 10 % more cost)`);
  return r.value !== undefined ? { acceptExtraCost: r.value } : r;
}

/** The coverage target, or the problem with it; `{}` when absent. */
export function coverageFromAnnotations(annotations: Record<string, string> | undefined): { coverage?: number; problem?: string } {
  // Exclusive bounds: 0 asks for nothing, 1 for a margin no finite backtest can justify.
  const { min, max } = BOUNDS.coverageTarget;
  const r = numberAnnotation(annotations, COVERAGE_ANNOTATION, (v) => v > min && v < max, `a number strictly between ${min} and ${max} (e.g. "0.95")`);
  return r.value !== undefined ? { coverage: r.value } : r;
}
