// A VPA's pod selector from its targetRef (upstream's controller fetcher): the target's own
// `spec.selector` for the well-known workload kinds, else `status.selector` of its scale subresource.
// A target owned by another controller is refused (ConfigUnsupported), like upstream. Results are cached
// so the loop does not read every target on every tick. Edge: talks to the API server.
import { resourcePath, type KubeApiClient } from '../../kube/api-client.ts';
import type { ResourceDiscovery } from '../../kube/discovery.ts';
import { formatLabelSelector, parseLabelSelector, type LabelSelectorObject } from '../../selectors/label-selector.ts';
import type { Labels } from '../model/cluster-state.ts';
import type { TargetSelection, VpaObject } from './cluster-feeder.ts';

/** Labels a selector string requires by equality ("k=v", "k==v", "k in (v)"). */
export function equalityLabels(selector: string): Labels {
  const out: Record<string, string> = {};
  for (const part of selector.split(/,(?![^(]*\))/)) {
    const p = part.trim();
    let m = /^([A-Za-z0-9._/-]+)\s*==?\s*([A-Za-z0-9._-]*)$/.exec(p);
    if (m) out[m[1]!] = m[2]!;
    else if ((m = /^([A-Za-z0-9._/-]+)\s+in\s*\(\s*([A-Za-z0-9._-]*)\s*\)$/.exec(p))) out[m[1]!] = m[2]!;
  }
  return out;
}

const WELL_KNOWN = new Set(['Deployment', 'StatefulSet', 'ReplicaSet', 'DaemonSet', 'Job', 'ReplicationController']);

interface TargetObject {
  metadata: { ownerReferences?: { apiVersion: string; kind: string; name: string; controller?: boolean }[] };
  spec?: { selector?: LabelSelectorObject | Record<string, string> };
}

export class TargetSelectors {
  private readonly cache = new Map<string, { at: number; value: TargetSelection }>();

  constructor(
    private readonly client: KubeApiClient,
    private readonly discovery: ResourceDiscovery,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = 300_000,
    private readonly errorTtlMs = 30_000,
  ) {}

  async get(vpa: VpaObject): Promise<TargetSelection> {
    const ns = vpa.metadata.namespace ?? '';
    const ref = vpa.spec?.targetRef;
    const key = `${ns}/${ref?.apiVersion ?? ''}/${ref?.kind ?? ''}/${ref?.name ?? ''}`;
    const hit = this.cache.get(key);
    if (hit && this.now() - hit.at < (hit.value.unsupported ? this.errorTtlMs : this.ttlMs)) return hit.value;
    const value = await this.resolve(ns, ref);
    this.cache.set(key, { at: this.now(), value });
    return value;
  }

  private async resolve(ns: string, ref: { apiVersion?: string; kind?: string; name?: string } | undefined): Promise<TargetSelection> {
    const unsupported = (msg: string): TargetSelection => ({ selectorKey: `unsupported:${msg}`, unsupported: msg });
    if (!ref?.kind || !ref.name) return unsupported('Cannot read targetRef');
    try {
      const info = await this.discovery.resolve(ref.apiVersion, ref.kind);
      const path = resourcePath(info.apiVersion, info.plural, info.namespaced ? ns : undefined, ref.name);
      const obj = await this.client.get<TargetObject>(path);
      if (obj.metadata.ownerReferences?.some((o) => o.controller)) {
        return unsupported(`The target ${info.apiVersion}.${ref.kind}/${ref.name} has a parent controller but it should point to a topmost well-known or scalable controller`);
      }
      let text: string | undefined;
      const sel = obj.spec?.selector;
      if (WELL_KNOWN.has(ref.kind) && sel && typeof sel === 'object') {
        // ReplicationController's selector is a plain map; the others are LabelSelectors.
        text = ref.kind === 'ReplicationController' ? formatLabelSelector({ matchLabels: sel as Record<string, string> }) : formatLabelSelector(sel as LabelSelectorObject);
      } else if (info.scalable) {
        const scale = await this.client.get<{ status?: { selector?: string } }>(resourcePath(info.apiVersion, info.plural, info.namespaced ? ns : undefined, ref.name, 'scale'));
        text = scale.status?.selector;
      }
      if (text === undefined || text === '') return unsupported(`Cannot read targetRef. Reason: ${ref.kind}/${ref.name} has no pod selector`);
      const parsed = parseLabelSelector(text);
      return { selector: (labels: Labels | undefined) => parsed.matches(labels), selectorKey: text, equalityLabels: equalityLabels(text) };
    } catch (e) {
      return unsupported(`Cannot read targetRef. Reason: ${(e as Error).message}`);
    }
  }
}
