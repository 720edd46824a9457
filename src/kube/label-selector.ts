// The string form of a label selector, as `/scale` returns it in status.selector ("app=web,tier in (a,b)"),
// parsed into a predicate over labels. Equality and set-based requirements, as apimachinery's parser.

type Requirement = (labels: Record<string, string>) => boolean;

export class SelectorSyntaxError extends Error {
  override name = 'SelectorSyntaxError';
}

// Split on commas that are not inside parentheses.
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s.length > 0);
}

function parseRequirement(part: string): Requirement {
  let m = /^(!?)\s*([A-Za-z0-9._/-]+)$/.exec(part);
  if (m) {
    const [, not, key] = m as unknown as [string, string, string];
    return not ? (l) => !(key in l) : (l) => key in l;
  }
  m = /^([A-Za-z0-9._/-]+)\s*(==|!=|=)\s*([A-Za-z0-9._-]*)$/.exec(part);
  if (m) {
    const [, key, op, value] = m as unknown as [string, string, string, string];
    return op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  m = /^([A-Za-z0-9._/-]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part);
  if (m) {
    const [, key, op, list] = m as unknown as [string, string, string, string];
    const values = new Set(list.split(',').map((v) => v.trim()).filter((v) => v.length > 0));
    return op === 'in' ? (l) => key in l && values.has(l[key] as string) : (l) => !(key in l) || !values.has(l[key] as string);
  }
  throw new SelectorSyntaxError(`cannot parse label selector requirement "${part}"`);
}

/** An empty selector matches everything, as in Kubernetes. Throws SelectorSyntaxError on bad text. */
export function parseLabelSelector(text: string): (labels: Record<string, string> | undefined) => boolean {
  const reqs = splitTop(text).map(parseRequirement);
  return (labels) => reqs.every((r) => r(labels ?? {}));
}
