// The values combinations the chart is rendered with in test/slow/helm-chart.test.ts (properties)
// and test/e2e/helm-chart.test.ts (every object through server-side dry run on a real kube-apiserver).
import type { KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { helmTemplate, type RenderOptions } from '../../scripts/helm-chart.ts';

export interface MatrixEntry {
  name: string;
  render: RenderOptions;
}

export const CHART_MATRIX: MatrixEntry[] = [
  { name: 'defaults', render: {} },
  { name: 'cert-manager on', render: { set: ['certManager.enabled=true'] } },
  { name: 'cert-manager with a ClusterIssuer', render: { set: ['certManager.enabled=true', 'certManager.issuerRef.kind=ClusterIssuer', 'certManager.issuerRef.name=corp-ca'] } },
  { name: 'monitoring on', render: { set: ['serviceMonitor.enabled=true', 'podMonitor.enabled=true', 'prometheusRule.enabled=true', 'serviceMonitor.labels.release=kube-prometheus'] } },
  { name: 'only the external API', render: { set: ['apiServices.customV1beta1=false', 'apiServices.customV1beta2=false'] } },
  { name: 'VPA recommender off', render: { set: ['vpaRecommender.enabled=false'] } },
  { name: 'CRDs off', render: { set: ['crds.install=false', 'vpaCrds.install=never'] } },
  { name: 'large sizing', render: { set: ['sizing=large'] } },
  { name: 'remote adapter set', render: { set: ['remoteAdapter.url=https://prometheus-adapter.monitoring.svc:443', 'remoteAdapter.caConfigMap=remote-adapter-ca'] } },
  {
    name: 'secured Prometheus',
    render: {
      set: [
        'prometheus.url=https://prometheus.monitoring.svc:9091',
        'prometheus.bearerToken.secretName=prom-token',
        'prometheus.ca.secretName=prom-ca',
        'prometheus.clientCert.secretName=prom-client',
        'prometheus.headers.X-Scope-OrgID=team-a',
        'prometheus.timeout=90s',
      ],
    },
  },
  { name: 'basic auth to Prometheus', render: { set: ['prometheus.basicAuth.username=ehpa', 'prometheus.basicAuth.passwordSecretName=prom-basic'] } },
  {
    name: 'controllers only, no metric API (exporter mode), own name and namespace, priority class',
    render: {
      release: 'autoscaling',
      namespace: 'platform',
      set: ['adapter.enabled=false', 'apiServices.customV1beta1=false', 'apiServices.customV1beta2=false', 'apiServices.externalV1beta1=false', 'priorityClassName=system-cluster-critical', 'namespace.create=true'],
      setJson: ['networkPolicy.scraperNamespaces=["monitoring","observability"]'],
    },
  },
  {
    name: 'own serving certificate, custom sizing',
    render: {
      set: ['tls.existingSecret=ehpa-serving', 'apiServices.caBundle=Y2E=', 'sizing=custom', 'resources.requests.cpu=500m', 'resources.requests.memory=640Mi', 'resources.limits.memory=900Mi', 'maxOldSpaceSizeMi=640'],
    },
  },
];

/** The rendered objects of one entry (empty documents dropped). */
export function renderObjects(o: RenderOptions): KubernetesObject[] {
  return parseAllDocuments(helmTemplate(o))
    .map((d) => d.toJS() as KubernetesObject | null)
    .filter((x): x is KubernetesObject => x !== null && typeof x === 'object');
}
