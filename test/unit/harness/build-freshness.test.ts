// The e2e harness's guard against running an old dist/ in place of the sources (build-freshness.ts).
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertBuildFresh, newestFile, staleBuildProblem } from '../../e2e/harness/build-freshness.ts';

describe('e2e harness build freshness', () => {
  let dir: string;
  const at = (path: string, seconds: number) => {
    writeFileSync(path, 'x');
    utimesSync(path, seconds, seconds);
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'build-freshness-'));
    mkdirSync(join(dir, 'src', 'deep', 'er'), { recursive: true });
    mkdirSync(join(dir, 'dist'));
    at(join(dir, 'src', 'a.ts'), 1_000);
    at(join(dir, 'src', 'deep', 'er', 'b.ts'), 2_000);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the newest file however deep it is', () => {
    expect(newestFile(join(dir, 'src'))).to.deep.equal({ path: join(dir, 'src', 'deep', 'er', 'b.ts'), mtimeMs: 2_000_000 });
    expect(newestFile(join(dir, 'dist'))).to.equal(null);
  });

  it('refuses a build older than a source file, naming the file and what to do', () => {
    at(join(dir, 'dist', 'main.js'), 1_500);
    const problem = staleBuildProblem(join(dir, 'dist', 'main.js'), join(dir, 'src'));
    expect(problem).to.contain(join('deep', 'er', 'b.ts')).and.to.contain('by 500 s').and.to.contain('npm run build');
  });

  it('accepts a build at least as new as every source, and no build at all', () => {
    at(join(dir, 'dist', 'main.js'), 2_000);
    expect(staleBuildProblem(join(dir, 'dist', 'main.js'), join(dir, 'src'))).to.equal(null);
    rmSync(join(dir, 'dist', 'main.js'));
    expect(staleBuildProblem(join(dir, 'dist', 'main.js'), join(dir, 'src'))).to.equal(null);
  });

  it('assertBuildFresh throws that problem for a repository root, and passes a fresh build or none', () => {
    at(join(dir, 'dist', 'main.js'), 1_500);
    expect(() => assertBuildFresh(dir)).to.throw(/older than .*b\.ts .*npm run build/);
    at(join(dir, 'dist', 'main.js'), 2_500);
    expect(() => assertBuildFresh(dir)).not.to.throw();
    rmSync(join(dir, 'dist', 'main.js'));
    expect(() => assertBuildFresh(dir)).not.to.throw();
  });
});
