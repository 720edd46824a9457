// gocrane/crane's own example and documentation manifests (test/fixtures/crane-examples/, verbatim, see its
// NOTICE.md) against our CRDs on a real kube-apiserver: server-side dry-run create with strict field
// validation, as `kubectl apply --dry-run=server --validate=strict` would. Each file has an expected
// verdict; the rejections are the ones Crane's own current CRDs make too (stale API shapes), each named.
import { expect } from 'chai';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { installCrds } from './harness/index.ts';
import { useCluster } from './helpers.ts';

const DIR = fileURLToPath(new URL('../fixtures/crane-examples/', import.meta.url));

/** Expected answer per fixture: 'accept', or a pattern the rejection message must match. */
const VERDICTS: Record<string, 'accept' | RegExp> = {
  'examples/autoscaling/effective-hpa.yaml': 'accept',
  'examples/autoscaling/effective-hpa-cron.yaml': 'accept',
  'examples/autoscaling/effective-hpa-cron-local.yaml': 'accept',
  'examples/autoscaling/effective-hpa-cron-shanghai.yaml': 'accept',
  // Never an EHPA field (it is spec.prediction.predictionWindowSeconds); Crane's CRD rejects it the same way.
  'examples/load-test.yaml': /unknown field "spec\.predictionConfig"/,
  'examples/tsp-workload-resource-dsp.yaml': 'accept',
  // Window 180 s: Crane's webhook wants >= 600 on create; so does our ValidatingAdmissionPolicy, not installed here:
  // the CRD alone allows it (docs/crane-behaviour.md §A.4, test/e2e/admission-refusals.test.ts).
  'examples/tsp-node-resource-dsp.yaml': 'accept',
  // Crane v0.2–v0.3 shapes (type RawQuery + rawQuery; nodeResource), renamed to ExpressionQuery/expressionQuery
  // in gocrane/api: Crane's current CRD refuses them as well.
  'examples/tsp-workload-dsp.yaml': /unknown field "spec\.predictionMetrics\[0\]\.rawQuery"/,
  'examples/tsp-pods-dsp.yaml': /unknown field "spec\.predictionMetrics\[0\]\.rawQuery"/,
  'examples/tsp-nodes-dsp.yaml': /unknown field "spec\.predictionMetrics\[0\]\.rawQuery"/,
  'examples/tsp-nodes-percent.yaml': /unknown field "spec\.predictionMetrics\[0\]\.rawQuery"/,
  'examples/tsp-node-resource-percent.yaml': /unknown field "spec\.predictionMetrics\[0\]\.nodeResource"/,
  'site/best-practices-effective-hpa-with-prometheus-adapter.sample-app-hpa.yaml': 'accept',
  'site/core-concept-timeseriees-forecasting-by-dsp.tsp-workload-dsp.yaml': 'accept',
  'site/core-concept-timeseries-forecasting-by-dsp.tsp-workload-dsp.yaml': 'accept',
  'site/tutorials-timeseriees-forecasting-by-dsp.tsp-workload-dsp.yaml': 'accept',
  'site/tutorials-using-effective-hpa-to-scaling-with-effectiveness.php-apache.yaml': 'accept',
  'site/tutorials-using-effective-hpa-to-scaling-with-effectiveness.php-apache-local.yaml': 'accept',
  'site/tutorials-using-effective-hpa-to-scaling-with-effectiveness.php-apache-multi-dimensions.yaml': 'accept',
  // A Node target with the percentile algorithm (histogram settings as strings), window 600 s: Crane accepts it too.
  'site/tutorials-using-time-series-prediction.node-resource-percentile.yaml': 'accept',
  'site/zh-best-practices-effective-hpa-with-prometheus-adapter.sample-app-hpa.yaml': 'accept',
  'site/zh-tutorials-using-effective-hpa-to-scaling-with-effectiveness.php-apache-local.yaml': 'accept',
  'site/zh-tutorials-using-effective-hpa-to-scaling-with-effectiveness.php-apache-multi-dimensions.yaml': 'accept',
  // Older annotation form (metric-query.autoscaling.crane.io/http_requests, no pods. prefix): annotations are free-form,
  // so both CRDs accept it.
  'docs/tutorials-effective-hpa-with-prometheus-adapter.sample-app-hpa.yaml': 'accept',
};

const PLURALS: Record<string, string> = {
  EffectiveHorizontalPodAutoscaler: 'effectivehorizontalpodautoscalers',
  TimeSeriesPrediction: 'timeseriespredictions',
};

async function fixtureFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await fixtureFiles(p)));
    else if (e.name.endsWith('.yaml')) out.push(relative(DIR, p));
  }
  return out.sort();
}

describe('e2e: Crane\'s example manifests against our CRDs (strict server-side dry run)', function () {
  this.timeout(180_000);
  const env = useCluster({ controllerManager: false, prometheus: false, kubelet: false });
  before(async () => {
    await installCrds(env.cluster);
  });

  it('has a verdict for every fixture file, and a file for every verdict', async () => {
    expect(await fixtureFiles(DIR)).to.deep.equal(Object.keys(VERDICTS).sort());
  });

  for (const [file, verdict] of Object.entries(VERDICTS)) {
    it(`${file}: ${verdict === 'accept' ? 'accepted' : `rejected (${verdict.source})`}`, async () => {
      const parsed = parseAllDocuments(await readFile(join(DIR, file), 'utf8'));
      // The yaml library returns a partial object for a broken document; a fixture must parse cleanly.
      expect(parsed.flatMap((d) => ('errors' in d ? d.errors.map((e) => e.message) : [])), 'YAML errors').to.deep.equal([]);
      const docs = parsed.map((d) => d.toJS() as { apiVersion: string; kind: string; metadata: { namespace?: string } });
      expect(docs).to.have.length(1);
      const obj = docs[0]!;
      const plural = PLURALS[obj.kind];
      expect(plural, obj.kind).to.be.a('string');
      const ns = obj.metadata.namespace ?? 'default';
      const r = await env.cluster.admin.request('POST', `/apis/${obj.apiVersion}/namespaces/${ns}/${plural}?dryRun=All&fieldValidation=Strict`, { body: obj });
      if (verdict === 'accept') {
        expect(r.status, r.body).to.equal(201);
      } else {
        expect(r.status, r.body).to.be.oneOf([400, 422]);
        const status = JSON.parse(r.body) as { kind: string; message: string };
        expect(status.kind).to.equal('Status');
        expect(status.message).to.match(verdict);
      }
    });
  }
});
