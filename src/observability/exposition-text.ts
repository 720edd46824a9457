// Prometheus text exposition (format 0.0.4) for series prom-client cannot express: a sample with its own
// timestamp. prom-client's registry always lets the scraper stamp the sample, but a forecast point belongs
// at its future instant (craned's crane_prediction_tsp, docs/crane-behaviour.md §C.6). Pure: families in,
// text out; health-server.ts appends it after the registry's text.

export interface TextSample {
  labels: Readonly<Record<string, string>>;
  value: number;
  /** Milliseconds since the epoch; absent: Prometheus stamps the sample with the scrape time. */
  timestampMs?: number;
}

export interface TextFamily {
  name: string;
  help: string;
  type: 'gauge';
  samples: readonly TextSample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const NEEDS_ESCAPE = /[\\\n"]/;

/** A label value as the text format needs it: backslash, double quote and newline escaped. */
function escapeLabelValue(v: string): string {
  // Names and kinds never need it: skip three replaces on 10,000s of values per scrape.
  if (!NEEDS_ESCAPE.test(v)) return v;
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

/** HELP text escapes only backslash and newline. */
function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/**
 * The lines of the families, one `# HELP`/`# TYPE` header each and a line per sample. A sample whose value or
 * timestamp is not finite is left out rather than written as NaN/Inf: every series here is read by an HPA
 * or a dashboard as a number of cores or replicas. Names are checked because they come from code, and a bad
 * one would make Prometheus reject the whole scrape.
 */
function* expositionLines(families: readonly TextFamily[]): Generator<string> {
  const checkedNames = new Set<string>();
  // Families often share one labels object per series (both TSP families do): format it once.
  const formatted = new WeakMap<object, string>();
  const labelText = (labels: Readonly<Record<string, string>>, family: string): string => {
    const known = formatted.get(labels);
    if (known !== undefined) return known;
    let text = '';
    for (const k in labels) {
      if (!checkedNames.has(k)) {
        if (!LABEL_NAME.test(k)) throw new Error(`invalid label name ${JSON.stringify(k)} on ${family}`);
        checkedNames.add(k);
      }
      text += `${text ? ',' : ''}${k}="${escapeLabelValue(labels[k] as string)}"`;
    }
    text = text ? `{${text}}` : '';
    formatted.set(labels, text);
    return text;
  };
  for (const f of families) {
    if (!NAME.test(f.name)) throw new Error(`invalid metric name ${JSON.stringify(f.name)}`);
    yield `# HELP ${f.name} ${escapeHelp(f.help)}`;
    yield `# TYPE ${f.name} ${f.type}`;
    for (const s of f.samples) {
      if (!Number.isFinite(s.value)) continue;
      if (s.timestampMs !== undefined && !Number.isFinite(s.timestampMs)) continue;
      const ts = s.timestampMs === undefined ? '' : ` ${Math.trunc(s.timestampMs)}`;
      yield `${f.name}${labelText(s.labels, f.name)} ${s.value}${ts}`;
    }
  }
}

/** The families as exposition text (empty when there are none). */
export function expositionText(families: readonly TextFamily[]): string {
  const out = [...expositionLines(families)];
  return out.length ? `${out.join('\n')}\n` : '';
}

/**
 * expositionText for tens of thousands of samples: the same text, written in stretches of at most `sliceMs`
 * between yields to the event loop, so a scrape does not hold up requests served by the same process.
 */
export async function expositionTextSliced(families: readonly TextFamily[], sliceMs = 5): Promise<string> {
  const out: string[] = [];
  let since = performance.now();
  for (const line of expositionLines(families)) {
    out.push(line);
    if (out.length % 256 === 0 && performance.now() - since >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
  return out.length ? `${out.join('\n')}\n` : '';
}
