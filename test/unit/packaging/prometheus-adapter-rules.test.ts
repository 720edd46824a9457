// manifests/components/prometheus-adapter: the rules serve exactly the series the exporter writes, under
// the names and selector keys the EHPA-generated HPA asks for; the Helm values say the same as the plain
// config; the component's flag parses with serve's flags.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse, parseAllDocuments } from 'yaml';
import { parseFlags } from '../../../src/config/flags.ts';
import { serveCommand } from '../../../src/cli/serve-command.ts';
import { cronMetric } from '../../../src/ehpa/desired-hpa.ts';
import { cronSamples, CRON_LABELS, PREDICTION_LABELS } from '../../../src/adapter/crane-exporter.ts';
import { CRON_METRIC_HEAD } from '../../../src/adapter/providers/cron-provider.ts';
import { PREDICTION_METRIC_HEAD } from '../../../src/adapter/providers/prediction-provider.ts';
import { MapSources } from '../../helpers/adapter-fixture.ts';
import { ehpa } from '../adapter/fixtures.ts';

const root = new URL('../../../', import.meta.url);
const read = (p: string) => readFileSync(new URL(p, root), 'utf8');
const DIR = 'manifests/components/prometheus-adapter/';

interface Rule {
  seriesQuery: string;
  metricsQuery: string;
  resources: { overrides?: Record<string, { resource: string }>; namespaced?: boolean };
  name?: unknown;
}

const rules = () => (parse(read(`${DIR}external-rules.yaml`)) as { externalRules: Rule[] }).externalRules;

describe('prometheus-adapter rules for exporter mode', () => {
  it('one rule per exported series, named as the series (no renaming), confined to the request namespace', () => {
    const r = rules();
    expect(r.map((x) => x.seriesQuery.split('{')[0])).to.deep.equal([CRON_METRIC_HEAD, PREDICTION_METRIC_HEAD]);
    for (const x of r) {
      expect(x.name, 'the external metric name is the series name').to.equal(undefined);
      // targetNamespace carries the namespace: prometheus-adapter adds targetNamespace="<request ns>".
      expect(x.resources).to.deep.equal({ overrides: { targetNamespace: { resource: 'namespace' } } });
      expect(x.metricsQuery).to.equal('max(<<.Series>>{<<.LabelMatchers>>})');
    }
  });

  it('every selector key of the generated HPA\'s cron metric is an exported label, with the exported value', async () => {
    const e = ehpa({ crons: [{ name: 'all-day', timezone: 'UTC', start: '0 0 * * *', end: '59 23 * * *', targetReplicas: 4 }] }, 'web');
    const hpaMetric = cronMetric(e).external!;
    expect(hpaMetric.metric.name).to.equal(CRON_METRIC_HEAD);
    const selector = hpaMetric.metric.selector!.matchLabels!;
    const s = new MapSources();
    s.ehpas.push(e);
    const { samples } = await cronSamples({ sources: s, localZone: 'UTC' }, Date.parse('2026-01-07T10:30:00Z'));
    expect(samples).to.have.length(1);
    expect(samples[0]!.labels).to.deep.equal(selector);
    expect([...CRON_LABELS].sort()).to.deep.equal(Object.keys(selector).sort());
    // The prediction selector keys (Crane v0.8+ HPA) are the exported labels minus `algorithm`.
    expect(PREDICTION_LABELS.filter((l) => l !== 'algorithm')).to.deep.equal(['targetKind', 'targetName', 'targetNamespace', 'resourceIdentifier']);
  });

  it('helm-values.yaml rules.external equal external-rules.yaml', () => {
    const helm = parse(read(`${DIR}helm-values.yaml`)) as { rules: { external: Rule[] } };
    expect(helm.rules.external).to.deep.equal(rules());
  });

  it('the component turns the adapter off and keeps the exporter on; serve accepts the flag', () => {
    const k = parseAllDocuments(read(`${DIR}kustomization.yaml`))[0]!.toJS();
    const ops = parseAllDocuments(k.patches[0].patch)[0]!.toJS() as { value: string }[];
    const f = parseFlags(serveCommand.flags, ops.map((o) => o.value));
    expect(f['adapter']).to.equal(false);
    expect(f['crane-exporter']).to.equal(true);
    expect(k.patches[1].target).to.deep.equal({ kind: 'APIService' });
  });
});
