// `ehpa-adapter recommend`: what the upstream VPA recommender would write into a VPA's status for the
// given usage history. Reads JSON Lines events (--input or stdin), prints the recommendation as JSON.
// Flags carry upstream's names and defaults.
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import YAML from 'yaml';
import { defineCommand, type CommandIO } from './command.ts';
import { UsageError, type FlagSpec } from '../config/flags.ts';
import { AggregationsConfig, parseInstant, type VerticalPodAutoscaler, type VerticalPodAutoscalerCheckpointJSON } from '../vpa/model/index.ts';
import { DEFAULT_RECOMMENDATION_CONFIG, recommendationToJSON } from '../vpa/logic/index.ts';
import { parseUsageEvent, VALUE_FIELDS, type UsageEvent } from '../vpa/usage-events.ts';
import { CheckpointLoadError, replay } from '../vpa/replay.ts';
import { VPA_MODEL_FLAGS, microsFlag, modelSettingsFromFlags } from '../vpa/model-flags.ts';

const d = DEFAULT_RECOMMENDATION_CONFIG;
const flags = [
  { name: 'input', type: 'string', default: '-', help: 'JSON Lines usage events in any order, replayed sorted by time ("-" = stdin)' },
  { name: 'now', type: 'string', default: undefined, help: 'RFC 3339 time of the recommendation (default: the last event time)' },
  { name: 'vpa', type: 'string', default: undefined, help: 'VerticalPodAutoscaler (YAML or JSON) whose resourcePolicy/annotations apply' },
  { name: 'checkpoint-in', type: 'string', default: undefined, help: 'start from these VerticalPodAutoscalerCheckpoints (JSON list, like a restarted recommender)' },
  { name: 'checkpoint-out', type: 'string', default: undefined, help: 'write the VerticalPodAutoscalerCheckpoints at --now to this file' },
  { name: 'recommendation-lower-bound-cpu-percentile', type: 'float', default: d.lowerBoundCPUPercentile, min: 0, max: 1, help: 'CPU usage percentile for the lower bound' },
  { name: 'recommendation-upper-bound-cpu-percentile', type: 'float', default: d.upperBoundCPUPercentile, min: 0, max: 1, help: 'CPU usage percentile for the upper bound' },
  { name: 'recommendation-lower-bound-memory-percentile', type: 'float', default: d.lowerBoundMemoryPercentile, min: 0, max: 1, help: 'memory peak percentile for the lower bound' },
  { name: 'recommendation-upper-bound-memory-percentile', type: 'float', default: d.upperBoundMemoryPercentile, min: 0, max: 1, help: 'memory peak percentile for the upper bound' },
  { name: 'confidence-interval-cpu', type: 'duration', default: '24h', help: 'history length that counts as confidence 1 for CPU', min: 1 },
  { name: 'confidence-interval-memory', type: 'duration', default: '24h', help: 'history length that counts as confidence 1 for memory', min: 1 },
  { name: 'memory-histogram-decay-half-life', type: 'duration', default: '24h', help: 'half-life of memory peak weights', min: 1 },
  { name: 'cpu-histogram-decay-half-life', type: 'duration', default: '24h', help: 'half-life of CPU sample weights', min: 1 },
  { name: 'humanize-memory', type: 'bool', default: false, help: 'deprecated upstream: memory in binary units with two decimals' },
  { name: 'round-cpu-millicores', type: 'int', default: 1, help: 'round CPU recommendations up to a multiple of this' },
  { name: 'round-memory-bytes', type: 'int', default: 1, help: 'round memory recommendations up to a multiple of this' },
  ...VPA_MODEL_FLAGS,
  { name: 'feature-gates', type: 'string', default: '', help: 'upstream model feature gates, e.g. PerVPAConfig=true' },
] as const satisfies readonly FlagSpec[];

function readStructured(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${what} ${path}: ${(e as Error).message}`);
  }
  try {
    return YAML.parse(text);
  } catch (e) {
    throw new UsageError(`${what} ${path} is not valid YAML/JSON: ${(e as Error).message.split('\n')[0]}`);
  }
}

function parseGates(text: string): { perVPAConfig: boolean } {
  const gates = { perVPAConfig: false };
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Za-z]+)=(true|false)$/.exec(part);
    if (!m || m[1] !== 'PerVPAConfig') throw new UsageError(`invalid --feature-gates entry "${part}" (supported: PerVPAConfig=true|false)`);
    gates.perVPAConfig = m[2] === 'true';
  }
  return gates;
}

async function readEvents(input: string, io: CommandIO): Promise<UsageEvent[]> {
  const stream = input === '-' ? io.stdin : createReadStream(input);
  const events: UsageEvent[] = [];
  const opened = new Promise<void>((resolve, reject) => {
    if (input === '-') return resolve();
    const file = stream as ReturnType<typeof createReadStream>;
    file.once('error', (e: Error) => reject(new UsageError(`cannot read --input ${input}: ${e.message}`)));
    file.once('open', () => resolve());
  });
  await opened;
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNo = 0;
  for await (const line of rl) {
    lineNo++;
    if (line.trim() === '') continue;
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch (e) {
      throw new UsageError(`${input === '-' ? 'stdin' : input}:${lineNo}: invalid JSON: ${(e as Error).message}`);
    }
    try {
      events.push(parseUsageEvent(obj));
    } catch (e) {
      throw new UsageError(`${input === '-' ? 'stdin' : input}:${lineNo}: ${(e as Error).message}`);
    }
    // The model drops a negative sample as upstream's does (the differential oracle relies on that), but in
    // a file it is a broken input, not a sample: refuse it with its line rather than answer with exit 0.
    const fields = obj as Record<string, unknown>;
    const negative = VALUE_FIELDS.find((k) => typeof fields[k] === 'number' && fields[k] < 0);
    if (negative) throw new UsageError(`${input === '-' ? 'stdin' : input}:${lineNo}: ${negative} must not be negative`);
  }
  // Replay in time order whatever the file's order: the model drops a memory sample older than its
  // window and keeps per-container "last sample" state, so feeding the same events in another order would
  // answer differently. A stable sort keeps the file order of events with equal times.
  return events.sort((a, b) => a.time - b.time);
}

function readCheckpoints(path: string): VerticalPodAutoscalerCheckpointJSON[] {
  const doc = readStructured(path, '--checkpoint-in') as unknown;
  const list = Array.isArray(doc) ? doc : (doc as { items?: unknown })?.items;
  if (!Array.isArray(list)) throw new UsageError(`--checkpoint-in ${path}: expected a list of VerticalPodAutoscalerCheckpoints`);
  return list as VerticalPodAutoscalerCheckpointJSON[];
}

export const recommendCommand = defineCommand({
  name: 'recommend',
  flags,
  async run(f, io) {
    const model = modelSettingsFromFlags(f);
    const recommendation = {
      ...model.recommendation,
      lowerBoundCPUPercentile: f['recommendation-lower-bound-cpu-percentile'],
      upperBoundCPUPercentile: f['recommendation-upper-bound-cpu-percentile'],
      confidenceIntervalCPU: microsFlag(f, 'confidence-interval-cpu'),
      lowerBoundMemoryPercentile: f['recommendation-lower-bound-memory-percentile'],
      upperBoundMemoryPercentile: f['recommendation-upper-bound-memory-percentile'],
      confidenceIntervalMemory: microsFlag(f, 'confidence-interval-memory'),
    };
    const aggregations = new AggregationsConfig({
      ...model.aggregations,
      memoryHistogramDecayHalfLife: microsFlag(f, 'memory-histogram-decay-half-life'),
      cpuHistogramDecayHalfLife: microsFlag(f, 'cpu-histogram-decay-half-life'),
    });
    const gates = parseGates(f['feature-gates']);
    let vpa: VerticalPodAutoscaler | undefined;
    if (f.vpa) {
      vpa = readStructured(f.vpa as string, '--vpa') as VerticalPodAutoscaler;
      if (typeof vpa !== 'object' || vpa === null) throw new UsageError(`--vpa ${f.vpa}: expected a VerticalPodAutoscaler object`);
    }
    const checkpointsIn = f['checkpoint-in'] ? readCheckpoints(f['checkpoint-in']) : [];

    const events = await readEvents(f.input as string, io);
    let now: number;
    if (f.now !== undefined) {
      try {
        now = parseInstant(f.now as string);
      } catch (e) {
        throw new UsageError(`invalid value for --now: ${(e as Error).message}`);
      }
    } else if (events.length > 0) now = events.reduce((m, e) => (e.time > m ? e.time : m), -Infinity);
    else throw new UsageError('no events and no --now: nothing to recommend from');

    let result;
    try {
      result = replay(events, now, {
        aggregations,
        recommendation,
        format: {
          humanizeMemory: f['humanize-memory'],
          roundCPUMillicores: f['round-cpu-millicores'],
          roundMemoryBytes: f['round-memory-bytes'],
        },
        vpa,
        cpuIntegerPostProcessorEnabled: model.cpuIntegerPostProcessorEnabled,
        globalMaxAllowed: model.globalMaxAllowed,
        gates,
      }, checkpointsIn);
    } catch (e) {
      if (e instanceof CheckpointLoadError) throw new UsageError(`--checkpoint-in: ${e.message}`);
      throw new UsageError((e as Error).message);
    }
    if (f['checkpoint-out']) writeFileSync(f['checkpoint-out'], JSON.stringify(result.checkpoints, null, 2) + '\n');
    io.stdout.write(JSON.stringify(recommendationToJSON(result.recommendation)) + '\n');
    if (result.skippedCheckpoints > 0) io.stderr.write(`recommend: ${result.skippedCheckpoints} checkpoint(s) belong to another VPA and were not loaded\n`);
    if (result.rejected > 0) io.stderr.write(`recommend: ${result.rejected} event(s) discarded by the model (duplicate, out-of-order, negative, or stale OOM)\n`);
    return 0;
  },
});
