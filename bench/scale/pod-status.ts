// The status a kubelet writes once a pod's containers run (Running, Ready, pod IP, one running container
// status each). The scale bench makes tens of thousands of pods without nodes (the harness with
// `kubelet: false`) and writes this status itself, so the EHPA controllers and the HPA's metrics see
// ready pods; nothing else in the project writes pod status by hand (the e2e suites' pods run on kwok).

interface Pod {
  metadata: { name: string; uid?: string };
  spec: { containers: { name: string; image?: string }[] };
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
