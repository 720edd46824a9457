// Seeded scenario generator for the VPA differential harness: random and realistic usage histories
// (weeks of samples, sparse history with reference shifts, OOMs, several pods/containers/label sets,
// checkpoint round trips, policies and flags), in the JSON shape test/oracles/vpa/main.go reads.
import { mulberry32 } from '../../helpers/seeded-random.ts';

export interface OracleConfig {
  marginFraction: number;
  podMinCpuMillicores: number;
  podMinMemoryMb: number;
  targetCpuPercentile: number;
  lowerBoundCpuPercentile: number;
  upperBoundCpuPercentile: number;
  targetMemoryPercentile: number;
  lowerBoundMemoryPercentile: number;
  upperBoundMemoryPercentile: number;
  confidenceIntervalCpuSeconds: number;
  confidenceIntervalMemorySeconds: number;
  memoryAggregationIntervalSeconds: number;
  memoryAggregationIntervalCount: number;
  cpuHistogramDecayHalfLifeSeconds: number;
  memoryHistogramDecayHalfLifeSeconds: number;
  oomBumpUpRatio: number;
  oomMinBumpUpBytes: number;
  humanizeMemory: boolean;
  roundCpuMillicores: number;
  roundMemoryBytes: number;
  cpuIntegerPostProcessorEnabled: boolean;
  maxAllowedCpu: string;
  maxAllowedMemory: string;
}

export interface OracleEvent {
  time: string;
  container: string;
  pod?: string;
  labels?: Record<string, string>;
  cpuCores?: number;
  cpuMillicores?: number;
  memoryBytes?: number;
  oomMemoryRequestBytes?: number;
}

export interface OracleScenario {
  name: string;
  config: OracleConfig;
  vpa: { metadata: { name: string; namespace: string; annotations?: Record<string, string> }; spec: { resourcePolicy?: unknown } } | null;
  phases: { events: OracleEvent[]; now: string }[];
}

export const DEFAULT_ORACLE_CONFIG: OracleConfig = {
  marginFraction: 0.15,
  podMinCpuMillicores: 25,
  podMinMemoryMb: 250,
  targetCpuPercentile: 0.9,
  lowerBoundCpuPercentile: 0.5,
  upperBoundCpuPercentile: 0.95,
  targetMemoryPercentile: 0.9,
  lowerBoundMemoryPercentile: 0.5,
  upperBoundMemoryPercentile: 0.95,
  confidenceIntervalCpuSeconds: 86400,
  confidenceIntervalMemorySeconds: 86400,
  memoryAggregationIntervalSeconds: 86400,
  memoryAggregationIntervalCount: 8,
  cpuHistogramDecayHalfLifeSeconds: 86400,
  memoryHistogramDecayHalfLifeSeconds: 86400,
  oomBumpUpRatio: 1.2,
  oomMinBumpUpBytes: 104857600,
  humanizeMemory: false,
  roundCpuMillicores: 1,
  roundMemoryBytes: 1,
  cpuIntegerPostProcessorEnabled: false,
  maxAllowedCpu: '',
  maxAllowedMemory: '',
};

/** The scenarios' seeded generator (mulberry32). */
export const rng = mulberry32;

function iso(ms: number): string {
  const s = new Date(ms).toISOString();
  return ms % 1000 === 0 ? s.replace('.000Z', 'Z') : s;
}

const MB = 1024 * 1024;

export function generateScenario(index: number, seed: number): OracleScenario {
  const r = rng(seed * 1000003 + index);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const chance = (p: number) => r() < p;
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

  const config: OracleConfig = { ...DEFAULT_ORACLE_CONFIG };
  const flavour = index % 10;
  if (chance(0.35)) {
    config.marginFraction = pick([0, 0.1, 0.15, 0.3]);
    config.podMinCpuMillicores = pick([0, 10, 25, 100]);
    config.podMinMemoryMb = pick([0, 64, 250, 1000]);
    config.targetCpuPercentile = pick([0.5, 0.9, 0.95, 0.99]);
    config.targetMemoryPercentile = pick([0.5, 0.9, 0.95, 1]);
    config.memoryAggregationIntervalSeconds = pick([3600, 6 * 3600, 86400]);
    config.memoryAggregationIntervalCount = pick([2, 8, 14]);
    config.cpuHistogramDecayHalfLifeSeconds = pick([3600, 12 * 3600, 86400, 2 * 86400]);
    config.memoryHistogramDecayHalfLifeSeconds = pick([3600, 86400, 3 * 86400]);
    config.confidenceIntervalCpuSeconds = pick([3600, 86400]);
    config.confidenceIntervalMemorySeconds = pick([1800, 86400]);
    config.oomBumpUpRatio = pick([1, 1.2, 1.5]);
    config.oomMinBumpUpBytes = pick([0, 104857600, 50 * MB]);
    config.roundCpuMillicores = pick([1, 1, 5, 50]);
    config.roundMemoryBytes = pick([1, 1, MB, 128 * MB]);
    config.humanizeMemory = chance(0.15);
    config.cpuIntegerPostProcessorEnabled = chance(0.3);
    if (chance(0.3)) config.maxAllowedCpu = pick(['2', '500m', '1500m']);
    if (chance(0.3)) config.maxAllowedMemory = pick(['1Gi', '600Mi', '2G']);
  }

  const containerNames = ['app', 'sidecar', 'log-shipper'].slice(0, pick([1, 1, 2, 3]));
  const podCount = pick([1, 1, 2, 3]);
  const pods = Array.from({ length: podCount }, (_, i) => `p-${i}`);
  const labelSets = chance(0.25) ? [{ app: 'web' }, { app: 'web', track: 'canary' }] : [{ app: 'web' }];
  const podLabels = new Map(pods.map((p, i) => [p, labelSets[i % labelSets.length] as Record<string, string>]));
  // Two label sets mean two aggregates per container name, merged per VPA in Go map order (random).
  // When their histogram references differ, upstream's merge shifts whichever comes second (mutating the
  // cluster's aggregate) and the result depends on that order; such scenarios would make upstream itself
  // nondeterministic (docs/vpa-recommender.md §7.4). Their pods therefore sample at identical times, so references agree.
  const synchronised = labelSets.length > 1;

  let resourcePolicy: unknown = undefined;
  const annotations: Record<string, string> = {};
  if (chance(0.3)) {
    const policies: Record<string, unknown>[] = [];
    if (chance(0.5)) policies.push({ containerName: '*', minAllowed: { cpu: pick(['50m', '200m', '1']), memory: pick(['64Mi', '300Mi', '1G']) } });
    if (chance(0.5)) policies.push({ containerName: 'app', maxAllowed: { cpu: pick(['300m', '1', '2500m']), memory: pick(['512Mi', '1Gi']) } });
    if (chance(0.3)) policies.push({ containerName: 'sidecar', mode: 'Off' });
    if (chance(0.3)) policies.push({ containerName: pick(['app', 'log-shipper']), controlledResources: pick([['memory'], ['cpu'], []]) });
    resourcePolicy = { containerPolicies: policies };
  }
  if (chance(0.4)) annotations['vpa-post-processor.kubernetes.io/app_integerCPU'] = 'true';

  // Per-container usage profile.
  const profile = new Map(
    containerNames.map((c) => [
      c,
      {
        cpuBase: pick([2, 20, 150, 800, 3000]) * (0.5 + r()),
        cpuNoise: r(),
        memBase: pick([5e6, 80e6, 300e6, 2e9]) * (0.5 + r()),
        memNoise: r() * 0.5,
      },
    ]),
  );

  const t0 = Date.UTC(2024, 0, 1) + int(0, 400) * 86400_000 + int(0, 86399) * 1000;
  const phaseCount = flavour === 3 || flavour === 7 ? pick([2, 3]) : 1;
  // Shape of the history: steady, long weeks, sparse with big gaps, tiny.
  const shape = pick(['steady', 'steady', 'weeks', 'sparse', 'tiny', 'burst']);
  let stepMs: number;
  let samples: number;
  switch (shape) {
    case 'weeks':
      stepMs = pick([5, 10, 15]) * 60_000;
      samples = int(1000, 3000);
      break;
    case 'sparse':
      stepMs = pick([60, 6 * 60, 24 * 60]) * 60_000;
      samples = int(10, 120);
      break;
    case 'tiny':
      stepMs = 60_000;
      samples = int(1, 5);
      break;
    case 'burst':
      stepMs = pick([1000, 15_000, 30_000]);
      samples = int(100, 600);
      break;
    default:
      stepMs = pick([1, 1, 2, 5]) * 60_000;
      samples = int(100, 800);
  }

  const phases: OracleScenario['phases'] = [];
  let t = t0;
  for (let ph = 0; ph < phaseCount; ph++) {
    const events: OracleEvent[] = [];
    // Labels are read when a pod is first seen (each phase is a fresh recommender), so only the first
    // event of a pod in a phase carries them.
    const labelled = new Set<string>();
    const n = Math.max(1, Math.round(samples / phaseCount));
    for (let i = 0; i < n; i++) {
      if (shape === 'sparse' && chance(0.05)) t += pick([3, 20, 120, 250]) * 86400_000; // reference shifts
      else t += stepMs;
      const jitter = chance(0.1) ? pick([-60_000, -1000, 0, 500, 250]) : 0;
      for (const pod of pods) {
        if (!synchronised && chance(0.05)) continue;
        for (const c of containerNames) {
          const p = profile.get(c)!;
          const ts = t + jitter;
          const daily = Math.sin((ts / 86400_000) * 2 * Math.PI);
          const cpu = Math.max(0, p.cpuBase * (1 + 0.3 * daily + p.cpuNoise * (r() - 0.5)));
          const mem = Math.max(0, p.memBase * (1 + 0.2 * daily + p.memNoise * (r() - 0.5)));
          const base: OracleEvent = { time: iso(ts), container: c, pod };
          if (!labelled.has(pod)) {
            base.labels = podLabels.get(pod);
            labelled.add(pod);
          }
          if (chance(0.5)) events.push({ ...base, cpuCores: Math.round(cpu * 1000) / 1e6 });
          else events.push({ ...base, cpuMillicores: chance(0.01) ? -5 : Math.round(cpu) });
          if (synchronised || chance(0.9)) events.push({ ...base, memoryBytes: chance(0.1) ? mem : Math.round(mem) });
          if (chance(0.004)) events.push({ ...base, oomMemoryRequestBytes: Math.round(p.memBase * pick([0.5, 1, 1.5])) });
          if (chance(0.003)) events.push({ ...base, time: iso(ts - pick([2, 30, 50]) * 3600_000), oomMemoryRequestBytes: Math.round(p.memBase) });
          if (chance(0.02)) events.push({ ...base, cpuMillicores: Math.round(cpu) }); // duplicate timestamp
        }
      }
    }
    const nowMs = chance(0.15) ? t + pick([1, 3, 9]) * 86400_000 : t + pick([0, 0, 30_000, 3600_000]);
    phases.push({ events, now: iso(nowMs) });
    if (ph < phaseCount - 1) t = nowMs + pick([0, 60_000, 3600_000, 2 * 86400_000]);
  }

  const vpaMeta: { name: string; namespace: string; annotations?: Record<string, string> } = { name: 'vpa', namespace: 'default' };
  if (Object.keys(annotations).length > 0) vpaMeta.annotations = annotations;
  return {
    name: `s${index}-${shape}-${phaseCount}p`,
    config,
    vpa: { metadata: vpaMeta, spec: resourcePolicy ? { resourcePolicy } : {} },
    phases,
  };
}

export function generateScenarios(count: number, seed: number): OracleScenario[] {
  return Array.from({ length: count }, (_, i) => generateScenario(i, seed));
}
