// manifests/rbac-controllers.yaml grants exactly the (group, resource, verb) triples the code uses: nothing
// more (least privilege) and nothing less (a loop would fail with 403 in a cluster). The triples come from
// two places: every informer in src/ (list+watch of its KINDS entry, found by scanning the source), and the
// table below of every other API call, each row citing the lines that make the call. The scan also finds
// every call of the API client's request methods in src/, and each must be cited by a row, so a new call
// fails here until its permission is added to both the table and the manifest.
import { expect } from 'chai';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { KINDS } from '../../../src/api/kinds.ts';
import { SERVED_APISERVICES } from '../../../src/adapter/apiservice-claims.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (p: string) => readFileSync(join(root, p), 'utf8');

function sources(dir = join(root, 'src')): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [relative(root, p)] : [];
  });
}

interface Use {
  group: string;
  resource: string;
  verbs: string[];
  /** [file, text on the line that makes the call]; the route that reaches it is in `why`. */
  at: [string, string][];
  why: string;
}

/** Namespace-scoped grants (the leader-election Role in the adapter's namespace). */
const LEASE: Use = {
  group: 'coordination.k8s.io', resource: 'leases', verbs: ['get', 'create', 'update'],
  at: [['src/kube/leader-election.ts', "client.request<Lease>('GET'"], ['src/kube/leader-election.ts', "client.request<Lease>('POST'"], ['src/kube/leader-election.ts', "client.request<Lease>('PUT'"]],
  why: 'leader election reads, creates and renews/releases (PUT) one Lease',
};

/** Everything but the informers' list+watch (derived from the source below). */
const USES: Use[] = [
  {
    group: 'autoscaling.crane.io', resource: 'effectivehorizontalpodautoscalers', verbs: ['get'],
    at: [['src/kube/status-writer.ts', 'client.get<T>(objectPath)'], ['src/ehpa/reconciler.ts', 'this.d.status.update(path, ehpa']],
    why: 'a status write that conflicts re-reads the EHPA',
  },
  {
    group: 'autoscaling.crane.io', resource: 'effectivehorizontalpodautoscalers', verbs: ['patch'],
    at: [['src/ehpa/reconciler.ts', 'this.d.client.patch(path, { metadata: { annotations: { [CURRENT_METRICS_ANNOTATION]']],
    why: 'the EHPA controller merge-patches Crane\'s current-metrics annotation (metadata only)',
  },
  {
    group: 'autoscaling.crane.io', resource: 'effectivehorizontalpodautoscalers/status', verbs: ['patch'],
    at: [['src/kube/status-writer.ts', 'client.patch(`${objectPath}/status`'], ['src/ehpa/reconciler.ts', 'this.d.status.update(path, ehpa']],
    why: 'the EHPA controller merge-patches status',
  },
  {
    group: 'prediction.crane.io', resource: 'timeseriespredictions', verbs: ['get'],
    at: [['src/kube/status-writer.ts', 'client.get<T>(objectPath)'], ['src/prediction/controller/tsp-reconciler.ts', 'this.d.status.update(p.path, p.tsp']],
    why: 'a TSP status write that conflicts re-reads the TSP',
  },
  {
    group: 'prediction.crane.io', resource: 'timeseriespredictions/status', verbs: ['patch'],
    at: [['src/kube/status-writer.ts', 'client.patch(`${objectPath}/status`'], ['src/prediction/controller/tsp-reconciler.ts', 'this.d.status.update(p.path, p.tsp']],
    why: 'the TSP controller merge-patches status',
  },
  {
    group: 'prediction.crane.io', resource: 'timeseriespredictions', verbs: ['create', 'update'],
    at: [['src/kube/apply-owned.ts', 'writer.create<T>(r.path'], ['src/kube/apply-owned.ts', 'writer.replace<T>('], ['src/ehpa/reconciler.ts', 'path: resourcePath(TSP_API_VERSION, TSP_PLURAL, ns)']],
    why: 'the EHPA controller creates and replaces the TSP it owns',
  },
  {
    group: 'autoscaling', resource: 'horizontalpodautoscalers', verbs: ['create', 'update'],
    at: [['src/kube/apply-owned.ts', 'writer.create<T>(r.path'], ['src/kube/apply-owned.ts', 'writer.replace<T>('], ['src/ehpa/reconciler.ts', 'path: resourcePath(HPA_API_VERSION, HPA_PLURAL, ns)']],
    why: 'the EHPA controller creates and replaces the HPA it owns',
  },
  {
    group: 'autoscaling.crane.io', resource: 'substitutes', verbs: ['create', 'patch'],
    at: [['src/kube/apply-owned.ts', 'writer.create<T>(r.path'], ['src/kube/apply-owned.ts', 'writer.patch<T>('], ['src/ehpa/reconciler.ts', 'ownerUid: ehpa.metadata.uid, patchSpec: true']],
    why: 'Preview creates its Substitute and merge-patches its spec (OwnedApplier with patchSpec)',
  },
  {
    group: 'autoscaling.crane.io', resource: 'substitutes/status', verbs: ['patch'],
    at: [['src/ehpa/reconciler.ts', "client.patch(resourcePath(EHPA_API_VERSION, SUBSTITUTE_PLURAL, ns, name, 'status')"]],
    why: 'Preview merge-patches the Substitute status',
  },
  {
    group: '*', resource: '*/scale', verbs: ['get', 'patch'],
    at: [['src/kube/scale-client.ts', 'client.get<Scale>('], ['src/kube/scale-client.ts', 'client.patch<Scale>('], ['src/vpa/input/target-selectors.ts', "client.get<{ status?: { selector?: string } }>(resourcePath(info.apiVersion, info.plural, info.namespaced ? ns : undefined, ref.name, 'scale'))"]],
    why: 'EHPA targets (any kind with /scale): read, and specificReplicas merge-patched; VPA targets of a scalable kind: selector',
  },
  ...(
    [
      ['apps', 'deployments'], ['apps', 'statefulsets'], ['apps', 'replicasets'], ['apps', 'daemonsets'],
      ['batch', 'jobs'], ['batch', 'cronjobs'], ['', 'replicationcontrollers'],
    ] as const
  ).map(([group, resource]): Use => ({
    group, resource, verbs: ['get'],
    at: [['src/vpa/input/target-selectors.ts', 'client.get<TargetObject>(path)']],
    why: 'the VPA recommender reads a well-known target for its selector and owner',
  })),
  {
    group: 'autoscaling.k8s.io', resource: 'verticalpodautoscalers/status', verbs: ['patch'],
    at: [['src/vpa/routines/kube-recommender-io.ts', "client.patch(path, [{ op: 'add', path: '/status'"]],
    why: 'the VPA recommender JSON-patches status',
  },
  {
    group: 'autoscaling.k8s.io', resource: 'verticalpodautoscalercheckpoints', verbs: ['list', 'create', 'patch', 'delete'],
    at: [
      ['src/vpa/routines/kube-recommender-io.ts', 'client.get<{ items: VerticalPodAutoscalerCheckpointJSON[] }>'],
      ['src/vpa/routines/kube-recommender-io.ts', 'client.create(resourcePath(VPA_API_VERSION, KINDS.vpaCheckpoint.plural'],
      ['src/vpa/routines/kube-recommender-io.ts', 'client.patch(resourcePath(VPA_API_VERSION, KINDS.vpaCheckpoint.plural'],
      ['src/vpa/routines/kube-recommender-io.ts', 'client.delete(resourcePath(VPA_API_VERSION, KINDS.vpaCheckpoint.plural'],
    ],
    why: 'checkpoints: listed at start-up and for GC, written (create, or patch status), deleted when orphaned',
  },
  {
    group: 'metrics.k8s.io', resource: 'pods', verbs: ['list'],
    at: [['src/vpa/input/usage-sources.ts', "client.get<PodMetricsList>(resourcePath(METRICS_API_VERSION, 'pods'"]],
    why: 'the VPA recommender lists PodMetrics for current usage',
  },
  {
    group: '', resource: 'events', verbs: ['create', 'patch'],
    at: [['src/kube/event-recorder.ts', 'client.create(`/api/v1/namespaces/'], ['src/kube/event-recorder.ts', 'client.patch(`/api/v1/namespaces/']],
    why: 'events about the objects the loops act on (a repeat bumps the count with a patch)',
  },
];

/**
 * The adapter's own reads, granted in manifests/rbac-adapter.yaml by name (resourceNames): the APIServices it
 * would serve, read to tell who holds them (src/adapter/apiservice-watch.ts).
 */
const ADAPTER_USES: (Use & { names: string[] })[] = [
  {
    group: 'apiregistration.k8s.io', resource: 'apiservices', verbs: ['get'],
    names: [...SERVED_APISERVICES],
    at: [['src/adapter/apiservice-watch.ts', "client.get<ApiServiceLike>(resourcePath('apiregistration.k8s.io/v1', 'apiservices', undefined, name))"]],
    why: 'serve reads the metrics APIServices to say when another adapter holds one (never writes them)',
  },
];

/** Calls that need no RBAC rule: discovery documents are non-resource URLs every authenticated user may read (system:discovery). */
const NON_RESOURCE: [string, string][] = [
  ['src/kube/discovery.ts', 'client.get<ApiResourceList>(groupVersionPath('],
  ['src/kube/discovery.ts', 'client.get<ApiGroupDoc>(`/apis/${group}`)'],
  ['src/vpa/input/usage-sources.ts', 'client.get<{ resources?: { name: string }[] }>(groupVersionPath(METRICS_API_VERSION))'],
];

/** The one list helper every informer uses (its rights come from the informers' kinds). */
const INFORMER_LIST: [string, string] = ['src/kube/informers.ts', 'client.get<ListPage>(p, query)'];

/** Kinds some informer in src/ watches, by scanning for `.informer<...>(KINDS.<key>)`. */
function informerKinds(): Set<keyof typeof KINDS> {
  const out = new Set<keyof typeof KINDS>();
  for (const f of sources()) for (const m of read(f).matchAll(/\.informer<.*\(KINDS\.(\w+)\)/g)) out.add(m[1] as keyof typeof KINDS);
  return out;
}

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');
const triples = (uses: { group: string; resource: string; verbs: readonly string[] }[]) => new Set(uses.flatMap((u) => u.verbs.map((v) => `${u.group}|${u.resource}|${v}`)));

function codeTriples(): Set<string> {
  const informers = [...informerKinds()].map((k) => ({ group: groupOf(KINDS[k].apiVersion), resource: KINDS[k].plural, verbs: ['list', 'watch'] }));
  return triples([...informers, ...USES]);
}

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

function manifestRules(kind: 'ClusterRole' | 'Role', file = 'manifests/rbac-controllers.yaml'): Rule[] {
  const docs = parseAllDocuments(read(file)).map((d) => d.toJS() as { kind: string; rules?: Rule[] });
  return docs.filter((d) => d.kind === kind).flatMap((d) => d.rules ?? []);
}

function grantTriples(rules: Rule[]): Set<string> {
  return triples(rules.flatMap((r) => r.apiGroups.flatMap((group) => r.resources.map((resource) => ({ group, resource, verbs: r.verbs })))));
}

describe('RBAC of manifests/ matches the API calls in src/', () => {
  it('the informers in src/ are the ones this test knows (KINDS scanned from the source)', () => {
    expect([...informerKinds()].sort()).to.deep.equal(['deployment', 'ehpa', 'evictionEvent', 'hpa', 'pod', 'statefulSet', 'substitute', 'tsp', 'vpa']);
  });

  it('every row of the table cites lines that exist in the code', () => {
    for (const [file, text] of [...USES, LEASE, ...ADAPTER_USES].flatMap((u) => u.at).concat(NON_RESOURCE, [INFORMER_LIST])) {
      expect(read(file), `${file} should contain ${text}`).to.include(text);
    }
  });

  it('every API client call in src/ is cited by the table (a new call needs its permission here and in the manifest)', () => {
    const cited = [...USES, LEASE, ...ADAPTER_USES].flatMap((u) => u.at).concat(NON_RESOURCE, [INFORMER_LIST]);
    const uncited: string[] = [];
    for (const f of sources()) {
      if (f === 'src/kube/api-client.ts') continue;
      read(f).split('\n').forEach((line, i) => {
        if (!/\b(client|writer)\.(get|create|replace|patch|delete|request)\b/.test(line)) return;
        if (!cited.some(([file, text]) => file === f && line.includes(text))) uncited.push(`${f}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(uncited).to.deep.equal([]);
  });

  it('the controllers ClusterRole grants exactly what the code uses, nothing more and nothing less', () => {
    const rules = manifestRules('ClusterRole');
    expect(rules.filter((r) => r.resourceNames || r.nonResourceURLs)).to.deep.equal([]);
    const granted = grantTriples(rules);
    const used = codeTriples();
    expect([...granted].filter((t) => !used.has(t)).sort(), 'granted but unused').to.deep.equal([]);
    expect([...used].filter((t) => !granted.has(t)).sort(), 'used but not granted').to.deep.equal([]);
    // The over-grants this replaced stay gone (each was verified against the code).
    for (const t of [
      'autoscaling.crane.io|effectivehorizontalpodautoscalers|update', 'autoscaling.crane.io|effectivehorizontalpodautoscalers|delete',
      'autoscaling|horizontalpodautoscalers|delete', 'autoscaling|horizontalpodautoscalers|patch', 'prediction.crane.io|timeseriespredictions|delete',
      'autoscaling.crane.io|substitutes|update', 'autoscaling.crane.io|substitutes|delete', '*|*/scale|update', '|nodes|list', '|namespaces|get',
      'events.k8s.io|events|create',
    ]) {
      expect(granted.has(t), t).to.equal(false);
    }
  });

  it('the leader-election Role grants only get/create/update on leases', () => {
    expect(grantTriples(manifestRules('Role'))).to.deep.equal(triples([LEASE]));
  });

  it('the adapter ClusterRole grants exactly its reads, each limited to the names the code reads', () => {
    const rules = manifestRules('ClusterRole', 'manifests/rbac-adapter.yaml');
    expect(grantTriples(rules)).to.deep.equal(triples(ADAPTER_USES));
    for (const u of ADAPTER_USES) {
      const rule = rules.find((r) => r.apiGroups.includes(u.group) && r.resources.includes(u.resource));
      expect(rule?.resourceNames?.slice().sort(), `${u.group}/${u.resource}`).to.deep.equal(u.names.slice().sort());
    }
  });
});
