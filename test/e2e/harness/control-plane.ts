// etcd, kube-apiserver and kube-controller-manager on loopback. Each start function returns the managed
// process once the component answers its health endpoint; the argument lists are kept so a component can
// be restarted with exactly the same configuration (same ports, same data dir).
import { mkdir } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { startProcess, waitFor, type ManagedProcess } from './processes.ts';
import type { ClusterPki } from './certificates.ts';
import type { RestClient } from './rest.ts';

export interface EtcdConfig {
  binary: string;
  dataDir: string;
  clientPort: number;
  peerPort: number;
  logDir: string;
}

export function etcdUrl(cfg: EtcdConfig): string {
  return `http://127.0.0.1:${cfg.clientPort}`;
}

export async function startEtcd(cfg: EtcdConfig): Promise<ManagedProcess> {
  await mkdir(cfg.dataDir, { recursive: true });
  const client = etcdUrl(cfg);
  const peer = `http://127.0.0.1:${cfg.peerPort}`;
  const proc = startProcess({
    name: 'etcd',
    command: cfg.binary,
    logDir: cfg.logDir,
    args: [
      '--name=e2e', `--data-dir=${cfg.dataDir}`,
      `--listen-client-urls=${client}`, `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`, `--initial-advertise-peer-urls=${peer}`, `--initial-cluster=e2e=${peer}`,
      // Test data is disposable; skipping fsync keeps etcd from dominating a 2-core machine's I/O.
      '--unsafe-no-fsync=true', '--log-level=warn',
    ],
  });
  await waitFor('etcd /health', async () => {
    const r = await fetch(`${client}/health`);
    return r.ok && ((await r.json()) as { health?: string }).health === 'true';
  }, { process: proc, timeoutMs: 60_000 });
  return proc;
}

export interface ApiserverConfig {
  binary: string;
  port: number;
  etcdUrl: string;
  pki: ClusterPki;
  certDir: string;
  logDir: string;
  extraArgs?: string[];
}

export function apiserverArgs(cfg: ApiserverConfig): string[] {
  const p = cfg.pki;
  return [
    `--etcd-servers=${cfg.etcdUrl}`,
    '--bind-address=127.0.0.1', '--advertise-address=127.0.0.1', `--secure-port=${cfg.port}`,
    `--cert-dir=${cfg.certDir}`,
    `--tls-cert-file=${p.apiserver.certPath}`, `--tls-private-key-file=${p.apiserver.keyPath}`,
    `--client-ca-file=${p.ca.certPath}`,
    '--authorization-mode=Node,RBAC',
    '--service-cluster-ip-range=10.0.0.0/24',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${p.serviceAccountPubPath}`,
    `--service-account-signing-key-file=${p.serviceAccountKeyPath}`,
    // The aggregation layer: kube-apiserver authenticates to aggregated servers with the front-proxy client
    // cert and asserts the caller's identity in X-Remote-* headers; it publishes these settings in
    // kube-system/extension-apiserver-authentication for the servers to read.
    `--requestheader-client-ca-file=${p.frontProxyCa.certPath}`,
    '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${p.frontProxyClient.certPath}`,
    `--proxy-client-key-file=${p.frontProxyClient.keyPath}`,
    // Resolve APIService backends through their Service (ExternalName -> localhost), not endpoints.
    '--enable-aggregator-routing=false',
    '--allow-privileged=true',
    // Endpoints may not hold loopback addresses, so the `kubernetes` Service cannot list 127.0.0.1.
    '--endpoint-reconciler-type=none',
    '--v=1',
    ...(cfg.extraArgs ?? []),
  ];
}

export async function startApiserver(cfg: ApiserverConfig, admin: RestClient): Promise<ManagedProcess> {
  await mkdir(cfg.certDir, { recursive: true });
  const proc = startProcess({ name: 'kube-apiserver', command: cfg.binary, args: apiserverArgs(cfg), logDir: cfg.logDir });
  await waitFor('kube-apiserver /readyz', async () => (await admin.get('/readyz')).status === 200, { process: proc, timeoutMs: 180_000, intervalMs: 300 });
  return proc;
}

export interface ControllerManagerConfig {
  binary: string;
  kubeconfigPath: string;
  port: number;
  pki: ClusterPki;
  logDir: string;
  hpaSyncPeriod: string;
  hpaDownscaleStabilization: string;
  /**
   * true: each controller gets its own service-account token (kubeadm's setting); the HPA is then
   * system:serviceaccount:kube-system:horizontal-pod-autoscaler. false: all act as system:kube-controller-manager.
   */
  useServiceAccountCredentials: boolean;
  /** Controllers beyond CONTROLLERS, e.g. NODE_CONTROLLERS when kwok plays the nodes. */
  extraControllers?: readonly string[];
  extraArgs?: string[];
}

/** Controllers the harness runs: workloads, the real HPA, garbage collection, namespaces, service accounts. */
export const CONTROLLERS = [
  'deployment-controller', 'replicaset-controller', 'horizontal-pod-autoscaler-controller',
  'garbage-collector-controller', 'namespace-controller', 'serviceaccount-controller',
  'serviceaccount-token-controller', 'root-ca-certificate-publisher-controller',
  // Folds aggregate-to-edit/view ClusterRoles (manifests/rbac-tenant-roles.yaml) into the built-in roles.
  'clusterrole-aggregation-controller',
];

/**
 * With --use-service-account-credentials=false every controller acts as system:kube-controller-manager,
 * whose bootstrap role only reads. These bootstrap controller roles give it what each loop we run needs;
 * `system:controller:horizontal-pod-autoscaler` includes get/list on custom.metrics.k8s.io and
 * external.metrics.k8s.io, so the HPA reads metrics exactly as it does in a real cluster.
 */
export const CONTROLLER_MANAGER_ROLES = [
  'system:controller:deployment-controller', 'system:controller:replicaset-controller',
  'system:controller:horizontal-pod-autoscaler', 'system:controller:generic-garbage-collector',
  'system:controller:namespace-controller', 'system:controller:service-account-controller',
  'system:controller:root-ca-cert-publisher',
];

/**
 * With real (kwok) Nodes: kube-apiserver's TaintNodesByCondition admission taints every new Node
 * `node.kubernetes.io/not-ready:NoSchedule`, and only the node lifecycle controller lifts it once the Node
 * reports Ready (k8s.io/kubernetes v1.34 pkg/controller/nodelifecycle), so it runs too, with its role.
 */
export const NODE_CONTROLLERS = ['node-lifecycle-controller'] as const;
export const NODE_CONTROLLER_ROLES = ['system:controller:node-controller'] as const;

export async function grantControllerManager(admin: RestClient, extraRoles: readonly string[] = []): Promise<void> {
  for (const role of [...CONTROLLER_MANAGER_ROLES, ...extraRoles]) {
    const name = `ehpa-e2e:kcm:${role.replace('system:controller:', '')}`;
    const body = {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:kube-controller-manager' }],
    };
    // The bootstrap roles appear a moment after /readyz on a fresh etcd; retry until the bind sticks.
    await waitFor(`ClusterRoleBinding ${name}`, async () => {
      const r = await admin.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { body });
      return r.status === 201 || r.status === 409;
    }, { timeoutMs: 60_000 });
  }
}

export async function startControllerManager(cfg: ControllerManagerConfig): Promise<ManagedProcess> {
  const proc = startProcess({
    name: 'kube-controller-manager',
    command: cfg.binary,
    logDir: cfg.logDir,
    args: [
      `--kubeconfig=${cfg.kubeconfigPath}`,
      `--authentication-kubeconfig=${cfg.kubeconfigPath}`, `--authorization-kubeconfig=${cfg.kubeconfigPath}`,
      '--bind-address=127.0.0.1', `--secure-port=${cfg.port}`,
      `--cert-dir=${join(cfg.pki.dir, 'kcm-serving')}`,
      '--leader-elect=false',
      `--controllers=${[...CONTROLLERS, ...(cfg.extraControllers ?? [])].join(',')}`,
      `--use-service-account-credentials=${cfg.useServiceAccountCredentials}`,
      `--root-ca-file=${cfg.pki.ca.certPath}`,
      `--service-account-private-key-file=${cfg.pki.serviceAccountKeyPath}`,
      `--horizontal-pod-autoscaler-sync-period=${cfg.hpaSyncPeriod}`,
      `--horizontal-pod-autoscaler-downscale-stabilization=${cfg.hpaDownscaleStabilization}`,
      '--concurrent-deployment-syncs=5', '--concurrent-replicaset-syncs=5',
      '--v=2',
      ...(cfg.extraArgs ?? []),
    ],
  });
  // /healthz is always allowed on kcm's secure port; its serving cert is self-signed, so skip verification.
  await waitFor('kube-controller-manager /healthz', async () => (await insecureGet(`https://127.0.0.1:${cfg.port}/healthz`)) === 200,
    { process: proc, timeoutMs: 120_000, intervalMs: 500 });
  return proc;
}

/** GET `url` without verifying the server (self-signed serving certs); resolves with the status code. */
export function insecureGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}
