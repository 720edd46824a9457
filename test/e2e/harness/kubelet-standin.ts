// Plays the nodes' part without a kubelet: every pod that is not yet Running+Ready (and not being deleted)
// gets the status a kubelet would write after starting its containers. Pods stay unscheduled
// (spec.nodeName empty), which also makes kube-apiserver delete them at once instead of waiting for a
// kubelet to confirm a graceful deletion. It polls instead of watching so it survives apiserver restarts.
import type { RestClient } from './rest.ts';

interface ContainerSpec {
  name: string;
  image?: string;
}

interface Pod {
  metadata: { name: string; namespace: string; resourceVersion?: string; deletionTimestamp?: string; uid?: string };
  spec: { containers: ContainerSpec[] };
  status?: {
    phase?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: ContainerStatus[];
  };
}

interface ContainerStatus {
  name: string;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
  state: Record<string, unknown>;
  lastState: Record<string, unknown>;
}

export interface KubeletStandin {
  /**
   * Record a terminated previous run (default reason OOMKilled, exit 137) and a restart on a container
   * (on kwok: `cluster.kwok.oomKill`). A kubelet's eviction Event: kubelet-events.ts `recordEviction`, for
   * either kind of node.
   */
  terminateContainer(namespace: string, pod: string, container: string, opts?: { reason?: string; exitCode?: number }): Promise<void>;
  /** Number of status patches written so far. */
  readonly patches: number;
  stop(): Promise<void>;
}

export interface KubeletStandinOptions {
  /** Which namespaces to act in (default: every namespace except kube-*). */
  namespaces?: (ns: string) => boolean;
  intervalMs?: number;
  /** Clock, injectable for determinism in callers that care. */
  now?: () => Date;
  onError?: (err: unknown) => void;
}

function isReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

let ipCounter = 1;
function nextPodIp(): string {
  const n = ipCounter++;
  return `10.244.${(n >> 8) & 255}.${n & 255}`;
}

export function runningStatus(pod: Pod, now: Date): Record<string, unknown> {
  const t = now.toISOString().replace(/\.\d+Z$/, 'Z');
  const ip = nextPodIp();
  const cond = (type: string) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: t });
  return {
    phase: 'Running',
    conditions: [cond('PodReadyToStartContainers'), cond('Initialized'), cond('Ready'), cond('ContainersReady'), cond('PodScheduled')],
    hostIP: '127.0.0.1',
    hostIPs: [{ ip: '127.0.0.1' }],
    podIP: ip,
    podIPs: [{ ip }],
    startTime: t,
    containerStatuses: pod.spec.containers.map((c, i) => ({
      name: c.name,
      ready: true,
      started: true,
      restartCount: 0,
      image: c.image ?? 'unknown',
      imageID: '',
      containerID: `containerd://${(pod.metadata.uid ?? pod.metadata.name).replace(/-/g, '')}${i}`,
      state: { running: { startedAt: t } },
      lastState: {},
    })),
  };
}

export function startKubeletStandin(api: RestClient, opts: KubeletStandinOptions = {}): KubeletStandin {
  const inScope = opts.namespaces ?? ((ns: string) => !ns.startsWith('kube-'));
  const now = opts.now ?? (() => new Date());
  let stopped = false;
  let patches = 0;

  async function pass(): Promise<void> {
    const r = await api.get('/api/v1/pods');
    if (r.status !== 200) throw new Error(`list pods: ${r.status}`);
    const pods = (r.json as { items: Pod[] }).items;
    for (const pod of pods) {
      if (!inScope(pod.metadata.namespace) || pod.metadata.deletionTimestamp || isReady(pod)) continue;
      if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
      const path = `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}/status`;
      const res = await api.request('PATCH', path, {
        body: { metadata: { resourceVersion: pod.metadata.resourceVersion }, status: runningStatus(pod, now()) },
        contentType: 'application/merge-patch+json',
      });
      // 404/409: the pod went away or changed since the list; the next pass sees the new state.
      if (res.status === 200) patches++;
      else if (res.status !== 404 && res.status !== 409) throw new Error(`patch ${path}: ${res.status} ${res.body.slice(0, 300)}`);
    }
  }

  const loop = (async () => {
    while (!stopped) {
      try {
        await pass();
      } catch (err) {
        // kube-apiserver restarts are part of the tests: keep going.
        opts.onError?.(err);
      }
      await new Promise((r) => setTimeout(r, opts.intervalMs ?? 300));
    }
  })();

  return {
    get patches() {
      return patches;
    },
    async terminateContainer(namespace, podName, container, o = {}) {
      const path = `/api/v1/namespaces/${namespace}/pods/${podName}`;
      for (let attempt = 0; attempt < 10; attempt++) {
        const pod = await api.getJson<Pod>(path);
        const statuses = pod.status?.containerStatuses;
        const cs = statuses?.find((c) => c.name === container);
        if (!statuses || !cs) throw new Error(`${namespace}/${podName}: container ${container} has no status yet`);
        const finished = now();
        const started = new Date(finished.getTime() - 60_000);
        const iso = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');
        cs.lastState = {
          terminated: {
            exitCode: o.exitCode ?? 137, reason: o.reason ?? 'OOMKilled',
            startedAt: iso(started), finishedAt: iso(finished), containerID: cs.containerID,
          },
        };
        cs.restartCount += 1;
        cs.state = { running: { startedAt: iso(finished) } };
        const res = await api.request('PUT', `${path}/status`, { body: pod });
        if (res.status === 200) {
          patches++;
          return;
        }
        if (res.status !== 409) throw new Error(`update ${path}/status: ${res.status} ${res.body.slice(0, 300)}`);
      }
      throw new Error(`${namespace}/${podName}: status kept conflicting`);
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
