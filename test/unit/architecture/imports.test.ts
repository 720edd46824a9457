// The import rule of docs/architecture.md ("Rooms and the allowed imports"), checked over the real import
// graph of src/ (eslint checks it per file; this also sees re-exports and proves the table covers every
// room): a room imports only rooms on a lower floor (or itself), so the stack cannot grow back upside down. The shared Kubernetes vocabulary (src/api) is the ground floor; kube/ may use only its
// generic part (meta, autoscaling, pod), never the EHPA or TSP types.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLOORS as ROOM_FLOORS } from '../../../eslint.config.js';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

// One table of floors, shared with eslint.config.js (which enforces the same rule file by file in `npm run
// lint`); main.ts sits on top.
const FLOORS: Record<string, number> = { ...ROOM_FLOORS, 'main.ts': 7 };

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

  it("the adapter serves values, it does not build TSPs or history queries: nothing in adapter/ imports the controller's TSP builder or prediction/history", () => {
    const bad = all.filter((e) => e.from.startsWith('adapter/') && (e.to === 'ehpa/desired-tsp.ts' || e.to.startsWith('prediction/history/')));
    expect(bad.map((e) => `${e.from} -> ${e.to}`)).to.deep.equal([]);
  });

  it('the vocabulary imports nothing of ours but itself', () => {
    const bad = all.filter((e) => e.from.startsWith('api/') && !e.to.startsWith('api/'));
    expect(bad.map((e) => `${e.from} -> ${e.to}`)).to.deep.equal([]);
  });
});
