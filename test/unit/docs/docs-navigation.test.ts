// The docs can be navigated: every page under docs/ is reachable from README.md or docs/README.md, every
// relative link in the Markdown a user reads lands on a file that exists (and, for `#anchor` links, on a
// heading GitHub renders with that id), BENCHMARKS.md stays the current figures only (small), and the
// licence package.json declares is there.
import { expect } from 'chai';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');

const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
/** The Markdown files whose links are checked. */
const PAGES = ['README.md', 'BENCHMARKS.md', 'CHANGELOG.md', ...DOCS];

/** The text outside fenced code blocks, line by line (fenced lines become empty, so line numbers hold). */
function prose(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (m) {
      const marker = (m[1] as string)[0] as string;
      if (fence === undefined) fence = marker;
      else if (fence === marker) fence = undefined;
      return '';
    }
    return fence === undefined ? line : '';
  });
}

/** GitHub's heading id (github-slugger): lower case, punctuation and symbols dropped, spaces to hyphens. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/`([^`]*)`/g, '$1') // code spans: their content
    .replace(/<[^>]+>/g, ''); // inline HTML tags
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every heading id of a Markdown file, with GitHub's -1, -2 suffixes for repeats. */
function anchors(rel: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(read(rel))) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = githubSlug(m[1] as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

interface Link {
  page: string;
  line: number;
  target: string;
}

/** Relative links (`[text](target)`) outside code; absolute URLs and mail links are left out. */
function links(page: string): Link[] {
  const found: Link[] = [];
  prose(read(page)).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, '');
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1] as string;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      found.push({ page, line: i + 1, target });
    }
  });
  return found;
}

/** The repository path a link points at ('' for a link to a heading of the same page). */
function resolveLink(link: Link): { path: string; anchor?: string } {
  const [pathPart, anchor] = link.target.split('#', 2) as [string, string | undefined];
  const path = pathPart === '' ? link.page : relative(ROOT, resolve(join(ROOT, dirname(link.page)), decodeURIComponent(pathPart.split('?')[0] as string)));
  return anchor === undefined ? { path } : { path, anchor: decodeURIComponent(anchor) };
}

describe('docs navigation', () => {
  const all = PAGES.filter((p) => existsSync(join(ROOT, p))).flatMap(links);

  it('finds the pages and their links', () => {
    expect(DOCS).to.include.members(['docs/README.md', 'docs/operations.md', 'docs/migration-from-crane.md', 'docs/tuning-prediction.md']);
    expect(all.length).to.be.greaterThan(50);
  });

  it('links every docs/*.md from README.md or docs/README.md', () => {
    const linked = new Set([...links('README.md'), ...links('docs/README.md')].map((l) => resolveLink(l).path));
    expect(DOCS.filter((d) => d !== 'docs/README.md' && !linked.has(d))).to.deep.equal([]);
    expect(linked.has('docs/README.md'), 'README.md links docs/README.md').to.equal(true);
  });

  it('every relative link lands on a file that exists', () => {
    const broken = all.filter((l) => !existsSync(join(ROOT, resolveLink(l).path)));
    expect(broken.map((l) => `${l.page}:${l.line}: ${l.target}`)).to.deep.equal([]);
  });

  it('every #anchor into a Markdown file names one of its headings', () => {
    const cache = new Map<string, Set<string>>();
    const broken = all.filter((l) => {
      const { path, anchor } = resolveLink(l);
      if (anchor === undefined || !path.endsWith('.md') || !existsSync(join(ROOT, path))) return false;
      if (!cache.has(path)) cache.set(path, anchors(path));
      return !(cache.get(path) as Set<string>).has(anchor);
    });
    expect(broken.map((l) => `${l.page}:${l.line}: ${l.target}`)).to.deep.equal([]);
  });

  it('slugs headings the way GitHub does', () => {
    expect(githubSlug('Does prediction pay (`npm run eval:value`)')).to.equal('does-prediction-pay-npm-run-evalvalue');
    expect(githubSlug('Troubleshooting "unable to get metric"')).to.equal('troubleshooting-unable-to-get-metric');
    expect(githubSlug('`ehpa-adapter serve`')).to.equal('ehpa-adapter-serve');
    expect(githubSlug("Reading an EHPA's status")).to.equal('reading-an-ehpas-status');
    expect(githubSlug('C.7 Either generation’s cron rules (`--cron-semantics`)')).to.equal('c7-either-generations-cron-rules---cron-semantics');
  });

  it('keeps BENCHMARKS.md to the current figures: at most 30 KB', () => {
    const size = Buffer.byteLength(read('BENCHMARKS.md'));
    expect(size, `BENCHMARKS.md is ${size} bytes`).to.be.at.most(30 * 1024);
  });

  it('ships the licence package.json declares (Apache-2.0), and a changelog', () => {
    const pkg = JSON.parse(read('package.json')) as { license: string };
    expect(pkg.license).to.equal('Apache-2.0');
    const licence = read('LICENSE');
    expect(licence.trimStart().startsWith('Apache License')).to.equal(true);
    expect(licence).to.include('Version 2.0, January 2004');
    expect(licence).to.include('END OF TERMS AND CONDITIONS');
    expect(read('CHANGELOG.md')).to.match(/^## Unreleased$/m);
  });
});
