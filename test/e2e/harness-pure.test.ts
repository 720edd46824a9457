// The harness's pure parts, without any process: trace parsing and shifting, the OpenMetrics text promtool
// reads, the JSON patch used for kustomize components, and the shape of our kwok Stage.
import { expect } from 'chai';
import { parse as parseYaml } from 'yaml';
import { cpuMilliAnnotation, OOM_KILL_ANNOTATION, OOM_KILL_STAGE, usageAnnotations, USAGE_CPU_ANNOTATION, USAGE_MEMORY_ANNOTATION } from './harness/kwok.ts';
import { cumulativeCpuSeconds, parseTraceCsv, shiftTrace, toOpenMetrics } from './harness/openmetrics.ts';
import { applyJsonPatch } from './harness/manifests.ts';
import { processKey } from './harness/cpu-by-process.ts';
import { fileSdJson, kubeletTargetsJson, prometheusYaml } from './harness/prometheus.ts';

describe('e2e harness: pure helpers', () => {
  it("sums a kernel worker's CPU under one name whichever work queue its name shows", () => {
    expect(processKey('kworker/0:0-events')).to.equal('kworker/0:0');
    expect(processKey('kworker/0:0-mm_percpu_wq')).to.equal('kworker/0:0');
    expect(processKey('kworker/u8:1-events_unbound')).to.equal('kworker/u8:1');
    expect(processKey('kube-apiserver')).to.equal('kube-apiserver');
    expect(processKey('node')).to.equal('node');
  });
  it('parses a ts,value CSV with a header and rejects a malformed line with its number', () => {
    expect(parseTraceCsv('ts,value\n100,1.5\n160,2\n')).to.deep.equal([{ ts: 100, value: 1.5 }, { ts: 160, value: 2 }]);
    expect(() => parseTraceCsv('ts,value\n100,1\n160,x\n')).to.throw(/line 3/);
    expect(() => parseTraceCsv('100,1\n')).to.throw(/fewer than two/);
  });

  it('shifts a trace so it ends at the given time and scales values', () => {
    const out = shiftTrace([{ ts: 0, value: 10 }, { ts: 60, value: 20 }], 1000, 0.5);
    expect(out).to.deep.equal([{ ts: 940, value: 5 }, { ts: 1000, value: 10 }]);
  });

  it('integrates cores into a CPU-seconds counter with trapezoids', () => {
    // 1 core then 3 cores over 60 s: 120 core-seconds; then flat 3 cores for 30 s: +90.
    expect(cumulativeCpuSeconds([{ ts: 0, value: 1 }, { ts: 60, value: 3 }, { ts: 90, value: 3 }])).to.deep.equal([0, 120, 210]);
  });

  it('writes OpenMetrics that names the counter family without _total and ends with # EOF', () => {
    const text = toOpenMetrics([{
      labels: { namespace: 'n', pod: 'p', container: 'c', job: 'kubelet' },
      cpu: [{ ts: 100, value: 1 }, { ts: 160, value: 1 }],
      memory: [{ ts: 100, value: 5.4 }, { ts: 160, value: 6 }],
    }]);
    const lines = text.trimEnd().split('\n');
    expect(lines).to.include('# TYPE container_cpu_usage_seconds counter');
    expect(lines).to.include('container_cpu_usage_seconds_total{container="c",job="kubelet",namespace="n",pod="p"} 60.000000 160');
    expect(lines).to.include('container_memory_working_set_bytes{container="c",job="kubelet",namespace="n",pod="p"} 5 100');
    expect(lines[lines.length - 1]).to.equal('# EOF');
  });

  it('writes extra gauges backfilled from a trace as one family each, after the cAdvisor ones', () => {
    const text = toOpenMetrics([], [
      { name: 'http_requests', labels: { namespace: 'n', pod: 'a' }, points: [{ ts: 100, value: 2.5 }] },
      { name: 'queue_depth', labels: { queue: 'q' }, points: [{ ts: 100, value: 7 }] },
      { name: 'http_requests', labels: { namespace: 'n', pod: 'b' }, points: [{ ts: 160, value: 3 }] },
    ]);
    const lines = text.trimEnd().split('\n');
    const at = (l: string) => lines.indexOf(l);
    expect(at('# TYPE http_requests gauge')).to.be.greaterThan(at('# TYPE container_memory_working_set_bytes gauge'));
    expect(lines.slice(at('# TYPE http_requests gauge'), at('# TYPE http_requests gauge') + 3)).to.deep.equal([
      '# TYPE http_requests gauge', 'http_requests{namespace="n",pod="a"} 2.5 100', 'http_requests{namespace="n",pod="b"} 3 160',
    ]);
    expect(lines).to.include('queue_depth{queue="q"} 7 100');
    expect(lines[lines.length - 1]).to.equal('# EOF');
  });

  it('applies JSON patch add (append and insert) and replace, and rejects other ops', () => {
    const doc = { a: { list: [1, 2] }, b: 1 };
    const out = applyJsonPatch(doc, [
      { op: 'add', path: '/a/list/-', value: 3 },
      { op: 'add', path: '/a/list/0', value: 0 },
      { op: 'replace', path: '/b', value: 2 },
    ]);
    expect(out).to.deep.equal({ a: { list: [0, 1, 2, 3] }, b: 2 });
    expect(doc.a.list).to.deep.equal([1, 2]); // input untouched
    expect(() => applyJsonPatch(doc, [{ op: 'remove', path: '/b' }])).to.throw(/unsupported/);
    expect(() => applyJsonPatch(doc, [{ op: 'add', path: '/x/y', value: 1 }])).to.throw(/missing/);
  });

  it('scrapes the exporter with honor_labels and a fixed instance label, matching the backfill', () => {
    const y = prometheusYaml({ exporterPort: 1234, scrapeIntervalSeconds: 1 });
    expect(y).to.contain("targets: ['127.0.0.1:1234']");
    expect(y).to.contain('honor_labels: true');
    expect(y).to.match(/target_label: instance\n\s+replacement: e2e-node/);
  });

  it('on kwok clusters scrapes the kubelets as job "kubelet" over verified HTTPS, the exporter relabeled to the same job', () => {
    const plain = prometheusYaml({ exporterPort: 1234, scrapeIntervalSeconds: 1 });
    expect(plain).not.to.contain('/metrics/resource');
    const cfg = parseYaml(prometheusYaml({ exporterPort: 1234, scrapeIntervalSeconds: 1, kubelet: { targetsFile: '/tmp/x/kubelets.json', caFile: '/tmp/x/ca.crt' } })) as {
      scrape_configs: { job_name: string; scheme?: string; metrics_path: string; honor_labels: boolean; tls_config?: { ca_file: string }; file_sd_configs?: { files: string[] }[]; relabel_configs?: { target_label: string; replacement: string }[] }[];
    };
    const [kubelet, exporter] = cfg.scrape_configs;
    expect(kubelet).to.deep.include({ job_name: 'kubelet', scheme: 'https', metrics_path: '/metrics/resource', honor_labels: true, tls_config: { ca_file: '/tmp/x/ca.crt' } });
    expect(kubelet!.file_sd_configs![0]!.files).to.deep.equal(['/tmp/x/kubelets.json']);
    expect(kubelet!.relabel_configs).to.equal(undefined);
    expect(exporter!.job_name).to.equal('history-exporter');
    expect(exporter!.relabel_configs).to.deep.equal([{ target_label: 'job', replacement: 'kubelet' }, { target_label: 'instance', replacement: 'e2e-node' }]);
    expect(JSON.parse(kubeletTargetsJson([{ node: 'kwok-node-0', address: '127.0.0.1:5' }]))).to.deep.equal([{ targets: ['127.0.0.1:5'], labels: { node: 'kwok-node-0' } }]);
  });

  it('writes kwok usage annotations in whole millicores and bytes; null clears, a missing field is left alone', () => {
    expect(usageAnnotations({ cpuCores: 0.0205, memBytes: 1e8 + 0.4 })).to.deep.equal({ [USAGE_CPU_ANNOTATION]: '21m', [USAGE_MEMORY_ANNOTATION]: '100000000' });
    expect(usageAnnotations({ cpuCores: null })).to.deep.equal({ [USAGE_CPU_ANNOTATION]: null });
    expect(usageAnnotations({ memBytes: -5 })).to.deep.equal({ [USAGE_MEMORY_ANNOTATION]: '0' });
    expect(cpuMilliAnnotation(2.5)).to.equal('3m');
  });

  it('adds the file_sd job "extra" only when asked; its targets carry their metrics path as __metrics_path__', () => {
    expect(prometheusYaml({ exporterPort: 1234, scrapeIntervalSeconds: 1 })).not.to.contain('file_sd_configs');
    const y = prometheusYaml({ exporterPort: 1234, scrapeIntervalSeconds: 1, extraTargetsFile: '/tmp/x/extra.json' });
    expect(y).to.contain("job_name: extra\n    file_sd_configs:\n      - files: ['/tmp/x/extra.json']");
    expect(JSON.parse(fileSdJson([{ target: '127.0.0.1:9', metricsPath: '/m', labels: { a: 'b' } }]))).to.deep.equal([
      { targets: ['127.0.0.1:9'], labels: { a: 'b', __metrics_path__: '/m' } },
    ]);
  });

  it("kwok's e2e-oom-kill Stage needs the trigger annotation, removes it first, then patches only status", () => {
    type Step = { patch: { type: string; subresource?: string; template: string } };
    const stage = parseYaml(OOM_KILL_STAGE) as {
      kind: string; spec: { resourceRef: unknown; selector: { matchExpressions: { jq: { key: string; operator: string; values?: string[] } }[] }; steps: Step[] };
    };
    expect(stage.kind).to.equal('Stage');
    expect(stage.spec.resourceRef).to.deep.equal({ apiGroup: 'v1', kind: 'Pod' });
    const jq = stage.spec.selector.matchExpressions.map((e) => e.jq);
    expect(jq).to.deep.include({ key: `.metadata.annotations["${OOM_KILL_ANNOTATION}"]`, operator: 'Exists' });
    expect(jq).to.deep.include({ key: '.status.phase', operator: 'In', values: ['Running'] });
    const [remove, status] = stage.spec.steps;
    expect(stage.spec.steps).to.have.length(2);
    expect(remove!.patch).to.deep.include({ type: 'merge' });
    expect(remove!.patch.subresource).to.equal(undefined);
    expect(parseYaml(remove!.patch.template)).to.deep.equal({ metadata: { annotations: { [OOM_KILL_ANNOTATION]: null } } });
    expect(status!.patch).to.deep.include({ type: 'json', subresource: 'status' });
    const ops = [...status!.patch.template.matchAll(/- op: (\w+)/g)].map((m) => m[1]);
    expect(ops).to.deep.equal(['test', 'add', 'replace', 'replace']);
  });
});
