import { expect } from 'chai';
import type { V1LabelSelector } from '@kubernetes/client-node';
import { defaultMetricQuery } from '../../../src/ehpa/default-metric-query.ts';
import { applyUserPromqlPolicy, confineToNamespace, NAMESPACED_PROMQL, parseUserPromqlFlag } from '../../../src/prometheus/promql-confine.ts';

const NS = 'team-a';

// Crane HEAD's default query for Pods/External metrics (gocrane/crane pkg/utils/ehpa.go
// GetExpressionQueryDefault: `sum(<name>{matchLabels})`), pinned to the EHPA's namespace.
const built: { name: string; metric: string; selector?: V1LabelSelector; want: string }[] = [
  { name: 'no selector', metric: 'http_requests', want: 'sum(http_requests{namespace="team-a"})' },
  { name: 'empty selector', metric: 'http_requests', selector: {}, want: 'sum(http_requests{namespace="team-a"})' },
  {
    name: 'matchLabels, sorted by key',
    metric: 'http_requests',
    selector: { matchLabels: { verb: 'GET', code: '200' } },
    want: 'sum(http_requests{namespace="team-a",code="200",verb="GET"})',
  },
  {
    name: 'matchLabels and matchExpressions (every operator)',
    metric: 'queue_messages_ready',
    selector: {
      matchLabels: { queue: 'orders' },
      matchExpressions: [
        { key: 'region', operator: 'In', values: ['eu-west', 'us.east'] },
        { key: 'tier', operator: 'NotIn', values: ['debug'] },
        { key: 'shard', operator: 'Exists' },
        { key: 'canary', operator: 'DoesNotExist' },
      ],
    },
    want: 'sum(queue_messages_ready{namespace="team-a",queue="orders",region=~"eu-west|us\\\\.east",tier!="debug",shard!="",canary=""})',
  },
  { name: 'recording-rule metric name with colons', metric: 'job:requests:rate5m', want: 'sum(job:requests:rate5m{namespace="team-a"})' },
  {
    name: 'quotes and `"}` in a value are quoted, not pasted',
    metric: 'm',
    selector: { matchLabels: { a: 'x"} or vector(1) or m{b="' } },
    want: 'sum(m{namespace="team-a",a="x\\"} or vector(1) or m{b=\\""})',
  },
  {
    name: 'backslashes and newlines in a value are escaped',
    metric: 'm',
    selector: { matchLabels: { a: 'c:\\path\n' } },
    want: 'sum(m{namespace="team-a",a="c:\\\\path\\n"})',
  },
  {
    name: 'regex metacharacters in In values match as text',
    metric: 'm',
    selector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['.*', 'x|y'] }] },
    want: 'sum(m{namespace="team-a",a=~"\\\\.\\\\*|x\\\\|y"})',
  },
  {
    name: 'namespace=<own namespace> in matchLabels is the pinned matcher, once',
    metric: 'm',
    selector: { matchLabels: { namespace: NS, app: 'web' } },
    want: 'sum(m{namespace="team-a",app="web"})',
  },
  {
    name: 'a namespace expression the own namespace satisfies adds nothing',
    metric: 'm',
    selector: { matchExpressions: [{ key: 'namespace', operator: 'In', values: [NS, 'team-b'] }, { key: 'namespace', operator: 'NotIn', values: ['team-b'] }] },
    want: 'sum(m{namespace="team-a"})',
  },
];

const refused: { name: string; metric: string; selector?: V1LabelSelector; says: RegExp }[] = [
  { name: 'matchLabels naming another namespace', metric: 'm', selector: { matchLabels: { namespace: 'kube-system' } }, says: /own namespace "team-a"/ },
  { name: 'In on other namespaces only', metric: 'm', selector: { matchExpressions: [{ key: 'namespace', operator: 'In', values: ['kube-system'] }] }, says: /own namespace/ },
  { name: 'NotIn excluding the own namespace', metric: 'm', selector: { matchExpressions: [{ key: 'namespace', operator: 'NotIn', values: [NS] }] }, says: /own namespace/ },
  { name: 'DoesNotExist on namespace (cluster-wide series)', metric: 'm', selector: { matchExpressions: [{ key: 'namespace', operator: 'DoesNotExist' }] }, says: /own namespace/ },
  { name: 'metric name carrying PromQL', metric: 'm{namespace="kube-system"}', says: /"m\{namespace=\\"kube-system\\"\}" is not a Prometheus metric name/ },
  { name: 'metric name with `"}`', metric: 'x"}', says: /not a Prometheus metric name/ },
  { name: 'metric name with a space', metric: 'a b', says: /not a Prometheus metric name/ },
  { name: 'empty metric name', metric: '', says: /not a Prometheus metric name/ },
  { name: 'Kubernetes-style label key', metric: 'm', selector: { matchLabels: { 'app.kubernetes.io/name': 'web' } }, says: /label "app\.kubernetes\.io\/name" is not a Prometheus label name/ },
  { name: 'label key carrying a matcher', metric: 'm', selector: { matchLabels: { 'a="b",namespace': 'kube-system' } }, says: /not a Prometheus label name/ },
  { name: 'reserved __name__ key', metric: 'm', selector: { matchLabels: { __name__: 'other' } }, says: /not a Prometheus label name/ },
  { name: 'unknown operator', metric: 'm', selector: { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, says: /operator "Gt"/ },
  { name: 'unknown operator on namespace', metric: 'm', selector: { matchExpressions: [{ key: 'namespace', operator: 'Gt', values: ['1'] }] }, says: /operator "Gt"/ },
  { name: 'In without values', metric: 'm', selector: { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, says: /has no values/ },
  { name: 'a query longer than a user query may be', metric: 'm', selector: { matchLabels: { a: 'x'.repeat(5000) } }, says: /at most 4096/ },
];

describe('defaultMetricQuery (Crane HEAD default for Pods/External, crane-behaviour.md §B.4)', () => {
  for (const c of built) {
    it(`builds: ${c.name}`, () => {
      const q = defaultMetricQuery(c.metric, c.selector, NS);
      expect(q).to.deep.equal({ ok: true, expression: c.want });
    });

    it(`stays in the EHPA's namespace under every --user-promql mode: ${c.name}`, () => {
      const q = defaultMetricQuery(c.metric, c.selector, NS);
      if (!q.ok) throw new Error(q.message);
      // namespaced: the confinement parses it and finds every selector already pinned, so it is unchanged.
      expect(applyUserPromqlPolicy(NAMESPACED_PROMQL, NS, q.expression)).to.equal(q.expression);
      // unrestricted: passed as written, and what is written reads only NS.
      expect(applyUserPromqlPolicy(parseUserPromqlFlag('unrestricted'), NS, q.expression)).to.equal(q.expression);
      // off: refused exactly as an annotation's query is.
      expect(() => applyUserPromqlPolicy(parseUserPromqlFlag('off'), NS, q.expression)).to.throw(/--user-promql=off/);
      // Pinned: confining the same text to any other namespace is refused, so no selector in it is unpinned.
      expect(() => confineToNamespace(q.expression, 'team-b')).to.throw(/namespace/);
    });
  }

  for (const c of refused) {
    it(`refuses: ${c.name}`, () => {
      const q = defaultMetricQuery(c.metric, c.selector, NS);
      expect(q.ok).to.equal(false);
      expect(q.ok ? '' : q.message).to.match(c.says);
    });
  }

  it('is stable whatever order matchLabels come in', () => {
    const a = defaultMetricQuery('m', { matchLabels: { b: '1', a: '2', c: '3' } }, NS);
    const b = defaultMetricQuery('m', { matchLabels: { c: '3', b: '1', a: '2' } }, NS);
    expect(a).to.deep.equal(b);
  });
});
