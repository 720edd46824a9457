// The confinement table shared by the unit test (exact rewrites) and the slow test that runs every
// rewrite through a real Prometheus: input → the query confined to namespace "team-a".

export interface ConfineCase {
  name: string;
  query: string;
  want: string;
  /** Prometheus 3 syntax (quoted UTF-8 label names): Debian's Prometheus 2 refuses it, so the slow test skips it. */
  prometheus3?: boolean;
}

export const NS = 'team-a';
const M = 'namespace="team-a"';

export const CONFINE_CASES: readonly ConfineCase[] = [
  { name: 'bare metric name', query: 'up', want: `up{${M}}` },
  { name: 'empty braces', query: 'up{}', want: `up{${M}}` },
  { name: 'one matcher', query: 'up{job="a"}', want: `up{job="a",${M}}` },
  { name: 'trailing comma', query: 'up{job="a",}', want: `up{job="a",${M},}` },
  { name: 'name only through __name__', query: '{__name__="up"}', want: `{__name__="up",${M}}` },
  { name: '__name__ regex', query: '{__name__=~"a|b"}', want: `{__name__=~"a|b",${M}}` },
  { name: 'range in rate', query: 'rate(http_requests_total[5m])', want: `rate(http_requests_total{${M}}[5m])` },
  {
    name: 'aggregation with by',
    query: 'sum by (pod) (rate(container_cpu_usage_seconds_total{container!=""}[5m]))',
    want: `sum by (pod) (rate(container_cpu_usage_seconds_total{container!="",${M}}[5m]))`,
  },
  { name: 'aggregation with trailing by', query: 'sum(x) by (pod)', want: `sum(x{${M}}) by (pod)` },
  { name: 'subquery', query: 'max_over_time(rate(x[1m])[1h:5m])', want: `max_over_time(rate(x{${M}}[1m])[1h:5m])` },
  { name: 'offset', query: 'x offset 5m', want: `x{${M}} offset 5m` },
  { name: 'offset inside a range', query: 'rate(x[5m] offset 1h)', want: `rate(x{${M}}[5m] offset 1h)` },
  { name: '@ modifier', query: 'x @ 100', want: `x{${M}} @ 100` },
  { name: '@ start()', query: 'rate(x[5m] @ start())', want: `rate(x{${M}}[5m] @ start())` },
  { name: 'binary with on()', query: 'a / on(pod) b', want: `a{${M}} / on(pod) b{${M}}` },
  {
    name: 'binary with group_left',
    query: 'a * on(pod) group_left(node) kube_pod_info{node!=""}',
    want: `a{${M}} * on(pod) group_left(node) kube_pod_info{node!="",${M}}`,
  },
  { name: 'bool comparison', query: 'a > bool 3', want: `a{${M}} > bool 3` },
  { name: 'set operators', query: 'a and b or c unless d', want: `a{${M}} and b{${M}} or c{${M}} unless d{${M}}` },
  {
    name: 'label_replace with strings',
    query: 'label_replace(x, "dst", "$1", "src", "(.*)")',
    want: `label_replace(x{${M}}, "dst", "$1", "src", "(.*)")`,
  },
  { name: 'vector(1) has no selector', query: 'vector(1)', want: 'vector(1)' },
  { name: 'time() and numbers', query: 'time() - 1.5e3 * 0x1f', want: 'time() - 1.5e3 * 0x1f' },
  { name: 'number literal alone', query: '42', want: '42' },
  { name: 'string literal with a brace', query: '"{namespace=\\"other\\"}"', want: '"{namespace=\\"other\\"}"' },
  {
    name: 'string argument naming a namespace',
    query: 'label_replace(x, "namespace", "other", "", "")',
    want: `label_replace(x{${M}}, "namespace", "other", "", "")`,
  },
  {
    name: 'strings with braces in matcher values',
    query: "x{a='{b}', c=`namespace=\"x\"`}",
    want: `x{a='{b}', c=\`namespace="x"\`,${M}}`,
  },
  { name: 'comment', query: 'x # not {a} y\n+ y', want: `x{${M}} # not {a} y\n+ y{${M}}` },
  { name: 'comment inside braces', query: 'x{a="b" # why\n}', want: `x{a="b",${M} # why\n}` },
  { name: 'existing same namespace kept', query: 'x{namespace="team-a"}', want: 'x{namespace="team-a"}' },
  { name: 'same namespace, single quotes', query: "x{namespace='team-a'}", want: "x{namespace='team-a'}" },
  { name: 'same namespace, escaped', query: 'x{namespace="team\\x2da"}', want: 'x{namespace="team\\x2da"}' },
  { name: 'mixed confined and not', query: 'x{namespace="team-a"} / y', want: `x{namespace="team-a"} / y{${M}}` },
  { name: 'unary minus and parens', query: '-(x)', want: `-(x{${M}})` },
  { name: 'keywords in upper case', query: 'SUM(x) BY (pod)', want: `SUM(x{${M}}) BY (pod)` },
  { name: 'topk parameter', query: 'topk(5, x)', want: `topk(5, x{${M}})` },
  { name: 'count_values', query: 'count_values("v", x)', want: `count_values("v", x{${M}})` },
  { name: 'histogram_quantile', query: 'histogram_quantile(0.9, sum by (le) (rate(h_bucket[5m])))', want: `histogram_quantile(0.9, sum by (le) (rate(h_bucket{${M}}[5m])))` },
  { name: 'metric named like a keyword', query: 'sum', want: `sum{${M}}` },
  { name: 'metric with colons', query: 'job:rate5m:sum', want: `job:rate5m:sum{${M}}` },
  { name: 'multi-line', query: 'sum(\n  a\n)\n/\nb', want: `sum(\n  a{${M}}\n)\n/\nb{${M}}` },
  { name: 'quoted label name', query: '{"foo.bar"="x"}', want: `{"foo.bar"="x",${M}}`, prometheus3: true },
  { name: 'quoted metric name', query: '{"my.metric"}', want: `{"my.metric",${M}}`, prometheus3: true },
  { name: 'quoted namespace label kept', query: '{"namespace"="team-a", "m"}', want: '{"namespace"="team-a", "m"}', prometheus3: true },
];

export interface RejectCase {
  name: string;
  query: string;
  /** What the message must say. */
  error: RegExp;
}

export const REJECT_CASES: readonly RejectCase[] = [
  { name: 'other namespace', query: 'x{namespace="kube-system"}', error: /selector x\{namespace="kube-system"\} at position 0.*asks for namespace "kube-system"/ },
  { name: 'other namespace deep inside', query: 'sum(rate(a[5m])) / sum(rate(b{namespace="b"}[5m]))', error: /selector b\{namespace="b"\} at position 28.*asks for namespace "b"/ },
  { name: 'regex namespace', query: 'x{namespace=~"team-.*"}', error: /matches the namespace with "=~"/ },
  { name: 'regex that equals the namespace', query: 'x{namespace=~"team-a"}', error: /matches the namespace with "=~"/ },
  { name: 'negative namespace', query: 'x{namespace!="kube-system"}', error: /matches the namespace with "!="/ },
  { name: 'negative regex namespace', query: 'x{namespace!~"x"}', error: /matches the namespace with "!~"/ },
  { name: 'quoted other namespace', query: '{"namespace"="b", "m"}', error: /asks for namespace "b"/ },
  { name: 'same and another', query: 'x{namespace="team-a",namespace!="z"}', error: /"!="/ },
  { name: 'empty namespace value', query: 'x{namespace=""}', error: /asks for namespace ""/ },
  { name: 'syntax error', query: 'sum(rate(x[5m])', error: /^query does not parse: .*at position 15 \(line 1, column 16\)/ },
  { name: 'syntax error on line 2', query: 'a +\n+ * b', error: /does not parse: .*line 2, column 3/ },
  { name: 'unknown function', query: 'nosuchfn(x)', error: /does not parse/ },
  { name: 'unterminated string at the end', query: 'label_replace(x, "a', error: /does not parse/ },
  // lezer's string token lets the closing quote be missing; Prometheus does not.
  { name: 'unterminated string alone', query: '"abc', error: /does not parse: unterminated string/ },
  { name: 'bad escape', query: 'x{a="\\q"}', error: /does not parse: unknown escape sequence/ },
  { name: 'carriage return in a comment', query: 'x # c\r or y', error: /carriage return inside a comment/ },
  { name: 'empty braces alone', query: '{}', error: /has neither a metric name nor a matcher/ },
  { name: 'empty', query: '', error: /the query is empty/ },
  { name: 'blank', query: '  \n\t', error: /the query is empty/ },
  { name: 'only a comment', query: '# nothing', error: /does not parse/ },
];

/**
 * Cost bounds at their defaults (1h longest range, 10s finest subquery resolution): queries the policy
 * accepts (confined, unchanged otherwise) and refuses, with what the refusal must name.
 */
export interface CostCase {
  name: string;
  query: string;
  /** Undefined: accepted. Otherwise what the refusal must say. */
  error?: RegExp;
  /** Prometheus 3 syntax (a number of seconds as a duration): the slow test skips it on Prometheus 2. */
  prometheus3?: boolean;
}

const RANGE_FLAG = /longer than the 1h user PromQL may read at once \(--user-promql-max-range\)/;
const STEP_FLAG = /finer than the 10s user PromQL may use \(--user-promql-min-subquery-step\)/;

export const COST_CASES: readonly CostCase[] = [
  { name: 'the rate every template uses', query: 'sum(rate(container_cpu_usage_seconds_total[5m]))' },
  { name: 'range at the bound', query: 'max_over_time(x[1h])' },
  { name: 'range in two units at the bound', query: 'max_over_time(x[59m60s])' },
  { name: 'range just over the bound', query: 'max_over_time(x[1h1s])', error: RANGE_FLAG },
  { name: 'range in days', query: 'avg_over_time(x[30d])', error: /range \[30d\] is longer than the 1h/ },
  { name: 'range in years', query: 'rate(x[1y])', error: RANGE_FLAG },
  { name: 'range of seconds as a number', query: 'rate(x[3600])', prometheus3: true },
  { name: 'range of seconds as a number, over', query: 'rate(x[3601])', error: RANGE_FLAG },
  { name: 'range of seconds in exponent form, over', query: 'rate(x[1e9])', error: RANGE_FLAG },
  { name: 'a huge number of years', query: 'rate(x[99999999999999999999y])', error: RANGE_FLAG },
  { name: 'the review subquery', query: 'max_over_time(rate(container_cpu_usage_seconds_total[1m])[30d:1s])', error: /subquery range \[30d\] is longer than the 1h/ },
  { name: 'subquery at both bounds', query: 'max_over_time(rate(x[5m])[1h:10s])' },
  { name: 'subquery resolution in ms at the floor', query: 'max_over_time(rate(x[5m])[1h:10000ms])' },
  { name: 'subquery resolution 1ms under the floor', query: 'max_over_time(rate(x[5m])[1h:9999ms])', error: STEP_FLAG },
  { name: 'short subquery with a fine resolution', query: 'max_over_time(rate(x[1m])[5m:1s])', error: /subquery resolution \[5m:1s\] is finer than the 10s/ },
  { name: 'zero resolution', query: 'max_over_time(x[5m:0s])', error: STEP_FLAG },
  { name: 'subquery at the evaluation interval', query: 'max_over_time(rate(x[5m])[1h:])' },
  { name: 'subquery over the bound without a resolution', query: 'max_over_time(rate(x[5m])[2h:])', error: RANGE_FLAG },
  { name: 'nested subqueries within bounds', query: 'max_over_time(avg_over_time(rate(x[5m])[30m:1m])[1h:5m])' },
  { name: 'nested: the inner one too fine', query: 'max_over_time(avg_over_time(rate(x[5m])[30m:1s])[1h:5m])', error: /\[30m:1s\] is finer/ },
  { name: 'nested: the outer one too long', query: 'max_over_time(avg_over_time(rate(x[5m])[30m:1m])[1d:5m])', error: /subquery range \[1d\]/ },
  { name: 'nested: a long range at the bottom', query: 'max_over_time(avg_over_time(rate(x[2h])[30m:1m])[1h:5m])', error: /range \[2h\]/ },
  { name: 'offset is not a range', query: 'rate(x[5m] offset 30d)' },
  { name: 'offset on a subquery', query: 'max_over_time(rate(x[5m])[1h:1m] offset 7d)' },
  { name: 'offset does not hide a long range', query: 'rate(x[2h] offset 5m)', error: RANGE_FLAG },
  { name: '@ on a range', query: 'rate(x[1h] @ 1700000000)' },
  { name: '@ end() on a subquery', query: 'max_over_time(rate(x[5m])[1h:1m] @ end())' },
  { name: '@ does not hide a fine subquery', query: 'max_over_time(rate(x[5m])[1h:1s] @ start())', error: STEP_FLAG },
  { name: 'whitespace inside the brackets', query: 'max_over_time(rate(x[5m])[ 30d : 1s ])', error: RANGE_FLAG },
  { name: 'comment inside the brackets', query: 'rate(x[ # one hour?\n 2h ])', error: /range \[2h\]/ },
  { name: 'comment holding a short range', query: 'rate(x[5m]) # [1h:1s] is not read\n', error: undefined },
  { name: 'comment before the subquery colon', query: 'max_over_time(x[1h # c\n:1s])', error: STEP_FLAG },
  { name: 'duration arithmetic', query: 'rate(x[30m*2])', error: /duration expression/, prometheus3: true },
  { name: 'step() as a range', query: 'rate(x[step()])', error: /duration expression/, prometheus3: true },
  { name: 'step() as a resolution', query: 'max_over_time(x[1h:step()])', error: /subquery resolution \[step\(\)\] is a duration expression/, prometheus3: true },
  { name: 'a negative range', query: 'rate(x[-5m])', error: /duration expression/, prometheus3: true },
  { name: 'a hexadecimal range', query: 'rate(x[0x10])', error: /not a duration Prometheus reads/, prometheus3: true },
];
