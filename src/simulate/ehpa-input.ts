// Reads the EHPA a user wants to try from YAML and checks it with the controller's own validation, so the
// replay refuses what the server would refuse. Pure: text in, object out; problems are SimulationInputError.
import { parseAllDocuments } from 'yaml';
import { EHPA_KIND, type EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import { validateEhpa } from '../ehpa/validation.ts';
import { quantityMilli } from '../quantity/index.ts';

/** Annotation `simulate` reads the pods' CPU request from (the controller ignores it). */
export const POD_CPU_REQUEST_ANNOTATION = 'simulate.ehpa-adapter.io/pod-cpu-request';

export class SimulationInputError extends Error {
  override name = 'SimulationInputError';
}

/** The first EffectiveHorizontalPodAutoscaler document in the text (a file may hold other kinds too). */
export function parseEhpaYaml(text: string, isValidZone?: (zone: string) => boolean): EffectiveHorizontalPodAutoscaler {
  let docs;
  try {
    docs = parseAllDocuments(text);
  } catch (e) {
    throw new SimulationInputError(`not YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const list = Array.isArray(docs) ? docs : [docs];
  let found: EffectiveHorizontalPodAutoscaler | undefined;
  for (const d of list) {
    if (d.errors.length) throw new SimulationInputError(`not YAML: ${(d.errors[0] as Error).message.split('\n')[0]}`);
    const obj = d.toJS() as Partial<EffectiveHorizontalPodAutoscaler> | null;
    if (obj && typeof obj === 'object' && obj.kind === EHPA_KIND) {
      found = obj as EffectiveHorizontalPodAutoscaler;
      break;
    }
  }
  if (!found) throw new SimulationInputError(`no document of kind ${EHPA_KIND}`);
  if (!found.spec || typeof found.spec !== 'object') throw new SimulationInputError('the EffectiveHorizontalPodAutoscaler has no spec');
  const meta = (found.metadata ?? {}) as Partial<EffectiveHorizontalPodAutoscaler['metadata']>;
  const ehpa: EffectiveHorizontalPodAutoscaler = {
    ...found,
    metadata: { ...meta, name: meta.name ?? 'simulated', namespace: meta.namespace ?? 'default', uid: meta.uid ?? 'simulated' },
  };
  const problems = validateEhpa(ehpa, isValidZone);
  if (problems.length) throw new SimulationInputError(problems.map((p) => `${p.reason}: ${p.message}`).join('; '));
  const window = ehpa.spec.prediction?.predictionWindowSeconds;
  if (window != null && (!Number.isInteger(window) || window <= 0)) {
    throw new SimulationInputError(`spec.prediction.predictionWindowSeconds must be a positive integer, got ${String(window)}`);
  }
  return ehpa;
}

/** The pods' CPU request from the annotation, millicores; undefined when it is not set. */
export function podCpuRequestFromAnnotation(ehpa: EffectiveHorizontalPodAutoscaler): number | undefined {
  const text = ehpa.metadata.annotations?.[POD_CPU_REQUEST_ANNOTATION];
  if (text === undefined) return undefined;
  const milli = quantityMilli(String(text));
  if (milli === undefined || milli <= 0) throw new SimulationInputError(`annotation ${POD_CPU_REQUEST_ANNOTATION}: "${String(text)}" is not a positive CPU quantity`);
  return milli;
}
