// The TSP reconciler reads as named steps (docs/architecture.md, "Prometheus → forecaster → TSP status"):
// no method or function of the controller's pass, counted from its signature to its closing brace, runs
// over 40 lines. A step that grows past that is split into named steps or a pure function of its own.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import ts from 'typescript';

const MAX_LINES = 40;
const FILES = [
  'src/prediction/controller/tsp-reconciler.ts',
  'src/prediction/controller/metric-predictor.ts',
  'src/prediction/controller/metric-forecast.ts',
  'src/prediction/controller/tsp-conditions.ts',
  'src/prediction/controller/tsp-key-state.ts',
  'src/prediction/controller/tsp-retry.ts',
  'src/prediction/controller/tsp-controller.ts',
];

/** Every method, constructor, accessor and named function of the file with its length in lines. */
export function functionLengths(path: string): { name: string; lines: number }[] {
  const text = readFileSync(path, 'utf8');
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const out: { name: string; lines: number }[] = [];
  const visit = (n: ts.Node) => {
    if ((ts.isMethodDeclaration(n) || ts.isConstructorDeclaration(n) || ts.isFunctionDeclaration(n) || ts.isGetAccessor(n) || ts.isSetAccessor(n)) && n.body) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      out.push({ name: n.name?.getText(sf) ?? 'constructor', lines: last - first + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe('architecture: the TSP controller in short named steps', () => {
  for (const file of FILES) {
    it(`${file}: no method or function over ${MAX_LINES} lines`, () => {
      const lengths = functionLengths(file);
      expect(lengths.length).to.be.above(0);
      expect(lengths.filter((f) => f.lines > MAX_LINES).map((f) => `${f.name}: ${f.lines} lines`)).to.deep.equal([]);
    });
  }
});
