// Every refusal of Crane's two validating webhooks (gocrane/crane pkg/webhooks/autoscaling/validate.go and
// pkg/webhooks/prediction/validating.go) is an admission refusal here, on a real kube-apiserver: the CRD
// rules (crds/, scripts/crane-webhook-rules.ts) and the create-only ValidatingAdmissionPolicy
// (manifests/admission-policy.yaml, from the chart). One block per row of docs/crane-behaviour.md §A.4: the
// refused object is refused with a message naming the field and the reason, a borderline valid one is admitted.
// The cron rule is checked against our robfig-exact parser (src/cron/standard-cron.ts) on a corpus of spellings.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { cronExpressionError } from '../../src/cron/standard-cron.ts';
import { isValidTimeZone } from '../../src/ehpa/validation.ts';
import { installCrds, MANIFESTS_DIR, waitFor } from './harness/index.ts';
import { readYamlObjects } from './harness/manifests.ts';
import { useCluster } from './helpers.ts';

const NS = 'default';
const EHPAS = `/apis/autoscaling.crane.io/v1alpha1/namespaces/${NS}/effectivehorizontalpodautoscalers`;
const TSPS = `/apis/prediction.crane.io/v1alpha1/namespaces/${NS}/timeseriespredictions`;

interface Cron { name: string; start: string; end: string; timezone?: string; targetReplicas?: number }
interface Answer { status: number; message: string }

const cron = (name: string, start: string, end: string, timezone?: string): Cron =>
  ({ name, start, end, targetReplicas: 2, ...(timezone === undefined ? {} : { timezone }) });

let serial = 0;
const ehpa = (crons: Cron[]) => ({
  apiVersion: 'autoscaling.crane.io/v1alpha1',
  kind: 'EffectiveHorizontalPodAutoscaler',
  metadata: { name: `e${++serial}`, namespace: NS },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5, crons },
});

const tsp = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'prediction.crane.io/v1alpha1',
  kind: 'TimeSeriesPrediction',
  metadata: { name: `t${++serial}`, namespace: NS, ...metadata },
  spec: {
    targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    predictionWindowSeconds: 3600,
    predictionMetrics: [{ resourceIdentifier: 'cpu', type: 'ResourceQuery', resourceQuery: 'cpu' }],
    ...spec,
  },
});

// Every start and end in Crane's documentation (docs/ and site/ of gocrane/crane at the commit in
// test/fixtures/crane-examples/NOTICE.md, English and Chinese pages): each must still be admitted.
const CRANE_DOC_CRONS = [
  '0 6 ? * *', '00 9 ? * *', '00 20 ? * *', '00 17 ? * *', '00 14 ? * *', '00 11 ? * *', '0 0 ? * *', '00 00 ? * *',
  '0 9 ? * *', '0 0 ? * 6', '00 23 ? * 0',
];

// Spellings at robfig's edges (docs/crane-behaviour.md §C.5.4). Whether each is valid is what our robfig-exact
// parser says, not written here: the test checks the apiserver agrees with it on every one.
const CRON_CORPUS = [
  ...CRANE_DOC_CRONS,
  '0 8 * * *', '*/5 * * * *', '5/15 * * * *', '0-59/1 * * * *', '59 23 31 12 6', '0 0 1 jan sun', '0 0 1 JAN-Dec Mon-FRI',
  '0 0 * * FRİ', '+5 * * * *', '05 08 * * *', '*-5 * * * *', '?-x * * * *', ', * * * *', '1,,2 * * * *', '0 8 * * 1-5',
  '0\t8 * * *', '  0 8 * * *', '0 8 * * *  ', '0\u00a08 * * *', '0 8 1-31/+2 * *', '0 8 * * 6-6', '0 0 29 2 *', '0 8 * * 0/2',
  '@daily', '@yearly', '@annually', '@monthly', '@weekly', '@midnight', '@hourly', '@every 1h30m', '@every -5m', '@every 500ms',
  'TZ=Asia/Shanghai 0 8 * * *', 'CRON_TZ=UTC @hourly', 'TZ=  0 8 * * *',
  // Refused by robfig.
  '0 8 * *', '0 8 * * * *', '60 * * * *', '* 24 * * *', '* * 0 * *', '* * 32 * *', '* * * 13 *', '* * * 0 *', '* * * * 7',
  '5-3 * * * *', '*/0 * * * *', '*/ * * * *', '1-2-3 * * * *', '1/2/3 * * * *', '-5 * * * *', '5- * * * *', 'x * * * *',
  '* * * janu *', '* * * * sunday', '* * * * jan', '* * * mon *', '0 8 * * 1,7', '*/-1 * * * *', 'L * * * *', '0 8 ? * MON#2',
  '0 0 0 8 * * *', '99999999999999999999 * * * *', '*/99999999999999999999 * * * *', '@Daily', '@daily ', ' @daily', '@every',
  '@every 5x', '@every  5m', '@reboot', 'TZ=Mars/Olympus 0 8 * * *', 'TZ=UTC', 'TZ=+05:00 0 8 * * *', 'TZ=asia/shanghai 0 8 * * *',
  'TZ=UTC\t0 8 * * *', 'CRON_TZ=Asia/Shanghai 0 8 * * 8',
];

describe('e2e: Crane\'s webhook refusals are admission refusals (CRD rules and the ValidatingAdmissionPolicy)', function () {
  this.timeout(300_000);
  const env = useCluster({ controllerManager: false, prometheus: false, kubelet: false });

  const submit = async (method: 'POST' | 'PUT', path: string, body: unknown, dryRun = true): Promise<Answer> => {
    const r = await env.cluster.admin.request(method, `${path}${dryRun ? '?dryRun=All' : ''}`, { body });
    return { status: r.status, message: r.status < 300 ? '' : ((r.json as { message?: string } | undefined)?.message ?? r.body) };
  };
  const admitted = async (path: string, body: unknown): Promise<void> => {
    const a = await submit('POST', path, body);
    expect(a.status, a.message).to.equal(201);
  };
  const refused = async (path: string, body: unknown, ...patterns: RegExp[]): Promise<string> => {
    const a = await submit('POST', path, body);
    expect(a.status, JSON.stringify(body)).to.be.oneOf([400, 422]);
    for (const p of patterns) expect(a.message, a.message).to.match(p);
    return a.message;
  };

  before(async function () {
    this.timeout(300_000);
    await installCrds(env.cluster);
    // Stored before the policy exists, as under an earlier chart or after an edit Crane allows: it must stay updatable.
    const stored = await submit('POST', TSPS, tsp({ predictionWindowSeconds: 180 }, { name: 'stored-short' }), false);
    expect(stored.status, stored.message).to.equal(201);
    for (const o of await readYamlObjects(join(MANIFESTS_DIR, 'admission-policy.yaml'))) {
      const plural = o.kind === 'ValidatingAdmissionPolicy' ? 'validatingadmissionpolicies' : 'validatingadmissionpolicybindings';
      const r = await env.cluster.admin.request('POST', `/apis/admissionregistration.k8s.io/v1/${plural}`, { body: o });
      expect(r.status, r.body).to.equal(201);
    }
    // The admission plugin picks a new policy up from its informer: wait until it refuses.
    await waitFor('the window policy refuses', async () => (await submit('POST', TSPS, tsp({ predictionWindowSeconds: 1 }))).status === 422, { timeoutMs: 60_000 });
  });

  describe('EHPA (Crane: create and update)', () => {
    it('cron start or end empty: refused by minLength, naming the field', async () => {
      await refused(EHPAS, ehpa([cron('a', '', '0 9 * * *')]), /spec\.crons\[0\]\.start.*at least 1 chars/);
      await refused(EHPAS, ehpa([cron('a', '0 8 * * *', '')]), /spec\.crons\[0\]\.end.*at least 1 chars/);
      const noEnd = ehpa([cron('a', '0 8 * * *', 'x')]);
      delete (noEnd.spec.crons[0] as Partial<Cron>).end;
      await refused(EHPAS, noEnd, /spec\.crons\[0\]\.end: Required value/);
    });

    it('time zone Go cannot load: refused, naming the field; names Go loads are admitted', async () => {
      for (const zone of ['Mars/Olympus', 'asia/shanghai', 'utc']) {
        await refused(EHPAS, ehpa([cron('a', '0 8 * * *', '0 9 * * *', zone)]), new RegExp(`spec\\.crons\\[0\\]\\.timezone: .*unknown time zone ${zone}.*timezone is not a zone Go's time\\.LoadLocation knows`));
      }
      // CEL would read a name with ':' as a UTC offset; LoadLocation refuses it, and so does the rule.
      await refused(EHPAS, ehpa([cron('a', '0 8 * * *', '0 9 * * *', '+05:00')]), /spec\.crons\[0\]\.timezone: .*timezone is not a zone Go's time\.LoadLocation knows/);
      for (const zone of ['Asia/Shanghai', 'UTC', 'Local', '', 'Etc/GMT+5', 'US/Eastern', 'EST5EDT']) {
        await admitted(EHPAS, ehpa([cron('a', '0 8 * * *', '0 9 * * *', zone)]));
      }
    });

    it('schedule robfig ParseStandard refuses: refused, naming start or end and why', async () => {
      const why = /is not a schedule robfig\/cron ParseStandard accepts, so Crane's webhook refuses it/;
      await refused(EHPAS, ehpa([cron('a', '0 8 * *', '0 9 * * *')]), /spec\.crons\[0\]\.start: /, why);
      await refused(EHPAS, ehpa([cron('a', '0 8 * * *', '0 9 * * 7')]), /spec\.crons\[0\]\.end: /, why);
      await refused(EHPAS, ehpa([cron('a', '@every 5x', '0 9 * * *')]), /spec\.crons\[0\]\.start: .*type conversion error from 'string' to 'google\.protobuf\.Duration'/, why);
      await refused(EHPAS, ehpa([cron('a', 'TZ=Mars/Olympus 0 8 * * *', '0 9 * * *')]), /spec\.crons\[0\]\.start: .*unknown time zone Mars\/Olympus.*a TZ= or CRON_TZ= prefix needs a time zone/);
      await refused(EHPAS, ehpa([cron('a', 'TZ=UTC', '0 9 * * *')]), /spec\.crons\[0\]\.start: .*a TZ= or CRON_TZ= prefix needs .* then a space/);
      // What the pattern cannot see is in two rules that compare numbers, names included.
      await refused(EHPAS, ehpa([cron('a', '0 0 1 mar-jan *', '0 9 * * *')]), /spec\.crons\[0\]\.start: .*start has a range N-M with N after M/);
      await admitted(EHPAS, ehpa([cron('a', '0 0 1 jan-mar *', '0 9 * * *')]));
      await refused(EHPAS, ehpa([cron('a', '*/9223372036854775808 * * * *', '0 9 * * *')]), /spec\.crons\[0\]\.start: .*start has a step of 0 or one beyond int64/);
      await admitted(EHPAS, ehpa([cron('a', '*/9223372036854775807 * * * *', '0 9 * * *')]));
    });

    it('the apiserver agrees with our robfig-exact parser on every spelling of the corpus', async () => {
      const disagreements: string[] = [];
      for (const text of CRON_CORPUS) {
        const robfig = cronExpressionError(text, isValidTimeZone) === undefined;
        const a = await submit('POST', EHPAS, ehpa([cron('a', text, '0 9 * * *')]));
        if ((a.status === 201) !== robfig) disagreements.push(`${JSON.stringify(text)}: robfig ${robfig ? 'accepts' : 'refuses'}, apiserver ${a.status} ${a.message}`);
        else if (!robfig) expect(a.message, text).to.match(/spec\.crons\[0\]\.start/);
      }
      expect(disagreements).to.deep.equal([]);
      expect(CRON_CORPUS.filter((t) => cronExpressionError(t, isValidTimeZone) === undefined).length, 'valid spellings in the corpus').to.be.greaterThan(40);
    });

    it('every cron of Crane\'s docs and of the fixtures\' EHPAs is admitted', async () => {
      for (const text of CRANE_DOC_CRONS) await admitted(EHPAS, ehpa([cron('a', text, text, 'Local')]));
      const dir = fileURLToPath(new URL('../fixtures/crane-examples/', import.meta.url));
      const files = ['examples/autoscaling/effective-hpa-cron.yaml', 'examples/autoscaling/effective-hpa-cron-local.yaml', 'examples/autoscaling/effective-hpa-cron-shanghai.yaml',
        'site/tutorials-using-effective-hpa-to-scaling-with-effectiveness.php-apache-multi-dimensions.yaml', 'site/zh-tutorials-using-effective-hpa-to-scaling-with-effectiveness.php-apache-multi-dimensions.yaml'];
      let crons = 0;
      for (const f of files) {
        const doc = parse(await readFile(join(dir, f), 'utf8')) as { spec: { crons?: Cron[] }; metadata: { namespace?: string } };
        crons += doc.spec.crons?.length ?? 0;
        const ns = doc.metadata.namespace ?? NS;
        const a = await submit('POST', `/apis/autoscaling.crane.io/v1alpha1/namespaces/${ns}/effectivehorizontalpodautoscalers`, doc);
        expect(a.status, `${f}: ${a.message}`).to.equal(201);
      }
      expect(crons, 'crons in those fixtures').to.be.greaterThan(10);
    });

    it('cron name repeated: refused by the list key', async () => {
      await refused(EHPAS, ehpa([cron('a', '0 8 * * *', '0 9 * * *'), cron('a', '0 10 * * *', '0 11 * * *')]), /spec\.crons\[1\]: Duplicate value/);
    });

    it('two crons with the same Crane cron metric name: refused in either generation\'s reading; different ones admitted', async () => {
      const why = /spec\.crons: .*two crons give Crane the same cron metric name/;
      // Crane's own test case: names differing in case only.
      await refused(EHPAS, ehpa([cron('Cron7', '00 00 ? * *', '00 06 ? * *', 'Local'), cron('cron7', '00 00 ? * *', '00 06 ? * *', 'Local')]), why);
      // Unset zone reads as UTC (v0.7) and as Local (HEAD).
      await refused(EHPAS, ehpa([cron('a', '0 8 * * *', '0 9 * * *'), cron('A', '0 8 * * *', '0 9 * * *', 'UTC')]), why);
      await refused(EHPAS, ehpa([cron('a', '0 8 * * *', '0 9 * * *'), cron('A', '0 8 * * *', '0 9 * * *', 'Local')]), why);
      // / . : % all become '-'; spaces in a schedule are dropped.
      await refused(EHPAS, ehpa([cron('a.b', '0 8 * * *', '0 9 * * *', 'UTC'), cron('a/b', '0 8 * * *', '0 9 * * *', 'UTC')]), why);
      await refused(EHPAS, ehpa([cron('x', '0 8 * * *', '0 9 * * *', 'UTC'), cron('X', '0  8 * * *', '0 9 * * *', 'UTC')]), why);
      await admitted(EHPAS, ehpa([cron('a', '0 8 * * *', '0 9 * * *', 'UTC'), cron('A', '0 8 * * *', '0 9 * * *', 'Local')]));
      await admitted(EHPAS, ehpa([cron('a', '0 8 * * *', '0 9 * * *'), cron('A', '0 8 * * *', '0 10 * * *')]));
    });

    it('Crane checks updates too: an update to a bad cron is refused', async () => {
      const created = await submit('POST', EHPAS, ehpa([cron('a', '0 8 * * *', '0 9 * * *')]), false);
      expect(created.status, created.message).to.equal(201);
      const path = `${EHPAS}/e${serial}`;
      const current = (await env.cluster.admin.getJson<ReturnType<typeof ehpa>>(path));
      current.spec.crons[0]!.end = '0 25 * * *';
      const a = await submit('PUT', path, current, false);
      expect(a.status).to.equal(422);
      expect(a.message).to.match(/spec\.crons\[0\]\.end: .*is not a schedule robfig\/cron ParseStandard accepts/);
    });
  });

  describe('TSP (Crane: create only)', () => {
    it('targetRef.name missing or empty: refused', async () => {
      await refused(TSPS, tsp({ targetRef: { kind: 'Deployment' } }), /spec\.targetRef\.name: Required value/);
      await refused(TSPS, tsp({ targetRef: { kind: 'Deployment', name: '' } }), /spec\.targetRef\.name: .*at least 1 chars/);
    });

    it('predictionWindowSeconds under 600 or unset on create: refused by the policy; 600 admitted', async () => {
      const why = /is under 600; Crane refuses a new TimeSeriesPrediction with a window shorter than 600 s/;
      expect(await refused(TSPS, tsp({ predictionWindowSeconds: 599 }), why)).to.match(/ValidatingAdmissionPolicy 'ehpa-adapter-tsp-window-floor'.*spec\.predictionWindowSeconds: 599 is under 600/);
      const unset = tsp({});
      delete (unset.spec as { predictionWindowSeconds?: number }).predictionWindowSeconds;
      await refused(TSPS, unset, /spec\.predictionWindowSeconds: unset is under 600/);
      await admitted(TSPS, tsp({ predictionWindowSeconds: 600 }));
      // Crane's own example with a 180 s window: Crane's webhook refuses it on create, and so do we.
      const example = parse(await readFile(fileURLToPath(new URL('../fixtures/crane-examples/examples/tsp-node-resource-dsp.yaml', import.meta.url)), 'utf8')) as { metadata: { namespace?: string } };
      await refused(`/apis/prediction.crane.io/v1alpha1/namespaces/${example.metadata.namespace ?? NS}/timeseriespredictions`, example, /spec\.predictionWindowSeconds: 180 is under 600/);
    });

    it('the floor is create-only: a stored short-window TSP stays updatable, and an update may shorten a window', async () => {
      const path = `${TSPS}/stored-short`;
      const stored = await env.cluster.admin.getJson<ReturnType<typeof tsp> & { metadata: { labels?: Record<string, string> } }>(path);
      expect(stored.spec.predictionWindowSeconds).to.equal(180);
      stored.metadata.labels = { touched: 'yes' };
      stored.spec.predictionWindowSeconds = 120;
      const a = await submit('PUT', path, stored, false);
      expect(a.status, a.message).to.equal(200);
      expect((await env.cluster.admin.getJson<ReturnType<typeof tsp>>(path)).spec.predictionWindowSeconds).to.equal(120);
    });

    it('a TSP our EHPA controller makes (controller owner an EHPA) carries the EHPA\'s window, which has no floor', async () => {
      const owned = { name: 'owned', ownerReferences: [{ apiVersion: 'autoscaling.crane.io/v1alpha1', kind: 'EffectiveHorizontalPodAutoscaler', name: 'web', uid: '00000000-0000-0000-0000-000000000001', controller: true }] };
      await admitted(TSPS, tsp({ predictionWindowSeconds: 60 }, owned));
      // Not the controller owner: the floor applies.
      await refused(TSPS, tsp({ predictionWindowSeconds: 60 }, { ownerReferences: [{ ...owned.ownerReferences[0]!, controller: false }] }), /under 600/);
    });

    it('no predictionMetrics, or a repeated resourceIdentifier: refused', async () => {
      await refused(TSPS, tsp({ predictionMetrics: [] }), /spec\.predictionMetrics: .*at least 1 items/);
      const none = tsp({});
      delete (none.spec as { predictionMetrics?: unknown }).predictionMetrics;
      await refused(TSPS, none, /spec\.predictionMetrics: Required value/);
      await refused(TSPS, tsp({ predictionMetrics: [{ resourceIdentifier: 'cpu', type: 'ResourceQuery', resourceQuery: 'cpu' }, { resourceIdentifier: 'cpu', type: 'ResourceQuery', resourceQuery: 'memory' }] }), /spec\.predictionMetrics\[1\]: Duplicate value/);
    });

    it('a metric type without its query: refused, naming the metric and the missing field', async () => {
      for (const type of ['ResourceQuery', 'MetricQuery', 'ExpressionQuery']) {
        const field = type[0]!.toLowerCase() + type.slice(1);
        await refused(TSPS, tsp({ predictionMetrics: [{ resourceIdentifier: 'm', type }] }), new RegExp(`spec\\.predictionMetrics\\[0\\]: .*type ${type} needs ${field}: no query is specified`));
      }
      await admitted(TSPS, tsp({ predictionMetrics: [{ resourceIdentifier: 'm', type: 'ExpressionQuery', expressionQuery: { expression: 'sum(up)' } }] }));
    });
  });
});
