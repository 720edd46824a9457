// The repository stands on its own: a clone with nothing beside it has everything the product, its docs
// and its tests need. So no tracked file points outside it (a sibling checkout, a build machine's paths),
// and every `docs/<file>.md §<section>` citation in code names a section that exists.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
const TEXT = /\.(ts|js|json|md|ya?ml|sh|go|mod|txt|svg)$|^Dockerfile$|^\.[a-z]+rc/;
const read = (f: string) => readFileSync(join(ROOT, f), 'utf8');

describe('the repository is self-contained', () => {
  it('lists a plausible set of tracked files (git works here)', () => {
    expect(tracked).to.include('package.json');
    expect(tracked.length).to.be.greaterThan(100);
  });

  it('no tracked file outside .ci/ mentions the sibling notes directory or a machine path', () => {
    // Built from parts so this file does not match itself.
    const sibling = ['..', 'shared'].join('/');
    const machine = new RegExp(['/', 'work', '/'].join(''));
    const offenders: string[] = [];
    for (const f of tracked) {
      if (f.startsWith('.ci/') || f.startsWith('test/fixtures/') || !TEXT.test(f.split('/').pop() as string)) continue;
      const text = read(f);
      text.split('\n').forEach((line, i) => {
        if (line.includes(sibling) || machine.test(line)) offenders.push(`${f}:${i + 1}: ${line.trim().slice(0, 100)}`);
      });
    }
    expect(offenders).to.deep.equal([]);
  });

  it('every docs/<file>.md §<section> citation in code names an existing file and section heading', () => {
    const headings = new Map<string, Set<string>>();
    const sectionsOf = (doc: string): Set<string> | undefined => {
      if (!headings.has(doc)) {
        if (!tracked.includes(doc)) return undefined;
        // `## A. Title`, `### B.3 Title`, `#### C.5.2 Title`, `## 5. Title`, `### 7.1 Title`: the number is the section.
        const ids = [...read(doc).matchAll(/^#{1,6} +([A-Z]|\d+|[A-Z](?:\.\d+)+|\d+(?:\.\d+)+)\.? /gm)].map((m) => m[1] as string);
        headings.set(doc, new Set(ids));
      }
      return headings.get(doc);
    };
    const bad: string[] = [];
    let checked = 0;
    for (const f of tracked) {
      if (!/^(src|test|bench|scripts)\/.*\.ts$/.test(f)) continue;
      for (const m of read(f).matchAll(/docs\/([a-z-]+\.md)((?: *§ *[A-Z0-9][A-Z0-9.]*[A-Z0-9](?:[,–-] *)?| *§ *[A-Z0-9](?:[,–-] *)?)*)/g)) {
        const doc = `docs/${m[1]}`;
        const ids = sectionsOf(doc);
        if (!ids) {
          bad.push(`${f}: ${doc} does not exist`);
          continue;
        }
        for (const s of (m[2] ?? '').matchAll(/§ *([A-Z0-9][A-Z0-9.]*)/g)) {
          const id = (s[1] as string).replace(/\.$/, '');
          checked++;
          if (!ids.has(id)) bad.push(`${f}: ${doc} has no section ${id}`);
        }
      }
    }
    expect(bad).to.deep.equal([]);
    expect(checked).to.be.greaterThan(50);
  });
});
