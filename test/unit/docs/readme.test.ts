// README.md is true to the letter: every repository path it names exists, every `--flag` it names is a
// flag of one of our commands (or of the demo, or of the one external tool it shows), every npm script
// it names is in package.json, and it stays short enough to read in a few minutes.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../../../src/cli/commands.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

describe('README.md', () => {
  it('names only paths that exist (links and `code` spans)', () => {
    const named = new Set<string>();
    for (const m of README.matchAll(/`([^`\s]+)`|\]\(([^)\s#]+)\)/g)) {
      const p = (m[1] ?? m[2]) as string;
      if (/^(src|test|docs|scripts|examples|crds|manifests|bench|bin|\.ci)\/|^[\w.-]+\.(md|json|ts)$/.test(p)) named.add(p.replace(/\/$/, ''));
    }
    expect(named.size).to.be.greaterThan(10);
    expect([...named].filter((p) => !existsSync(join(ROOT, p)))).to.deep.equal([]);
  });

  it('names only flags that exist', () => {
    const ours = new Set(COMMANDS.flatMap((c) => c.flags.map((f) => f.name)));
    const demoSource = readFileSync(join(ROOT, 'scripts/demo.ts'), 'utf8');
    const demo = new Set([...demoSource.matchAll(/name: '([a-z-]+)'/g)].map((m) => m[1] as string));
    const external = new Set(['server-side']); // kubectl apply
    const flags = [...new Set([...README.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((m) => m[1] as string))];
    expect(flags.length).to.be.greaterThan(3);
    expect(flags.filter((f) => !ours.has(f) && !demo.has(f) && !external.has(f))).to.deep.equal([]);
  });

  it('names only npm scripts that exist, and its two commands are the ones .ci/run relies on', () => {
    const scripts = [...README.matchAll(/npm run ([a-z0-9:-]+)/g)].map((m) => m[1] as string);
    expect(scripts).to.include.members(['demo', 'test:unit']);
    expect(scripts.filter((s) => !(s in pkg.scripts))).to.deep.equal([]);
    expect(README).to.include('npm ci && npm run demo');
    expect(README).to.match(/```sh\nnpm test\n```/);
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).to.match(/^exec npm test$/m);
    expect(pkg.scripts.test).to.match(/^bash scripts\/setup\.sh && /);
    expect(pkg.scripts.demo).to.match(/^bash scripts\/setup\.sh && /);
  });

  it('reads in five minutes (at most 1,200 words)', () => {
    expect(README.split(/\s+/).filter(Boolean).length).to.be.at.most(1200);
  });
});
