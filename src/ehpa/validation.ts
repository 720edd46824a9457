// What is wrong with an EHPA before we touch the cluster for it. Each problem becomes a condition and an
// event on that EHPA only; the others keep being reconciled.
import { cronExpressionError } from '../cron/standard-cron.ts';
import { isIanaZone } from '../cron/cron-window.ts';
import { BOUNDS } from '../api/bounds.ts';
import type { EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import { algorithmBoundsProblems } from '../prediction/spec-bounds.ts';
import { algorithmSettingsProblems } from '../prediction/crane-config.ts';
import { METRIC_QUERY_ANNOTATION_PREFIX } from './desired-tsp.ts';

export interface SpecProblem {
  /** Condition reason: `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`. */
  reason: 'InvalidReplicaRange' | 'InvalidScaleTargetRef' | 'InvalidCron' | 'InvalidTimeZone' | 'InvalidPrediction';
  message: string;
}

/** Node's own IANA database decides (cached, cron/cron-window.ts); "Local", "UTC" and "" are what Crane's
 *  LoadLocation accepts. */
export function isValidTimeZone(zone: string): boolean {
  return zone === '' || zone === 'Local' || zone === 'UTC' || isIanaZone(zone);
}

/** Problems by EHPA object, per zone checker. An informer hands out the same object until the EHPA changes (its
 *  objects are never modified), and every resync pass validates every EHPA again: at 10,000 EHPAs the cron and
 *  algorithm parsing of those passes was a fifth of the reconciles' garbage (432 of 2,062 MiB in two minutes of a
 *  sampling allocation profile, BENCHMARKS.md "scale"), which the major GCs then had to clear. */
let validated = new WeakMap<(zone: string) => boolean, WeakMap<EffectiveHorizontalPodAutoscaler, readonly SpecProblem[]>>();

/** Forgets every answer (test/helpers/fresh-caches.ts: no test passes on an earlier test's answer). */
export function clearValidationMemo(): void {
  validated = new WeakMap();
}

/** Returns every problem, in a stable order, so the condition message does not flap between reconciles. */
export function validateEhpa(
  ehpa: EffectiveHorizontalPodAutoscaler,
  isValidZone: (zone: string) => boolean = isValidTimeZone,
): SpecProblem[] {
  let byObject = validated.get(isValidZone);
  if (!byObject) validated.set(isValidZone, (byObject = new WeakMap()));
  let problems = byObject.get(ehpa);
  if (!problems) byObject.set(ehpa, (problems = Object.freeze(findProblems(ehpa, isValidZone).map((p) => Object.freeze(p)))));
  return [...problems];
}

function findProblems(ehpa: EffectiveHorizontalPodAutoscaler, isValidZone: (zone: string) => boolean): SpecProblem[] {
  const out: SpecProblem[] = [];
  const spec = ehpa.spec ?? ({} as EffectiveHorizontalPodAutoscaler['spec']);
  const ref = spec.scaleTargetRef;
  if (!ref || !ref.kind || !ref.name) {
    out.push({ reason: 'InvalidScaleTargetRef', message: 'spec.scaleTargetRef needs kind and name' });
  } else {
    for (const [field, value, max] of [
      ['name', ref.name, BOUNDS.nameLength],
      ['kind', ref.kind, BOUNDS.kindLength],
      ['apiVersion', ref.apiVersion ?? '', BOUNDS.apiVersionLength],
    ] as const) {
      if (value.length > max) out.push({ reason: 'InvalidScaleTargetRef', message: `spec.scaleTargetRef.${field} is ${value.length} characters long, more than ${max}` });
    }
  }
  const min = spec.minReplicas ?? 1;
  const max = spec.maxReplicas;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) {
    out.push({ reason: 'InvalidReplicaRange', message: `spec.maxReplicas must be an integer >= 1, got ${String(max)}` });
  } else if (!Number.isInteger(min) || min < 0) {
    out.push({ reason: 'InvalidReplicaRange', message: `spec.minReplicas must be an integer >= 0, got ${String(min)}` });
  } else if (min > max) {
    out.push({ reason: 'InvalidReplicaRange', message: `spec.minReplicas (${min}) is greater than spec.maxReplicas (${max})` });
  }
  const seen = new Set<string>();
  const crons = spec.crons ?? [];
  // Over the bound, not one cron is parsed: each costs work here and on every cron-metric request.
  if (crons.length > BOUNDS.crons) out.push({ reason: 'InvalidCron', message: `spec.crons has ${crons.length} items, more than ${BOUNDS.crons}` });
  for (const [i, cron] of (crons.length > BOUNDS.crons ? [] : crons).entries()) {
    const label = `spec.crons[${i}]${cron.name && cron.name.length <= BOUNDS.cronNameLength ? ` (${cron.name})` : ''}`;
    const lengthProblems = cronLengthProblems(cron);
    if (lengthProblems.length) {
      for (const m of lengthProblems) out.push({ reason: 'InvalidCron', message: `${label}: ${m}` });
      continue;
    }
    if (!cron.start) out.push({ reason: 'InvalidCron', message: `${label}: cron start must not be empty` });
    if (!cron.end) out.push({ reason: 'InvalidCron', message: `${label}: cron end must not be empty` });
    if (cron.timezone != null && !isValidZone(cron.timezone)) {
      out.push({ reason: 'InvalidTimeZone', message: `${label}: timezone: unknown time zone "${cron.timezone}"` });
    }
    for (const field of ['start', 'end'] as const) {
      const text = cron[field];
      if (!text) continue;
      const err = cronExpressionError(text, isValidZone);
      if (err) out.push({ reason: 'InvalidCron', message: `${label}: ${field} "${text}": ${err}` });
    }
    if (cron.targetReplicas != null && (!Number.isInteger(cron.targetReplicas) || cron.targetReplicas < 0)) {
      out.push({ reason: 'InvalidCron', message: `${label}: targetReplicas must be an integer >= 0` });
    }
    const name = cron.name ?? '';
    if (seen.has(name)) out.push({ reason: 'InvalidCron', message: `${label}: duplicate cron name "${name}"` });
    seen.add(name);
  }
  const p = spec.prediction;
  const { min: minWindow, max: maxWindow } = BOUNDS.predictionWindowSeconds;
  if (p?.predictionWindowSeconds != null && (!Number.isInteger(p.predictionWindowSeconds) || p.predictionWindowSeconds < minWindow || p.predictionWindowSeconds > maxWindow)) {
    out.push({ reason: 'InvalidPrediction', message: `spec.prediction.predictionWindowSeconds is ${p.predictionWindowSeconds}; it must be a whole number from ${minWindow} to ${maxWindow}` });
  }
  const algorithmField = 'spec.prediction.predictionAlgorithm';
  const bounds = algorithmBoundsProblems(p?.predictionAlgorithm, algorithmField);
  // Only a block within its bounds is parsed for what Crane would silently replace (gocrane/crane #352).
  for (const m of bounds.length ? bounds : algorithmSettingsProblems(p?.predictionAlgorithm, algorithmField)) out.push({ reason: 'InvalidPrediction', message: m });
  for (const [k, v] of Object.entries(ehpa.metadata?.annotations ?? {})) {
    if (k.startsWith(METRIC_QUERY_ANNOTATION_PREFIX) && v.length > BOUNDS.promqlLength) {
      out.push({ reason: 'InvalidPrediction', message: `annotation ${k} is ${v.length} characters long, more than ${BOUNDS.promqlLength}` });
    }
  }
  return out;
}

/** A cron's strings against their bounds (api/bounds.ts); the same check guards the cron metric. */
export function cronLengthProblems(cron: { name?: string; description?: string; timezone?: string; start?: string; end?: string }): string[] {
  const out: string[] = [];
  for (const [field, max] of [
    ['start', BOUNDS.cronExpressionLength],
    ['end', BOUNDS.cronExpressionLength],
    ['name', BOUNDS.cronNameLength],
    ['timezone', BOUNDS.timeZoneLength],
    ['description', BOUNDS.descriptionLength],
  ] as const) {
    const v = cron[field];
    if (typeof v === 'string' && v.length > max) out.push(`${field} is ${v.length} characters long, more than ${max}`);
  }
  return out;
}
