// Crane's TSP tutorial (test/fixtures/crane-examples: its Node TSP, two percentile blocks without
// historyLength) through the TSP controller with the real forecaster: Crane's parser refuses those blocks
// and runs its default percentile configuration (gocrane/crane pkg/prediction/percentile/config.go
// defaultInternalConfig, aggregate_signals.go GetConfig), so the forecast here is fitted with those
// defaults over 7 days at 1 minute, and the TSP says so in its Defaulted condition and a Warning event.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { pino } from 'pino';
import { parse } from 'yaml';
import { TspReconciler } from '../../../../src/prediction/controller/tsp-reconciler.ts';
import { CoreForecaster } from '../../../../src/prediction/controller/core-forecaster.ts';
import { StatusWriter } from '../../../../src/kube/status-writer.ts';
import { resourcePath } from '../../../../src/kube/api-client.ts';
import { parseUserPromqlFlag } from '../../../../src/prometheus/promql-confine.ts';
import { DEFAULT_PERCENTILE_CONFIG, percentileEstimate } from '../../../../src/prediction/percentile/percentile-forecast.ts';
import { craneDefaultsApplied, percentileSettingsFromSpec } from '../../../../src/prediction/crane-config.ts';
import { tspBoundsProblems } from '../../../../src/prediction/spec-bounds.ts';
import type { HistoryProvider } from '../../../../src/prometheus/series.ts';
import type { TimeSeriesPrediction } from '../../../../src/api/prediction.ts';
import { InMemoryObjects } from '../../../helpers/in-memory-objects.ts';

const FIXTURE = new URL('../../../fixtures/crane-examples/site/tutorials-using-time-series-prediction.node-resource-percentile.yaml', import.meta.url);
const TSPS = (ns: string) => resourcePath('prediction.crane.io/v1alpha1', 'timeseriespredictions', ns);
const T0 = 1_800_000_000;

// Node CPU in cores (0.5 to 3.4) and memory in bytes (about 4 GB), one sample a minute.
const cpuAt = (t: number) => 0.5 + ((t / 60) % 30) / 10;
const memAt = (t: number) => 4e9 + ((t / 60) % 7) * 1e7;

function setup() {
  const tutorial = parse(readFileSync(FIXTURE, 'utf8')) as TimeSeriesPrediction;
  const store = new InMemoryObjects();
  store.seed(TSPS('default'), { ...tutorial, metadata: { ...tutorial.metadata, generation: 1 } });
  const reads: { query: string; startS: number; endS: number; stepS: number }[] = [];
  const history: HistoryProvider = {
    async queryRange(query, startS, endS, stepS) {
      reads.push({ query, startS, endS, stepS });
      const timestamps: number[] = [];
      for (let t = startS; t <= endS; t += stepS) timestamps.push(t);
      const f = query.includes('node_memory') ? memAt : cpuAt;
      return [{ labels: {}, timestamps, values: timestamps.map(f) }];
    },
  };
  const events: string[] = [];
  let nowS = T0;
  const reconciler = new TspReconciler({
    tsps: store.cache<TimeSeriesPrediction>(TSPS),
    history,
    forecaster: new CoreForecaster(),
    status: new StatusWriter(store),
    log: pino({ level: 'silent' }),
    now: () => nowS * 1000,
    updateFrequencyMs: 30_000,
    modelUpdateIntervalMs: 12 * 3_600_000,
    userPromql: parseUserPromqlFlag('unrestricted'),
    events: { event: (_o, type, reason) => events.push(`${type} ${reason}`) },
  });
  const tsp = () => store.read<TimeSeriesPrediction>(`${TSPS('default')}/node-resource-percentile`)!;
  const edit = (f: (t: TimeSeriesPrediction) => void) => {
    const t = structuredClone(tsp());
    f(t);
    t.metadata.generation = (t.metadata.generation ?? 1) + 1;
    store.seed(TSPS('default'), t);
  };
  return { reconciler, tsp, reads, events, edit, advance: (s: number) => (nowS += s) };
}

const valueOf = (t: TimeSeriesPrediction, rid: string) => Number(t.status?.predictionMetrics?.find((m) => m.resourceIdentifier === rid)?.prediction?.[0]?.samples[0]?.value);

describe("Crane's defaults for a percentile block Crane cannot parse (the TSP tutorial's Node TSP)", () => {
  it('the tutorial blocks lack historyLength, pass the bounds, and are named with the parser\'s reason', () => {
    const t = parse(readFileSync(FIXTURE, 'utf8')) as TimeSeriesPrediction;
    expect(t.spec.predictionMetrics.every((m) => m.algorithm?.percentile && m.algorithm.percentile.historyLength === undefined)).to.equal(true);
    expect(tspBoundsProblems(t)).to.deep.equal([]);
    expect(craneDefaultsApplied(t.spec.predictionMetrics[0]?.algorithm, 'a')).to.equal('a.percentile (time: invalid duration "")');
    // With a historyLength the block is Crane's to run as written.
    const whole = { ...t.spec.predictionMetrics[0]!.algorithm!, percentile: { ...t.spec.predictionMetrics[0]!.algorithm!.percentile!, historyLength: '1d' } };
    expect(craneDefaultsApplied(whole, 'a')).to.equal(undefined);
    expect(percentileSettingsFromSpec(whole.percentile).settings.config.histogram.kind).to.equal('exponential');
    // Not percentile, or no block (Crane's defaults are then simply the configuration): nothing to say.
    expect(craneDefaultsApplied({ algorithmType: 'dsp', percentile: {} }, 'a')).to.equal(undefined);
    expect(craneDefaultsApplied({ algorithmType: 'percentile' }, 'a')).to.equal(undefined);
  });

  it('is fitted with the defaults (7 days at 1 minute, p99 of a linear 0-100 histogram), Ready, with Defaulted=True/CraneDefaultsApplied and one Warning event', async () => {
    const s = setup();
    await s.reconciler.reconcile('default/node-resource-percentile');
    expect(s.reads).to.have.length(2);
    for (const r of s.reads) {
      expect(r.stepS).to.equal(60);
      expect(r.endS - r.startS).to.equal(7 * 86_400);
    }
    const t = s.tsp();
    const ready = t.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).to.include({ status: 'True', reason: 'PredictSucceed' });
    const defaulted = t.status?.conditions?.find((c) => c.type === 'Defaulted');
    expect(defaulted).to.include({ status: 'True', reason: 'CraneDefaultsApplied' });
    expect(defaulted?.message).to.contain('spec.predictionMetrics[0].algorithm.percentile (time: invalid duration ""), spec.predictionMetrics[1].algorithm.percentile (time: invalid duration "")');
    expect(defaulted?.message).to.contain('historyLength 7d');
    expect(defaulted?.message).to.contain('percentile 0.99');
    expect(s.events).to.deep.equal(['Warning CraneDefaultsApplied']);

    // The values are the defaults' estimate of the history, not the tutorial block's (whose first bucket is
    // 40 wide, which would make the CPU forecast 40 cores).
    const read = s.reads.find((r) => !r.query.includes('node_memory'))!;
    const cpu: number[] = [];
    for (let x = read.startS; x <= read.endS; x += 60) cpu.push(cpuAt(x));
    const want = percentileEstimate(cpu, DEFAULT_PERCENTILE_CONFIG);
    expect(valueOf(t, 'node-cpu')).to.be.closeTo(want, 1e-5);
    expect(want).to.be.within(3.3, 3.5);
    const asWritten = percentileSettingsFromSpec({ ...t.spec.predictionMetrics[0]!.algorithm!.percentile!, historyLength: '7d' }).settings.config;
    expect(percentileEstimate(cpu, asWritten)).to.be.greaterThan(30);
    // Memory in bytes lands in the default histogram's last bucket, as it does in Crane: the message warns of it.
    expect(valueOf(t, 'node-mem')).to.be.at.most(100);
    expect(defaulted?.message).to.contain('memory in bytes');
  });

  it('once the user gives the blocks a historyLength, they run as written and the condition is gone', async () => {
    const s = setup();
    await s.reconciler.reconcile('default/node-resource-percentile');
    s.edit((t) => {
      for (const m of t.spec.predictionMetrics) m.algorithm!.percentile!.historyLength = '1d';
    });
    s.advance(60);
    await s.reconciler.reconcile('default/node-resource-percentile');
    const t = s.tsp();
    expect(t.status?.conditions?.find((c) => c.type === 'Defaulted')).to.equal(undefined);
    expect(t.status?.conditions?.find((c) => c.type === 'Ready')).to.include({ status: 'True' });
    expect(s.reads.slice(2).map((r) => r.endS - r.startS)).to.deep.equal([86_400, 86_400]);
    // The tutorial's exponential histogram (first bucket 40 wide) now decides the CPU value.
    expect(valueOf(t, 'node-cpu')).to.be.greaterThan(30);
    expect(s.events).to.deep.equal(['Warning CraneDefaultsApplied']);
  });
});
