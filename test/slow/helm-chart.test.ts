// charts/ehpa-adapter rendered with `helm template` (helm built from the Go module proxy by
// scripts/build-helm.sh) over the values matrix of test/helpers/chart-matrix.ts: `helm lint`, the properties
// each value promises, the values schema's refusals, and manifests/ being exactly the chart's default
// rendering. Schema validation of every rendered object against a real kube-apiserver is in
// test/e2e/helm-chart.test.ts. In test/slow, not test/unit: it needs helm (scripts/build-helm.sh builds it from
// the Go module proxy the first time), and the unit tier promises no network.
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'mocha';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { CHART_DIR, MANIFESTS_DIR, helmBin, helmTemplate, type RenderOptions } from '../../scripts/helm-chart.ts';
import { generatedFiles, staleFiles } from '../../scripts/gen-manifests.ts';
import { defaultMetricDefinitions, exposedSeries, scanMetricDefinitions } from '../../scripts/gen-flag-docs.ts';
import { parseFlags } from '../../src/config/flags.ts';
import { serveCommand } from '../../src/cli/serve-command.ts';
import { CHART_MATRIX, renderObjects } from '../helpers/chart-matrix.ts';

// Loose views of the objects, enough for the assertions below.
/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = KubernetesObject & { spec?: any; [k: string]: any };

const kinds = (objs: Obj[], kind: string) => objs.filter((o) => o.kind === kind);
const one = (objs: Obj[], kind: string): Obj => {
  const list = kinds(objs, kind);
  expect(list, kind).to.have.length(1);
  return list[0]!;
};
const container = (objs: Obj[]) => one(objs, 'Deployment').spec.template.spec.containers[0];
const args = (objs: Obj[]): string[] => container(objs).args;
// One `helm template` per distinct set of values (each takes a second or more on a loaded machine, and the
// tests below render the matrix several times); the tests only read the objects. A deep copy per call keeps
// one test's reading from touching another's.
const rendered = new Map<string, Obj[]>();
const render = (o: RenderOptions): Obj[] => {
  const key = JSON.stringify(o);
  if (!rendered.has(key)) rendered.set(key, renderObjects(o) as Obj[]);
  return structuredClone(rendered.get(key)!);
};
const find = (name: string) => CHART_MATRIX.find((e) => e.name === name)!.render;
const apiServiceNames = (objs: Obj[]) => kinds(objs, 'APIService').map((o) => o.metadata!.name).sort();
const ALL_APIS = ['v1beta1.custom.metrics.k8s.io', 'v1beta1.external.metrics.k8s.io', 'v1beta2.custom.metrics.k8s.io'];

/** helm template's error text when rendering must fail. */
function renderError(o: RenderOptions): string {
  try {
    helmTemplate(o);
  } catch (e) {
    return String((e as { stderr?: string }).stderr ?? e);
  }
  throw new Error(`rendering with ${JSON.stringify(o)} succeeded`);
}

describe('charts/ehpa-adapter (helm template over the values matrix)', function () {
  this.timeout(120_000);
  before(function (this: Context) {
    this.timeout(30 * 60_000); // a cold helm build (scripts/build-helm.sh)
    helmBin();
  });

  it('helm lint --strict passes, with the defaults and with every optional object on', () => {
    const helm = helmBin();
    const lint = (extra: string[]) => spawnSync(helm, ['lint', '--strict', CHART_DIR, ...extra], { encoding: 'utf8' });
    for (const extra of [[], ['--set', 'certManager.enabled=true,serviceMonitor.enabled=true,podMonitor.enabled=true,prometheusRule.enabled=true']]) {
      const r = lint(extra);
      expect(r.status, `${r.stdout}${r.stderr}`).to.equal(0);
      expect(r.stdout).to.match(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
  });

  it('helm package: the chart packs with its schema and CRD files, at the version package.json declares', () => {
    const out = mkdtempSync(join(tmpdir(), 'ehpa-chart-'));
    try {
      const r = spawnSync(helmBin(), ['package', CHART_DIR, '--destination', out], { encoding: 'utf8' });
      expect(r.status, `${r.stdout}${r.stderr}`).to.equal(0);
      const pkgVersion = (JSON.parse(readFileSync(join(CHART_DIR, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
      const tgz = join(out, `ehpa-adapter-${pkgVersion}.tgz`);
      const list = execFileSync('tar', ['-tzf', tgz], { encoding: 'utf8' }).split('\n');
      expect(list).to.include.members(['ehpa-adapter/values.schema.json', 'ehpa-adapter/templates/deployment.yaml', 'ehpa-adapter/files/crds/autoscaling.crane.io_effectivehorizontalpodautoscalers.yaml']);
      const chart = parse(readFileSync(join(CHART_DIR, 'Chart.yaml'), 'utf8')) as { version: string; appVersion: string };
      expect(chart.appVersion).to.equal(pkgVersion);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  for (const entry of CHART_MATRIX) {
    it(`${entry.name}: renders, every object named and namespaced where it must be, serve accepts the args`, () => {
      const objs = render(entry.render);
      expect(objs.length).to.be.greaterThan(10);
      const ns = entry.render.namespace ?? 'ehpa-system';
      const clusterScoped = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'APIService', 'CustomResourceDefinition', 'FlowSchema', 'PriorityLevelConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
      for (const o of objs) {
        expect(o.metadata?.name, `${o.kind} without a name`).to.be.a('string').and.not.equal('');
        if (clusterScoped.has(o.kind!)) expect(o.metadata?.namespace, `${o.kind}/${o.metadata?.name}`).to.equal(undefined);
        else if (!(o.kind === 'RoleBinding' && o.metadata?.namespace === 'kube-system')) expect(o.metadata?.namespace, `${o.kind}/${o.metadata?.name}`).to.equal(ns);
        expect(o.metadata?.labels?.['app.kubernetes.io/name'], `${o.kind}/${o.metadata?.name}`).to.equal('ehpa-adapter');
      }
      // No two objects of one kind share a name (helm would refuse to install, kubectl would merge them).
      const ids = objs.map((o) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata!.name}`);
      expect(new Set(ids).size).to.equal(ids.length);
      const f = parseFlags(serveCommand.flags, args(objs));
      expect(f['secure-port']).to.equal(6443);
      // Every file a flag names lies in a mounted volume.
      const mounts: { mountPath: string }[] = container(objs).volumeMounts;
      for (const a of args(objs)) {
        const m = /^--[a-z-]+(?:file|cert|key)=(\/.+)$/.exec(a);
        if (m) expect(mounts.some((v) => m[1]!.startsWith(`${v.mountPath}/`)), a).to.equal(true);
      }
      const volumes: string[] = one(objs, 'Deployment').spec.template.spec.volumes.map((v: { name: string }) => v.name);
      expect(mounts.map((m: any) => m.name).sort()).to.deep.equal([...volumes].sort());
    });
  }

  it('defaults: the three APIServices with insecureSkipTLSVerify (self-signed serving pair), the Prometheus URL, VPA recommender under its own name', () => {
    const objs = render({});
    expect(apiServiceNames(objs)).to.deep.equal(ALL_APIS);
    for (const a of kinds(objs, 'APIService')) {
      expect(a.spec.insecureSkipTLSVerify).to.equal(true);
      expect(a.spec.service).to.deep.equal({ name: 'ehpa-adapter', namespace: 'ehpa-system', port: 443 });
    }
    expect(kinds(objs, 'APIService').find((a) => a.spec.version === 'v1beta2')!.spec.versionPriority).to.be.greaterThan(100);
    const f = parseFlags(serveCommand.flags, args(objs));
    expect(f['prometheus-url']).to.equal('http://prometheus-k8s.monitoring.svc:9090');
    expect(f['controllers']).to.equal('ehpa,tsp,vpa-recommender');
    expect(f['recommender-name']).to.equal('ehpa-adapter');
    expect(f['cert-dir']).to.equal('/var/run/serving-cert');
    expect(f['tls-cert-file']).to.equal(undefined);
    expect(f['remote-adapter']).to.equal(undefined);
    // Five CRDs (three Crane kinds, two VPA kinds), each kept on uninstall.
    const crds = kinds(objs, 'CustomResourceDefinition');
    expect(crds.map((c) => c.metadata!.name).sort()).to.deep.equal([
      'effectivehorizontalpodautoscalers.autoscaling.crane.io',
      'substitutes.autoscaling.crane.io',
      'timeseriespredictions.prediction.crane.io',
      'verticalpodautoscalercheckpoints.autoscaling.k8s.io',
      'verticalpodautoscalers.autoscaling.k8s.io',
    ]);
    for (const c of crds) expect(c.metadata!.annotations?.['helm.sh/resource-policy']).to.equal('keep');
    for (const kind of ['ServiceMonitor', 'PodMonitor', 'PrometheusRule', 'Certificate', 'Issuer', 'Namespace']) expect(kinds(objs, kind), kind).to.have.length(0);
    expect(one(objs, 'PodDisruptionBudget').spec.minAvailable).to.equal(1);
    // One replica: no PDB, which would block every drain.
    expect(kinds(render({ set: ['replicas=1'] }), 'PodDisruptionBudget')).to.have.length(0);
    expect(parseFlags(serveCommand.flags, args(render({ setJson: ['controllers=[]', 'vpaRecommender.enabled=false'] })))['controllers']).to.equal('');
    expect(one(objs, 'Deployment').spec.replicas).to.equal(2);
  });

  it('pod security: non-root, read-only root, RuntimeDefault seccomp, all capabilities dropped, no privilege escalation', () => {
    for (const entry of CHART_MATRIX) {
      const objs = render(entry.render);
      const pod = one(objs, 'Deployment').spec.template.spec;
      expect(pod.securityContext, entry.name).to.include({ runAsNonRoot: true });
      expect(pod.securityContext.seccompProfile, entry.name).to.deep.equal({ type: 'RuntimeDefault' });
      const sc = pod.containers[0].securityContext;
      expect(sc, entry.name).to.include({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
      expect(sc.capabilities, entry.name).to.deep.equal({ drop: ['ALL'] });
    }
  });

  it('cert-manager: a Certificate for the Service, its Secret mounted as the serving pair, the CA injected into every APIService, no insecureSkipTLSVerify', () => {
    const objs = render(find('cert-manager on'));
    const certs = kinds(objs, 'Certificate');
    const serving = certs.find((c) => !c.spec.isCA)!;
    expect(serving.spec.dnsNames).to.include('ehpa-adapter.ehpa-system.svc');
    expect(serving.spec.issuerRef).to.deep.equal({ kind: 'Issuer', name: 'ehpa-adapter-ca', group: 'cert-manager.io' });
    // The issuer it names exists, and is a CA backed by the CA certificate's Secret.
    const caIssuer = kinds(objs, 'Issuer').find((i) => i.metadata!.name === 'ehpa-adapter-ca')!;
    expect(caIssuer.spec.ca.secretName).to.equal(certs.find((c) => c.spec.isCA)!.spec.secretName);
    expect(apiServiceNames(objs)).to.deep.equal(ALL_APIS);
    for (const a of kinds(objs, 'APIService')) {
      expect(a.spec).to.not.have.property('insecureSkipTLSVerify');
      expect(a.metadata!.annotations!['cert-manager.io/inject-ca-from']).to.equal(`ehpa-system/${serving.metadata!.name}`);
    }
    const vol = one(objs, 'Deployment').spec.template.spec.volumes.find((v: any) => v.name === 'serving-cert');
    expect(vol.secret.secretName).to.equal(serving.spec.secretName);
    const f = parseFlags(serveCommand.flags, args(objs));
    expect(f['tls-cert-file']).to.equal('/var/run/serving-cert/tls.crt');
    expect(f['tls-private-key-file']).to.equal('/var/run/serving-cert/tls.key');
    expect(args(objs).some((a) => a.startsWith('--cert-dir'))).to.equal(false);
    // With an issuer of the user's, the chart makes none of its own.
    const corp = render(find('cert-manager with a ClusterIssuer'));
    expect(kinds(corp, 'Issuer')).to.have.length(0);
    expect(one(corp, 'Certificate').spec.issuerRef).to.deep.equal({ kind: 'ClusterIssuer', name: 'corp-ca', group: 'cert-manager.io' });
  });

  it('own serving certificate: the Secret mounted, caBundle set, no insecureSkipTLSVerify; without caBundle it refuses to render', () => {
    const objs = render(find('own serving certificate, custom sizing'));
    for (const a of kinds(objs, 'APIService')) {
      expect(a.spec.caBundle).to.equal('Y2E=');
      expect(a.spec).to.not.have.property('insecureSkipTLSVerify');
    }
    expect(one(objs, 'Deployment').spec.template.spec.volumes.find((v: any) => v.name === 'serving-cert').secret.secretName).to.equal('ehpa-serving');
    expect(renderError({ set: ['tls.existingSecret=ehpa-serving'] })).to.match(/needs apiServices.caBundle/);
    expect(renderError({ set: ['tls.existingSecret=x', 'apiServices.caBundle=Y2E=', 'certManager.enabled=true'] })).to.match(/exclusive/);
  });

  it('each APIService is claimed by its own value', () => {
    // auto (the default) claims all three where no cluster can be asked (helm template); the lookup itself
    // is exercised against a real kube-apiserver in test/e2e/helm-chart.test.ts.
    const values = parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as { apiServices: Record<string, unknown> };
    expect(values.apiServices).to.include({ customV1beta1: 'auto', customV1beta2: 'auto', externalV1beta1: 'auto' });
    expect(apiServiceNames(render({ set: ['apiServices.customV1beta1=true'] }))).to.deep.equal(ALL_APIS);
    expect(apiServiceNames(render(find('only the external API')))).to.deep.equal(['v1beta1.external.metrics.k8s.io']);
    expect(apiServiceNames(render({ set: ['apiServices.externalV1beta1=false'] }))).to.deep.equal(['v1beta1.custom.metrics.k8s.io', 'v1beta2.custom.metrics.k8s.io']);
    expect(apiServiceNames(render({ set: ['apiServices.customV1beta1=false'] }))).to.deep.equal(['v1beta1.external.metrics.k8s.io', 'v1beta2.custom.metrics.k8s.io']);
    const exporter = render(find('controllers only, no metric API (exporter mode), own name and namespace, priority class'));
    expect(kinds(exporter, 'APIService')).to.have.length(0);
    expect(args(exporter)).to.include('--adapter=false');
    // Serving no metrics API while claiming one would leave HPAs with an unavailable APIService.
    expect(renderError({ set: ['adapter.enabled=false'] })).to.match(/serves no metrics API/);
  });

  it('VPA recommender off: not in --controllers, no recommender name, no VPA CRDs (auto)', () => {
    const objs = render(find('VPA recommender off'));
    const f = parseFlags(serveCommand.flags, args(objs));
    expect(f['controllers']).to.equal('ehpa,tsp');
    expect(args(objs).some((a) => a.startsWith('--recommender-name'))).to.equal(false);
    expect(kinds(objs, 'CustomResourceDefinition').map((c) => c.spec.group)).to.not.include('autoscaling.k8s.io');
    // A name of one's own is passed through; "always" installs the VPA CRDs even without the recommender.
    expect(args(render({ set: ['vpaRecommender.name=default'] }))).to.include('--recommender-name=default');
    expect(kinds(render({ set: ['vpaRecommender.enabled=false', 'vpaCrds.install=always'] }), 'CustomResourceDefinition')).to.have.length(5);
  });

  it('CRDs off: none rendered; VPA CRDs are switched separately', () => {
    expect(kinds(render(find('CRDs off')), 'CustomResourceDefinition')).to.have.length(0);
    const vpaOnly = kinds(render({ set: ['crds.install=false'] }), 'CustomResourceDefinition');
    expect(vpaOnly.map((c) => c.spec.group)).to.deep.equal(['autoscaling.k8s.io', 'autoscaling.k8s.io']);
    expect(kinds(render({ set: ['vpaCrds.install=never'] }), 'CustomResourceDefinition')).to.have.length(3);
    // crds.keep=false drops the keep policy.
    for (const c of kinds(render({ set: ['crds.keep=false'] }), 'CustomResourceDefinition')) expect(c.metadata!.annotations?.['helm.sh/resource-policy']).to.equal(undefined);
  });

  it('sizing presets set requests, limits and the V8 heap from docs/sizing.md; custom takes resources as given', () => {
    const heap = (objs: Obj[]) => container(objs).env.find((e: any) => e.name === 'NODE_OPTIONS')?.value;
    const small = render({});
    expect(container(small).resources).to.deep.equal({ requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '1Gi' } });
    expect(heap(small)).to.equal('--max-old-space-size=768');
    const medium = render({ set: ['sizing=medium'] });
    expect(container(medium).resources).to.deep.equal({ requests: { cpu: '1', memory: '768Mi' }, limits: { memory: '1Gi' } });
    const large = render(find('large sizing'));
    expect(container(large).resources).to.deep.equal({ requests: { cpu: '2', memory: '1Gi' }, limits: { memory: '1536Mi' } });
    expect(heap(large)).to.equal('--max-old-space-size=1024');
    const custom = render(find('own serving certificate, custom sizing'));
    expect(container(custom).resources).to.deep.equal({ requests: { cpu: '500m', memory: '640Mi' }, limits: { memory: '900Mi' } });
    expect(heap(custom)).to.equal('--max-old-space-size=640');
    // The heap stays under the memory limit in every preset (the rest is workers and native memory).
    for (const [objs, limitMi] of [[small, 1024], [medium, 1024], [large, 1536]] as const) {
      expect(Number(/=(\d+)/.exec(heap(objs))![1]) / limitMi).to.be.at.most(0.75);
    }
    // The `resources` value is ignored by a preset (it would silently undercut it otherwise).
    expect(container(render({ set: ['resources.requests.cpu=1m'] })).resources.requests.cpu).to.equal('250m');
  });

  it('remote adapter: --remote-adapter and its CA from the ConfigMap, and the RBAC the remote checks our token against', () => {
    const objs = render(find('remote adapter set'));
    const f = parseFlags(serveCommand.flags, args(objs));
    expect(f['remote-adapter']).to.equal('https://prometheus-adapter.monitoring.svc:443');
    expect(f['remote-adapter-ca-file']).to.equal('/var/run/remote-adapter-ca/ca.crt');
    const vol = one(objs, 'Deployment').spec.template.spec.volumes.find((v: any) => v.name === 'remote-adapter-ca');
    expect(vol.configMap.name).to.equal('remote-adapter-ca');
    const crb = kinds(objs, 'ClusterRoleBinding').find((b) => b.metadata!.name === 'ehpa-adapter:remote-adapter-metrics')!;
    expect(crb.roleRef.name).to.equal('ehpa-adapter:metrics-reader');
    expect(crb.subjects).to.deep.equal([{ kind: 'ServiceAccount', name: 'ehpa-adapter', namespace: 'ehpa-system' }]);
    expect(kinds(render({}), 'ClusterRoleBinding').map((b) => b.metadata!.name)).to.not.include('ehpa-adapter:remote-adapter-metrics');
  });

  it('Prometheus auth and TLS: each credential a file from its Secret, none on the command line', () => {
    const objs = render(find('secured Prometheus'));
    const f = parseFlags(serveCommand.flags, args(objs));
    expect(f['prometheus-url']).to.equal('https://prometheus.monitoring.svc:9091');
    expect(f['prometheus-timeout']).to.equal(90_000);
    expect(f['prometheus-header']).to.equal('X-Scope-OrgID=team-a');
    const volumes = one(objs, 'Deployment').spec.template.spec.volumes;
    const mounts = container(objs).volumeMounts;
    const secretAt = (file: string) => {
      const m = mounts.find((v: any) => file.startsWith(`${v.mountPath}/`));
      return volumes.find((v: any) => v.name === m.name).secret.secretName;
    };
    expect(secretAt(f['prometheus-token-file'] as string)).to.equal('prom-token');
    expect(secretAt(f['prometheus-ca-file'] as string)).to.equal('prom-ca');
    expect(secretAt(f['prometheus-client-cert'] as string)).to.equal('prom-client');
    expect(secretAt(f['prometheus-client-key'] as string)).to.equal('prom-client');
    const basic = render(find('basic auth to Prometheus'));
    const fb = parseFlags(serveCommand.flags, args(basic));
    expect(fb['prometheus-username']).to.equal('ehpa');
    expect(fb['prometheus-password-file']).to.match(/^\/var\/run\/prometheus\/password\/password$/);
    expect(renderError({ set: ['prometheus.basicAuth.username=ehpa'] })).to.match(/passwordSecretName/);
  });

  it('network policy: the metrics port admits each scraper namespace by its immutable name label; 6443 stays open', () => {
    const pol = one(render(find('controllers only, no metric API (exporter mode), own name and namespace, priority class')), 'NetworkPolicy');
    const metrics = pol.spec.ingress.find((r: any) => r.ports.some((p: any) => p.port === 'http-metrics'));
    expect(metrics.from).to.deep.equal([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'observability' } } },
    ]);
    expect(pol.spec.ingress.find((r: any) => r.ports.some((p: any) => p.port === 'https')).from).to.equal(undefined);
    // No scraper namespace: no rule admits the metrics port at all.
    const closed = one(render({ setJson: ['networkPolicy.scraperNamespaces=[]'] }), 'NetworkPolicy');
    expect(closed.spec.ingress.flatMap((r: any) => r.ports.map((p: any) => p.port))).to.deep.equal(['https']);
    expect(kinds(render({ set: ['networkPolicy.enabled=false'] }), 'NetworkPolicy')).to.have.length(0);
  });

  it('own release name and namespace: every reference follows (Service, APIServices, RBAC subjects, cert SANs)', () => {
    const objs = render(find('controllers only, no metric API (exporter mode), own name and namespace, priority class'));
    expect(one(objs, 'Deployment').metadata!.name).to.equal('autoscaling-ehpa-adapter');
    expect(one(objs, 'Namespace').metadata!.name).to.equal('platform');
    expect(one(objs, 'Namespace').metadata!.labels!['pod-security.kubernetes.io/enforce']).to.equal('restricted');
    expect(one(objs, 'Deployment').spec.template.spec.priorityClassName).to.equal('system-cluster-critical');
    const f = parseFlags(serveCommand.flags, args(objs));
    expect(f['adapter-service-name']).to.equal('autoscaling-ehpa-adapter');
    expect(f['adapter-service-namespace']).to.equal('platform');
    for (const b of [...kinds(objs, 'ClusterRoleBinding'), ...kinds(objs, 'RoleBinding')]) {
      for (const s of b.subjects.filter((x: any) => x.kind === 'ServiceAccount' && x.namespace !== 'kube-system')) expect(s).to.include({ name: 'autoscaling-ehpa-adapter', namespace: 'platform' });
    }
    const cm = render({ release: 'autoscaling', namespace: 'platform', set: ['certManager.enabled=true'] });
    expect(kinds(cm, 'Certificate').find((c) => !c.spec.isCA)!.spec.dnsNames).to.include('autoscaling-ehpa-adapter.platform.svc');
    for (const a of kinds(cm, 'APIService')) expect(a.spec.service).to.deep.equal({ name: 'autoscaling-ehpa-adapter', namespace: 'platform', port: 443 });
  });

  it('monitoring: ServiceMonitor and PodMonitor select the pods on http-metrics with the EHPA labels honoured', () => {
    const objs = render(find('monitoring on'));
    const sm = one(objs, 'ServiceMonitor');
    const svc = one(objs, 'Service');
    for (const [k, v] of Object.entries(sm.spec.selector.matchLabels as Record<string, string>)) expect(svc.metadata!.labels![k]).to.equal(v);
    expect(svc.spec.ports.map((p: any) => p.name)).to.include(sm.spec.endpoints[0].port);
    expect(sm.spec.endpoints[0].honorLabels).to.equal(true);
    expect(sm.metadata!.labels!['release']).to.equal('kube-prometheus');
    const pm = one(objs, 'PodMonitor');
    expect(pm.spec.selector.matchLabels).to.deep.equal(one(objs, 'Deployment').spec.template.metadata.labels);
    expect(container(objs).ports.map((p: any) => p.name)).to.include(pm.spec.podMetricsEndpoints[0].port);
  });

  it('PrometheusRule: the alerts that matter, every series they read is one serve exports, and promtool accepts them', async function () {
    const rule = one(render(find('monitoring on')), 'PrometheusRule');
    const rules: { alert: string; expr: string; for: string; labels: { severity: string } }[] = rule.spec.groups.flatMap((g: any) => g.rules);
    expect(rules.map((r) => r.alert)).to.include.members([
      'EhpaAdapterMetricsApiErrors',
      'EhpaAdapterNoLeader',
      'EhpaAdapterForecastsNotServed',
      'EhpaAdapterPredictionSteppedAside',
      'EhpaAdapterEventLoopLag',
    ]);
    const exported = new Set([...scanMetricDefinitions(), ...(await defaultMetricDefinitions())].flatMap(exposedSeries));
    // A step aside is a decision (its own info alert), not a forecast failure: the failure alert leaves it
    // out, by the reason the adapter actually counts it under.
    const notServed = rules.find((r) => r.alert === 'EhpaAdapterForecastsNotServed')!;
    expect(notServed.expr).to.include('reason!="PredictionSteppedAside"');
    expect(readFileSync(join(CHART_DIR, '..', '..', 'src', 'metric-values', 'forecast-value.ts'), 'utf8')).to.include("reason === 'PredictionSteppedAside'");
    for (const r of rules) {
      const used = r.expr.match(/\b(?:ehpa_adapter|crane)_[a-z0-9_]+/g) ?? [];
      expect(used.length, r.alert).to.be.greaterThan(0);
      for (const m of used) expect(exported.has(m), `${r.alert} reads ${m}, which serve does not export`).to.equal(true);
      expect(['critical', 'warning', 'info']).to.include(r.labels.severity);
    }
    // promtool (Debian's, installed by scripts/setup.sh) parses every expression and checks the file's shape.
    const promtool = spawnSync('promtool', ['--version']);
    if (promtool.error) this.skip();
    const dir = mkdtempSync(join(tmpdir(), 'ehpa-rules-'));
    try {
      writeFileSync(join(dir, 'rules.yaml'), stringify({ groups: rule.spec.groups }));
      const r = spawnSync('promtool', ['check', 'rules', join(dir, 'rules.yaml')], { encoding: 'utf8' });
      expect(r.status, `${r.stdout}${r.stderr}`).to.equal(0);
      expect(r.stdout).to.match(new RegExp(`SUCCESS: ${rules.length} rules found`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('API Priority and Fairness: every status the controllers may write queues in a small level of its own, per namespace', () => {
    const objs = render({});
    const [plc] = kinds(objs, 'PriorityLevelConfiguration');
    const [fs] = kinds(objs, 'FlowSchema');
    expect(plc?.spec.type).to.equal('Limited');
    expect(plc?.spec.limited).to.deep.include({ lendablePercent: 0, borrowingLimitPercent: 0 });
    expect(plc?.spec.limited.limitResponse.type).to.equal('Queue');
    expect(fs?.spec.priorityLevelConfiguration.name).to.equal(plc?.metadata?.name);
    expect(fs?.spec.distinguisherMethod.type).to.equal('ByNamespace');
    // Behind kube-controller-manager's schema (800), so the HPA controller keeps its own level.
    expect(fs?.spec.matchingPrecedence).to.be.greaterThan(800);
    // The subject is the Deployment's own service account.
    const [deploy] = kinds(objs, 'Deployment');
    const [rule] = fs?.spec.rules as { subjects: { serviceAccount: { name: string; namespace: string } }[]; resourceRules: { verbs: string[]; apiGroups: string[]; resources: string[] }[] }[];
    expect(rule!.subjects[0]!.serviceAccount).to.deep.equal({ name: deploy!.spec.template.spec.serviceAccountName, namespace: 'ehpa-system' });
    // Every status subresource the controllers' ClusterRole lets them update or patch is covered.
    const written = kinds(objs, 'ClusterRole')
      .flatMap((r) => (r.rules ?? []) as { apiGroups: string[]; resources: string[]; verbs: string[] }[])
      .filter((r) => r.verbs.some((v) => v === 'update' || v === 'patch'))
      .flatMap((r) => r.resources.filter((x) => x.endsWith('/status') && !x.startsWith('substitutes')).flatMap((x) => r.apiGroups.map((g) => `${g}/${x}`)));
    expect(written.length).to.be.greaterThan(2);
    const covered = new Set(rule!.resourceRules.flatMap((r) => r.resources.flatMap((x) => r.apiGroups.map((g) => `${g}/${x}`))));
    for (const w of written) expect(covered.has(w), w).to.equal(true);
    expect(kinds(render({ set: ['apiPriorityAndFairness.enabled=false'] }), 'FlowSchema')).to.have.length(0);
  });

  it('admission policy: Crane\'s TSP window floor, on create only, bound with Deny; admissionPolicy.enabled=false drops it', () => {
    const objs = render({});
    const policy = one(objs, 'ValidatingAdmissionPolicy');
    const binding = one(objs, 'ValidatingAdmissionPolicyBinding');
    expect(policy.spec.matchConstraints.resourceRules).to.deep.equal([{ apiGroups: ['prediction.crane.io'], apiVersions: ['*'], operations: ['CREATE'], resources: ['timeseriespredictions'] }]);
    expect(policy.spec.validations.map((v: { expression: string }) => v.expression)).to.deep.equal(['has(object.spec.predictionWindowSeconds) && object.spec.predictionWindowSeconds >= 600']);
    expect(policy.spec.failurePolicy).to.equal('Fail');
    expect(binding.spec).to.deep.equal({ policyName: policy.metadata!.name, validationActions: ['Deny'] });
    const off = render({ set: ['admissionPolicy.enabled=false'] });
    expect(kinds(off, 'ValidatingAdmissionPolicy').length + kinds(off, 'ValidatingAdmissionPolicyBinding').length).to.equal(0);
  });

  it('values.schema.json refuses what would render a broken install', () => {
    expect(renderError({ set: ['sizing=huge'] })).to.match(/sizing/);
    expect(renderError({ set: ['prometheus.url=http://user:pass@prometheus:9090'] })).to.match(/prometheus\.url|url/);
    expect(renderError({ set: ['nosuchkey=1'] })).to.match(/nosuchkey|additional properties/i);
    expect(renderError({ set: ['apiServices.customV1beta1=maybe'] })).to.match(/customV1beta1/);
    expect(renderError({ set: ['vpaCrds.install=sometimes'] })).to.match(/vpaCrds|install/);
    expect(renderError({ setJson: ['controllers=["ehpa","hpa"]'] })).to.match(/controllers/);
    expect(renderError({ set: ['remoteAdapter.url=http://plain:80'] })).to.match(/remoteAdapter|url/);
    // The VPA recommender is switched by vpaRecommender.enabled only, so the two cannot disagree.
    expect(renderError({ setJson: ['controllers=["ehpa","vpa-recommender"]'] })).to.match(/controllers/);
    expect(renderError({ setJson: ['extraArgs=["forecast-workers=3"]'] })).to.match(/extraArgs/);
  });

  it('manifests/ is the chart rendered with its defaults (scripts/gen-manifests.ts), and the chart carries crds/ unchanged', () => {
    expect(staleFiles(), 'run: node --import tsx scripts/gen-manifests.ts').to.deep.equal([]);
    // The kustomization installs exactly the generated files.
    const k = parse(readFileSync(join(MANIFESTS_DIR, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
    const generated = [...generatedFiles().keys()].filter((p) => p.startsWith(`${MANIFESTS_DIR}/`)).map((p) => p.slice(MANIFESTS_DIR.length + 1));
    expect([...k.resources].sort()).to.deep.equal(generated.sort());
  });

  it('gen-manifests --check fails on a hand edit of a generated file (checked on a copy of manifests/)', () => {
    const script = join(CHART_DIR, '..', '..', 'scripts', 'gen-manifests.ts');
    const copy = mkdtempSync(join(tmpdir(), 'ehpa-manifests-'));
    try {
      cpSync(MANIFESTS_DIR, copy, { recursive: true });
      const env = { ...process.env, EHPA_MANIFESTS_DIR: copy };
      expect(execFileSync(process.execPath, ['--import', 'tsx', script, '--check'], { encoding: 'utf8', env })).to.equal('');
      const path = join(copy, 'service.yaml');
      writeFileSync(path, readFileSync(path, 'utf8').replace('port: 443', 'port: 444'));
      const r = spawnSync(process.execPath, ['--import', 'tsx', script, '--check'], { encoding: 'utf8', env });
      expect(r.status).to.equal(1);
      expect(r.stderr).to.match(/service\.yaml/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
