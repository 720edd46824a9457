// What a release relies on, checked on every test run rather than on the day of a tag:
//   - one version names the package, the chart and the image (CHANGELOG.md's version scheme), and the
//     CHANGELOG has notes for it, so `git tag v<version>` passes .github/workflows/release.yml's first job;
//   - the container build fetches from package registries only (Docker Hub and the npm registry), so a
//     public CI or a user's own builder can build the image with nothing else reachable.
// The workflow files themselves are linted and read in test/slow/workflows.test.ts.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const pkg = JSON.parse(read('package.json')) as { version: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };
const chart = parse(read('charts/ehpa-adapter/Chart.yaml')) as { version: string; appVersion: string };

describe('release: one version for package, chart and image', () => {
  it('package.json version == Chart.yaml version == Chart.yaml appVersion, a semver', () => {
    expect(pkg.version).to.match(/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$/);
    expect(chart.version).to.equal(pkg.version);
    // A string in the YAML: an unquoted 1.10 would be read as the number 1.1.
    expect(chart.appVersion).to.be.a('string').and.equal(pkg.version);
  });

  it('CHANGELOG.md has a section with text for that version, below Unreleased', () => {
    const text = read('CHANGELOG.md');
    const headings = [...text.matchAll(/^## +(.*)$/gm)];
    const esc = pkg.version.replace(/\./g, '\\.');
    const at = headings.findIndex((h) => new RegExp(`^\\[?${esc}(?![0-9A-Za-z.+-])`).test(h[1] as string));
    expect(at, `## ${pkg.version} in CHANGELOG.md`).to.be.at.least(0);
    const start = (headings[at]?.index as number) + (headings[at]?.[0].length as number);
    const end = headings[at + 1]?.index ?? text.length;
    expect(text.slice(start, end).trim()).to.not.equal('');
    const unreleased = headings.findIndex((h) => /^Unreleased\b/i.test(h[1] as string));
    if (unreleased >= 0) expect(unreleased).to.be.below(at);
  });
});

/** Dockerfile instructions, continuation lines joined, comments dropped. */
function instructions(text: string): { op: string; args: string }[] {
  const joined = text.split('\n').filter((l) => !/^\s*#/.test(l)).join('\n').replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((l) => /^\s*(\S+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ op: (m[1] as string).toUpperCase(), args: (m[2] as string).trim() }));
}

describe('release: the container build fetches from package registries only', () => {
  const text = read('Dockerfile');
  const ins = instructions(text);

  it('every base image and the syntax frontend come from Docker Hub', () => {
    const syntax = /^# syntax=(\S+)/.exec(text)?.[1];
    const images = ins.filter((i) => i.op === 'FROM').map((i) => i.args.replace(/^--platform=\S+\s+/, '').split(/\s+/)[0] as string);
    const stages = ins.filter((i) => i.op === 'FROM').map((i) => /\sAS\s+(\S+)$/i.exec(i.args)?.[1]).filter(Boolean);
    expect(images.length).to.be.at.least(2);
    for (const ref of [...(syntax ? [syntax] : []), ...images.filter((i) => !stages.includes(i))]) {
      // A reference names another registry when its first component has a dot or a port (ghcr.io/x, host:5000/x).
      const first = ref.split('/')[0] as string;
      const hub = !ref.includes('/') || first === 'docker.io' || !/[.:]/.test(first);
      expect(hub, `${ref} is on Docker Hub`).to.equal(true);
    }
  });

  it('no instruction downloads anything itself: no ADD, no URL, curl, wget or git in a RUN', () => {
    expect(ins.filter((i) => i.op === 'ADD')).to.deep.equal([]);
    const runs = ins.filter((i) => i.op === 'RUN').map((i) => i.args);
    expect(runs.length).to.be.at.least(2);
    for (const r of runs) {
      expect(r).to.not.match(/\b(curl|wget|git)\b|https?:\/\//);
      // npm itself goes to the npm registry: no --registry override, no install of an ad-hoc package.
      expect(r).to.not.match(/--registry\b|\bnpm (i|install|add)\b/);
    }
    expect(existsSync(join(ROOT, '.npmrc')) ? read('.npmrc') : '').to.not.match(/registry\s*=/);
  });

  it('the lockfile names only registry versions, and no production dependency needs an install script', () => {
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { resolved?: string; version?: string; dev?: boolean; hasInstallScript?: boolean; link?: boolean }>;
    };
    const entries = Object.entries(lock.packages).filter(([k]) => k !== '');
    expect(entries.length).to.be.greaterThan(100);
    for (const [k, p] of entries) {
      expect(p.link, `${k} is a link`).to.not.equal(true);
      if (p.resolved) expect(p.resolved, k).to.match(/^https:\/\/registry\.npmjs\.org\//);
      expect(p.version, k).to.match(/^\d+\.\d+\.\d+/);
    }
    for (const [name, spec] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
      expect(spec, name).to.not.match(/[:/#]/); // git:, github:, file:, http:, user/repo
    }
    // The image installs with --ignore-scripts: a production dependency that needs its install script (a
    // native addon) would be silently broken there.
    expect(read('Dockerfile')).to.match(/npm ci --omit=dev .*--ignore-scripts/);
    const scripted = entries.filter(([, p]) => !p.dev && p.hasInstallScript).map(([k]) => k);
    expect(scripted).to.deep.equal([]);
  });
});
