// The import rule of docs/architecture.md ("Rooms and the allowed imports"), enforced over the real import
// graph of src/: a room imports only rooms on a lower floor (or itself), so the stack cannot grow back
// upside down. The shared Kubernetes vocabulary (src/api) is the ground floor; kube/ may use only its
// generic part (meta, autoscaling, pod), never the EHPA or TSP types.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

/** Floor of each room (top-level folder of src/, or main.ts). Lower floors never import higher ones. */
export const FLOORS: Record<string, number> = {
  api: 0,
  gomath: 0,
  quantity: 0,
  selectors: 1,
  cron: 1,
  config: 1,
  observability: 1,
  hpa: 1,
  kube: 2,
  metrics: 3,
  prediction: 3,
  ehpa: 4,
  vpa: 4,
  adapter: 5,
  simulate: 5,
  cli: 6,
  'main.ts': 7,
};

function* tsFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* tsFiles(p);
    else if (e.name.endsWith('.ts')) yield p;
  }
}


interface Edge {
  from: string;
  to: string;
}

function edges(): Edge[] {
  const out: Edge[] = [];
  for (const file of tsFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^(?:import|export)[^;]*? from '(\.[^']+)';/gm)) {
      out.push({ from: relative(SRC, file), to: relative(SRC, resolve(dirname(file), m[1] as string)) });
    }
  }
  return out;
}

describe('import rule (docs/architecture.md)', () => {
  const all = edges();

  it('reads the real graph: every room has a floor', () => {
    expect(all.length).to.be.greaterThan(300);
    const rooms = new Set(all.flatMap((e) => [e.from.split('/')[0], e.to.split('/')[0]]));
    expect([...rooms].filter((r) => !(r! in FLOORS))).to.deep.equal([]);
  });

  it('no import runs up or sideways to another room on the same floor', () => {
    const bad = all.filter((e) => {
      const a = e.from.split('/')[0] as string;
      const b = e.to.split('/')[0] as string;
      return a !== b && (FLOORS[b] as number) >= (FLOORS[a] as number);
    });
    expect(bad.map((e) => `${e.from} -> ${e.to}`)).to.deep.equal([]);
  });

  it('kube/ knows the API server, not EHPAs or TSPs: it uses only the generic vocabulary', () => {
    const bad = all.filter((e) => e.from.startsWith('kube/') && e.to.startsWith('api/') && !/^api\/(meta|autoscaling|pod)\.ts$/.test(e.to));
    expect(bad.map((e) => `${e.from} -> ${e.to}`)).to.deep.equal([]);
  });

  it('the vocabulary imports nothing of ours but itself', () => {
    const bad = all.filter((e) => e.from.startsWith('api/') && !e.to.startsWith('api/'));
    expect(bad.map((e) => `${e.from} -> ${e.to}`)).to.deep.equal([]);
  });
});
