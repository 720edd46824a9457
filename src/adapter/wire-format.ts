// JSON bodies of the metrics APIs: discovery (docs/metrics-api.md §1.2–1.5) and the value lists of
// custom.metrics.k8s.io v1beta1/v1beta2 and external.metrics.k8s.io v1beta1 (§3.1–3.4).
import { metaTime } from '../api/meta.ts';
import { formatMilliQuantity } from '../metric-values/milli-quantity.ts';
import { CUSTOM_GROUP, EXTERNAL_GROUP } from './request-info.ts';
import type { CustomValue, ExternalValue } from './providers/provider.ts';
import type { LabelSelector } from '../selectors/label-selector.ts';

const gv = (group: string, version: string) => ({ groupVersion: `${group}/${version}`, version });

export function apiGroup(group: string) {
  const versions = group === CUSTOM_GROUP ? [gv(group, 'v1beta2'), gv(group, 'v1beta1')] : [gv(group, 'v1beta1')];
  return { name: group, versions, preferredVersion: versions[0] };
}

export function apiGroupList() {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: [apiGroup(CUSTOM_GROUP), apiGroup(EXTERNAL_GROUP)] };
}

export function apiGroupDoc(group: string) {
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group) };
}

export interface ListedCustom {
  resource: string;
  metric: string;
  namespaced: boolean;
}

export function customResourceList(version: string, listed: ListedCustom[]) {
  const seen = new Set<string>();
  const resources = [];
  for (const l of listed) {
    const name = `${l.resource}/${l.metric}`;
    if (seen.has(name)) continue;
    seen.add(name);
    resources.push({ name, singularName: '', namespaced: l.namespaced, kind: 'MetricValueList', verbs: ['get'] });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${CUSTOM_GROUP}/${version}`, resources };
}

export function externalResourceList(names: string[]) {
  const resources = [...new Set(names)].map((name) => ({ name, singularName: '', namespaced: true, kind: 'ExternalMetricValueList', verbs: ['get'] }));
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${EXTERNAL_GROUP}/v1beta1`, resources };
}


const DEFAULT_WINDOW = 60;

export function metricValueList(version: 'v1beta1' | 'v1beta2', metric: string, values: CustomValue[], metricSelector: LabelSelector, nowMs: number) {
  const timestamp = metaTime(nowMs);
  const selector = metricSelector.toLabelSelector();
  const items = values.map((v) =>
    version === 'v1beta2'
      ? { describedObject: v.describedObject, metric: { name: metric, selector }, timestamp, windowSeconds: v.windowSeconds ?? DEFAULT_WINDOW, value: formatMilliQuantity(v.milli) }
      : { describedObject: v.describedObject, metricName: metric, timestamp, window: v.windowSeconds ?? DEFAULT_WINDOW, value: formatMilliQuantity(v.milli), selector },
  );
  return { kind: 'MetricValueList', apiVersion: `${CUSTOM_GROUP}/${version}`, metadata: {}, items };
}

export function externalMetricValueList(metric: string, values: ExternalValue[], nowMs: number) {
  const timestamp = metaTime(nowMs);
  const items = values.map((v) => ({ metricName: metric, metricLabels: v.labels, timestamp, window: v.windowSeconds ?? DEFAULT_WINDOW, value: formatMilliQuantity(v.milli) }));
  return { kind: 'ExternalMetricValueList', apiVersion: `${EXTERNAL_GROUP}/v1beta1`, metadata: {}, items };
}
