// The synthetic workload both sides of the VPA benchmark run (formulas mirrored in
// test/oracles/vpa/bench.go): one container per pod, one CPU and one memory sample per minute.
import { ClusterState, VpaState, containerNameToAggregateStateMap, type Instant } from '../../src/vpa/model/index.ts';
import { PodResourceRecommender, mapToListOfRecommendedContainerResources } from '../../src/vpa/logic/index.ts';

export const T0: Instant = Date.UTC(2024, 2, 10, 13, 37, 0) * 1000;
const MINUTE = 60_000_000;

export const cpuMilli = (i: number, k: number): number => 50 + ((i * 7919 + k * 31) % 400) + 25 * Math.floor(i / 1440);
export const memBytes = (i: number, k: number): number => 300 * 1024 * 1024 + ((i * 104729 + k * 7) % 97) * 4 * 1024 * 1024;

export function buildCluster(containers: number): { cluster: ClusterState; pods: { namespace: string; podName: string }[] } {
  const cluster = new ClusterState();
  const pods = [];
  for (let k = 0; k < containers; k++) {
    const id = { namespace: 'default', podName: `p-${k}` };
    cluster.addOrUpdatePod(id, { pod: id.podName }, 'Running');
    cluster.addOrUpdateContainer(id, 'app', T0);
    pods.push(id);
  }
  return { cluster, pods };
}

export function feed(cluster: ClusterState, pods: { namespace: string; podName: string }[], samples: number): number {
  let n = 0;
  for (let i = 0; i < samples; i++) {
    const t = T0 + i * MINUTE;
    for (let k = 0; k < pods.length; k++) {
      const id = pods[k]!;
      if (cluster.addCPUSample(id, 'app', cpuMilli(i, k), t)) n++;
      if (cluster.addMemorySample(id, 'app', memBytes(i, k), t)) n++;
    }
  }
  return n;
}

export function addVpas(cluster: ClusterState, pods: { namespace: string; podName: string }[]): VpaState[] {
  return pods.map((id) => {
    const vpa = new VpaState('default', `vpa-${id.podName}`, (labels) => labels.pod === id.podName);
    cluster.addOrUpdateVpa(vpa);
    return vpa;
  });
}

export function recommendAll(cluster: ClusterState, vpas: VpaState[], recommender: PodResourceRecommender, now: Instant): number {
  let checksum = 0;
  for (const vpa of vpas) {
    const list = mapToListOfRecommendedContainerResources(recommender.getRecommendedPodResources(containerNameToAggregateStateMap(vpa, cluster.config, now)));
    checksum += list[0]!.target.get('cpu')!.milliValue();
  }
  return checksum;
}
