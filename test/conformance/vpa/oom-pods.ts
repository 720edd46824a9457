// Pod pairs for the oom_observer vectors (upstream input/oom/observer_test.go TestOOMObserverOnUpdate),
// keyed by the vectors' "old|new" container-state descriptions.
import { oomsFromPodUpdate, type OomInfo, type PodJSON } from '../../../src/vpa/input/index.ts';

const FINISHED = '2018-02-23T13:38:48Z';

interface StatusSpec {
  state: 'running' | 'terminated' | 'waiting';
  reason?: string;
  restartCount?: number;
  lastReason?: string;
  statusMemory?: string;
}

function pod(spec: string | null, s: StatusSpec): PodJSON {
  const containerStatus: Record<string, unknown> = {
    name: 'Name11',
    restartCount: s.restartCount ?? 0,
    state:
      s.state === 'running'
        ? { running: {} }
        : s.state === 'waiting'
          ? { waiting: { reason: 'CrashLoopBackOff' } }
          : { terminated: { reason: s.reason, finishedAt: FINISHED } },
  };
  if (s.lastReason) containerStatus.lastState = { terminated: { reason: s.lastReason, finishedAt: FINISHED } };
  if (s.statusMemory) containerStatus.resources = { requests: { memory: s.statusMemory } };
  return {
    metadata: { name: 'Pod1', namespace: 'mockNamespace' },
    spec: { containers: [{ name: 'Name11', resources: spec === null ? {} : { requests: { memory: spec } } }] },
    status: { containerStatuses: [containerStatus as never] },
  };
}

const pair = (old: (m: string) => PodJSON, neu: (m: string) => PodJSON) => (m: string): OomInfo[] => oomsFromPodUpdate(old(m), neu(m));

export const oomBuilders: Record<string, (specMemory: string) => OomInfo[]> = {
  'running|terminated OOMKilled (no restart count change)': pair((m) => pod(m, { state: 'running' }), (m) => pod(m, { state: 'terminated', reason: 'OOMKilled' })),
  'running|terminated OOMKilled, new pod has no requests': pair((m) => pod(m, { state: 'running' }), () => pod(null, { state: 'terminated', reason: 'OOMKilled' })),
  'running|terminated OOMKilled, status.resources.requests.memory=2048': pair(
    (m) => pod(m, { state: 'running' }),
    (m) => pod(m, { state: 'terminated', reason: 'OOMKilled', statusMemory: '2048' }),
  ),
  'running restartCount 0|running restartCount 1, lastState terminated OOMKilled': pair(
    (m) => pod(m, { state: 'running', restartCount: 0 }),
    (m) => pod(m, { state: 'running', restartCount: 1, lastReason: 'OOMKilled' }),
  ),
  'running restartCount 0 (status requests 2048)|running restartCount 1, lastState OOMKilled (status requests 4096)': pair(
    (m) => pod(m, { state: 'running', restartCount: 0, statusMemory: '2048' }),
    (m) => pod(m, { state: 'running', restartCount: 1, lastReason: 'OOMKilled', statusMemory: '4096' }),
  ),
  'terminated Error restartCount 0|terminated OOMKilled restartCount 1': pair(
    (m) => pod(m, { state: 'terminated', reason: 'Error', restartCount: 0 }),
    (m) => pod(m, { state: 'terminated', reason: 'OOMKilled', restartCount: 1 }),
  ),
  'running|terminated Error': pair((m) => pod(m, { state: 'running' }), (m) => pod(m, { state: 'terminated', reason: 'Error' })),
  'running|running restartCount 1, lastState Error': pair(
    (m) => pod(m, { state: 'running' }),
    (m) => pod(m, { state: 'running', restartCount: 1, lastReason: 'Error' }),
  ),
  'waiting CrashLoopBackOff restartCount 3, lastState OOMKilled|running restartCount 4, lastState OOMKilled': pair(
    (m) => pod(m, { state: 'waiting', restartCount: 3, lastReason: 'OOMKilled' }),
    (m) => pod(m, { state: 'running', restartCount: 4, lastReason: 'OOMKilled' }),
  ),
  'running restartCount 1 lastState OOMKilled|same': pair(
    (m) => pod(m, { state: 'running', restartCount: 1, lastReason: 'OOMKilled' }),
    (m) => pod(m, { state: 'running', restartCount: 1, lastReason: 'OOMKilled' }),
  ),
  'terminated (no reason)|terminated OOMKilled, same restartCount': pair(
    (m) => pod(m, { state: 'terminated', reason: '' }),
    (m) => pod(m, { state: 'terminated', reason: 'OOMKilled' }),
  ),
};
