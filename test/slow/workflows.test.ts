// The CI and release workflows (.github/workflows) cannot run here, so they are checked three ways:
//   1. actionlint (built from the Go module proxy by scripts/build-actionlint.sh) accepts them: syntax,
//      expressions, job graph, action inputs, a local reusable workflow's trigger;
//   2. the release workflow does what a release needs (read from the YAML): only v-tags trigger it, the tag
//      is checked first, the tests gate every publishing job, the image is built for amd64 and arm64, the
//      chart is pushed to ghcr.io, and each job's token has only the scopes its steps use;
//   3. scripts/release-check.sh and scripts/changelog-section.sh, which the workflow runs, behave on copies
//      of the version files: they pass for today's version and refuse each kind of mismatch.
// In test/slow: the first run builds actionlint (about a minute and a half on 2 cores).
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'mocha';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKFLOWS = join(ROOT, '.github', 'workflows');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const VERSION = (JSON.parse(read('package.json')) as { version: string }).version;

/* eslint-disable @typescript-eslint/no-explicit-any -- loose views of the workflow YAML */
type Step = { uses?: string; run?: string; with?: Record<string, any>; id?: string; env?: Record<string, string> };
type Job = { needs?: string | string[]; permissions?: Record<string, string>; steps?: Step[]; uses?: string; 'runs-on'?: string };
type Workflow = { on: any; permissions?: any; jobs: Record<string, Job> };
/* eslint-enable @typescript-eslint/no-explicit-any */

const workflow = (file: string) => parse(readFileSync(join(WORKFLOWS, file), 'utf8')) as Workflow;
const needsOf = (j: Job): string[] => (j.needs === undefined ? [] : Array.isArray(j.needs) ? j.needs : [j.needs]);
const stepsUsing = (j: Job, action: string) => (j.steps ?? []).filter((s) => s.uses?.split('@')[0] === action);
const runText = (j: Job) => (j.steps ?? []).map((s) => s.run ?? '').join('\n');

/** Every job `name` waits for, directly or through other jobs. */
function ancestors(jobs: Record<string, Job>, name: string, seen = new Set<string>()): Set<string> {
  for (const n of needsOf(jobs[name] as Job)) {
    if (!seen.has(n)) {
      seen.add(n);
      ancestors(jobs, n, seen);
    }
  }
  return seen;
}

/** GitHub's filter pattern for refs (`*` any run of characters but `/`), as a RegExp. */
function refGlob(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*' && pattern[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') re += '[^/]*';
    else re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

function actionlintBin(): string {
  const out = execFileSync('bash', [join(ROOT, 'scripts', 'build-actionlint.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return out.trim().split('\n').pop() as string;
}

/** actionlint on the given workflow files; shellcheck and pyflakes only when installed (not required). */
function actionlint(bin: string, files: string[], cwd: string) {
  const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
  const off = [...(has('shellcheck') ? [] : ['-shellcheck=']), ...(has('pyflakes') ? [] : ['-pyflakes='])];
  return spawnSync(bin, ['-no-color', '-oneline', ...off, ...files], { cwd, encoding: 'utf8' });
}

describe('.github/workflows: actionlint', function () {
  let bin = '';
  before(function (this: Context) {
    this.timeout(20 * 60_000); // a cold actionlint build
    bin = actionlintBin();
  });

  it('passes both workflows, and it is the pinned version that judged them', () => {
    const files = readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f)).sort();
    expect(files).to.deep.equal(['ci.yml', 'release.yml']);
    const r = actionlint(bin, files.map((f) => join('.github', 'workflows', f)), ROOT);
    expect(r.status, `${r.stdout}${r.stderr}`).to.equal(0);
    const version = spawnSync(bin, ['-version'], { encoding: 'utf8' }).stdout;
    const pinned = /ACTIONLINT_VERSION:-(v[\d.]+)/.exec(read('scripts/build-actionlint.sh'))?.[1];
    expect((version.split('\n')[0] as string).replace(/^v?/, 'v')).to.equal(pinned);
  });

  it('catches a broken workflow: ci.yml without workflow_call breaks release.yml\'s call; a misspelt action input', () => {
    // The same files in a scratch repository (actionlint finds the project, and so the local reusable
    // workflow, by its .git), each with one fault that only a real check would see.
    const dir = mkdtempSync(join(tmpdir(), 'ehpa-actionlint-'));
    try {
      execFileSync('git', ['init', '-q', dir]);
      const wf = join(dir, '.github', 'workflows');
      mkdirSync(wf, { recursive: true });
      const ci = readFileSync(join(WORKFLOWS, 'ci.yml'), 'utf8');
      expect(ci).to.match(/^ {2}workflow_call:\n/m);
      writeFileSync(join(wf, 'ci.yml'), ci.replace(/^ {2}workflow_call:\n/m, ''));
      cpSync(join(WORKFLOWS, 'release.yml'), join(wf, 'release.yml'));
      let r = actionlint(bin, ['.github/workflows/release.yml'], dir);
      expect(r.status).to.equal(1);
      expect(r.stdout).to.match(/release\.yml:\d+:\d+: .*"workflow_call" event trigger is not found/);

      writeFileSync(join(wf, 'ci.yml'), ci.replace(/cache: npm/, 'cahce: npm'));
      r = actionlint(bin, ['.github/workflows/ci.yml'], dir);
      expect(r.status).to.equal(1);
      expect(r.stdout).to.match(/input "cahce" is not defined in action "actions\/setup-node@/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('.github/workflows/ci.yml', () => {
  const ci = workflow('ci.yml');
  const test = ci.jobs['test'] as Job;

  it('runs .ci/run on push and pull_request, and when the release workflow calls it', () => {
    expect(Object.keys(ci.on).sort()).to.deep.equal(['pull_request', 'push', 'workflow_call']);
    expect(runText(test)).to.match(/^bash \.ci\/run$/m);
    expect(read('.ci/run')).to.match(/exec npm test/);
  });

  it('sets up Node 20 and a Go new enough for every module the tests build', () => {
    expect(String(stepsUsing(test, 'actions/setup-node')[0]?.with?.['node-version'])).to.equal('20');
    expect(read('Dockerfile')).to.match(/FROM .*node:20-/);
    const go = String(stepsUsing(test, 'actions/setup-go')[0]?.with?.['go-version']);
    // The newest `go` directive among the oracles' own go.mod files (the build scripts' modules are named in
    // the comment beside go-version: their go.mod files come from the proxy and are not in the repository).
    const need = readdirSync(join(ROOT, 'test', 'oracles'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => /^go (\d+)\.(\d+)/m.exec(readFileSync(join(ROOT, 'test', 'oracles', d.name, 'go.mod'), 'utf8')))
      .map((m) => [Number(m?.[1]), Number(m?.[2])] as const);
    expect(need.length).to.be.at.least(3);
    const [major, minor] = go.split('.').map(Number) as [number, number];
    for (const [ma, mi] of need) expect(major > ma || (major === ma && minor >= mi), `go ${go} >= ${ma}.${mi}`).to.equal(true);
  });

  it('caches ~/.cache/ehpa-adapter keyed on the build scripts, which all cache there', () => {
    const cache = stepsUsing(test, 'actions/cache')[0];
    expect(cache?.with?.['path']).to.equal('~/.cache/ehpa-adapter');
    expect(cache?.with?.['key']).to.include("'scripts/build-*.sh'");
    const scripts = readdirSync(join(ROOT, 'scripts')).filter((f) => /^build-.*\.sh$/.test(f));
    expect(scripts).to.include.members(['build-actionlint.sh', 'build-helm.sh', 'build-control-plane.sh']);
    for (const s of scripts) expect(read(`scripts/${s}`), s).to.include('CACHE_ROOT="${EHPA_CACHE_DIR:-$HOME/.cache/ehpa-adapter}"');
  });
});

describe('.github/workflows/release.yml', () => {
  const rel = workflow('release.yml');
  const jobs = rel.jobs;
  const names = Object.keys(jobs);

  it('is triggered only by pushed tags v<major>.<minor>.<patch>', () => {
    expect(Object.keys(rel.on)).to.deep.equal(['push']);
    expect(Object.keys(rel.on.push)).to.deep.equal(['tags']);
    const globs = (rel.on.push.tags as string[]).map(refGlob);
    const fires = (tag: string) => globs.some((g) => g.test(tag));
    expect(fires(`v${VERSION}`)).to.equal(true);
    expect(fires('v1.2.3-rc.1')).to.equal(true);
    for (const tag of [VERSION, 'latest', 'v1', 'v1.2', 'chart-1.2.3']) expect(fires(tag), tag).to.equal(false);
  });

  it('checks the tag against package.json, Chart.yaml and CHANGELOG.md before anything else', () => {
    const check = names.find((n) => /scripts\/release-check\.sh "\$GITHUB_REF_NAME"/.test(runText(jobs[n] as Job)));
    expect(check, 'a job runs scripts/release-check.sh on the tag').to.be.a('string');
    expect(needsOf(jobs[check as string] as Job)).to.deep.equal([]);
    for (const n of names.filter((n) => n !== check)) expect([...ancestors(jobs, n)], n).to.include(check);
  });

  it('runs the CI workflow and every publishing job waits for it', () => {
    const test = names.find((n) => jobs[n]?.uses === './.github/workflows/ci.yml');
    expect(test, 'a job calls ci.yml').to.be.a('string');
    const publishing = names.filter((n) => /docker\/build-push-action|helm push|gh release|npm pack/.test(JSON.stringify(jobs[n])));
    expect(publishing.length).to.be.at.least(4);
    for (const n of publishing) expect([...ancestors(jobs, n)], n).to.include(test);
  });

  it('builds and pushes the image for linux/amd64 and linux/arm64 to ghcr.io/<repository>, tagged with the version and labelled', () => {
    const [name, job] = Object.entries(jobs).find(([, j]) => stepsUsing(j, 'docker/build-push-action').length > 0) ?? [];
    expect(name, 'a job uses docker/build-push-action').to.be.a('string');
    const steps = (job as Job).steps as Step[];
    const at = (a: string) => steps.findIndex((s) => s.uses?.split('@')[0] === a);
    const build = steps[at('docker/build-push-action')] as Step;
    expect(at('docker/setup-qemu-action')).to.be.within(0, at('docker/build-push-action'));
    expect(at('docker/setup-buildx-action')).to.be.within(0, at('docker/build-push-action'));
    const platforms = String(build.with?.['platforms']).split(',').map((p) => p.trim()).sort();
    expect(platforms).to.deep.equal(['linux/amd64', 'linux/arm64']);
    expect(build.with?.['push']).to.equal(true);
    const meta = steps[at('docker/metadata-action')] as Step;
    expect(meta.id).to.be.a('string');
    expect(String(meta.with?.['images']).trim()).to.equal('ghcr.io/${{ github.repository }}');
    expect(String(meta.with?.['tags'])).to.match(/type=semver,pattern=\{\{version\}\}/);
    expect(build.with?.['tags']).to.equal(`\${{ steps.${meta.id}.outputs.tags }}`);
    expect(build.with?.['labels']).to.equal(`\${{ steps.${meta.id}.outputs.labels }}`);
    for (const l of ['title', 'licenses']) expect(String(meta.with?.['labels'])).to.match(new RegExp(`^org\\.opencontainers\\.image\\.${l}=`, 'm'));
    expect(String(meta.with?.['labels'])).to.include('org.opencontainers.image.licenses=Apache-2.0');
    const login = steps[at('docker/login-action')] as Step;
    expect(login.with?.['registry']).to.equal('ghcr.io');
  });

  it('packages the chart and pushes it to oci://ghcr.io/<owner>/charts with the helm the tests use', () => {
    const chart = names.find((n) => /helm push/.test(runText(jobs[n] as Job)));
    expect(chart, 'a job runs helm push').to.be.a('string');
    const text = runText(jobs[chart as string] as Job);
    expect(text).to.match(/helm package charts\/ehpa-adapter\b/);
    expect(text).to.match(/owner="\$\{GITHUB_REPOSITORY_OWNER,,\}"/);
    expect(text).to.match(/helm push "[^"]+ehpa-adapter-\$VERSION\.tgz" "oci:\/\/ghcr\.io\/\$owner\/charts"/);
    const helm = stepsUsing(jobs[chart as string] as Job, 'azure/setup-helm')[0];
    const tested = /HELM_VERSION:-(v[\d.]+)/.exec(read('scripts/build-helm.sh'))?.[1];
    expect(helm?.with?.['version']).to.equal(tested);
  });

  it('attaches the npm tarball and the chart, under different names, to a release with the CHANGELOG section', () => {
    const release = names.find((n) => /gh release create/.test(runText(jobs[n] as Job))) as string;
    expect(release).to.be.a('string');
    const text = runText(jobs[release] as Job);
    expect(text).to.match(/bash scripts\/changelog-section\.sh "\$VERSION"/);
    expect(text).to.match(/--notes-file/);
    // Both artefacts are uploaded by other jobs; the names must differ or one asset would replace the other.
    const uploads = names.flatMap((n) => stepsUsing(jobs[n] as Job, 'actions/upload-artifact').map((s) => String(s.with?.['path']).split('/').pop() as string));
    expect(uploads).to.have.length(2);
    expect(new Set(uploads).size).to.equal(2);
    for (const u of uploads) expect(text).to.include(u.replace('${{ env.VERSION }}', '$VERSION'));
    expect(runText(jobs[names.find((n) => /npm pack/.test(runText(jobs[n] as Job))) as string] as Job)).to.match(/^npm pack$/m);
  });

  it('gives each job only the token scopes its steps use', () => {
    expect(rel.permissions).to.deep.equal({});
    for (const [n, j] of Object.entries(jobs)) {
      const perms = j.permissions ?? {};
      const body = JSON.stringify(j);
      const pushes = /docker\/login-action|helm registry login/.test(body);
      const releases = /gh release create/.test(body);
      expect(perms['packages'] ?? 'none', `${n} packages`).to.equal(pushes ? 'write' : 'none');
      expect(perms['contents'], `${n} contents`).to.equal(releases ? 'write' : 'read');
      for (const scope of Object.keys(perms)) expect(['contents', 'packages'], `${n}: ${scope}`).to.include(scope);
    }
    // The job holding contents: write runs no project code: no install, build or script beyond the notes.
    const release = Object.values(jobs).find((j) => j.permissions?.['contents'] === 'write') as Job;
    expect(runText(release)).to.not.match(/\bnpm\b|\bnode\b|\bnpx\b/);
  });

  it('pins every action to a version tag (or a commit), never a branch', () => {
    for (const file of ['ci.yml', 'release.yml']) {
      for (const [n, j] of Object.entries(workflow(file).jobs)) {
        for (const s of j.steps ?? []) {
          if (!s.uses || s.uses.startsWith('./')) continue;
          expect(s.uses, `${file} ${n}`).to.match(/^[\w.-]+\/[\w./-]+@(v\d+(\.\d+){0,2}|[0-9a-f]{40})$/);
        }
      }
    }
  });
});

describe('scripts/release-check.sh and scripts/changelog-section.sh, on copies of the version files', function () {
  this.timeout(60_000);
  let dir = '';
  const CHART = 'charts/ehpa-adapter/Chart.yaml';
  const check = (tag: string) => spawnSync('bash', [join(ROOT, 'scripts', 'release-check.sh'), tag], { cwd: dir, encoding: 'utf8' });
  const section = (v: string) => spawnSync('bash', [join(ROOT, 'scripts', 'changelog-section.sh'), v], { cwd: dir, encoding: 'utf8' });
  const edit = (p: string, f: (s: string) => string) => writeFileSync(join(dir, p), f(readFileSync(join(dir, p), 'utf8')));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ehpa-release-check-'));
    for (const p of ['package.json', 'CHANGELOG.md', CHART]) {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      cpSync(join(ROOT, p), join(dir, p));
    }
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes the tag v<today\'s version>', () => {
    const r = check(`v${VERSION}`);
    expect(r.status, r.stderr).to.equal(0);
  });

  it('refuses a tag that is not v<semver>, with one line', () => {
    for (const tag of [VERSION, `v${VERSION.split('.').slice(0, 2).join('.')}`, `v${VERSION}+build.1`, 'v01.2.3']) {
      const r = check(tag);
      expect(r.status, tag).to.equal(1);
      expect(r.stderr.trim().split('\n'), tag).to.have.length(1);
      expect(r.stderr).to.match(/is not v<major>\.<minor>\.<patch>/);
    }
  });

  it('refuses a tag the files do not carry, naming each file that disagrees', () => {
    const r = check('v99.0.0');
    expect(r.status).to.equal(1);
    expect(r.stderr).to.include(`package.json version is ${VERSION}, tag says 99.0.0`);
    expect(r.stderr).to.include(`Chart.yaml version is '${VERSION}'`);
    expect(r.stderr).to.include(`Chart.yaml appVersion is '${VERSION}'`);
    expect(r.stderr).to.match(/no `## 99\.0\.0` section/);
  });

  it('refuses when only the chart\'s appVersion lags behind', () => {
    edit(CHART, (s) => s.replace(/^appVersion:.*$/m, 'appVersion: "0.0.1" # the image tag'));
    const r = check(`v${VERSION}`);
    expect(r.status).to.equal(1);
    expect(r.stderr.trim().split('\n')).to.deep.equal([`release-check: ${CHART} appVersion is '0.0.1', tag says ${VERSION}`]);
  });

  it('refuses when CHANGELOG.md has the version only as an empty heading', () => {
    edit('CHANGELOG.md', (s) => s.replace(new RegExp(`^## ${VERSION.replace(/\./g, '\\.')}$`, 'm'), `## ${VERSION}\n\n## 0.0.0-previous`));
    const r = check(`v${VERSION}`);
    expect(r.status).to.equal(1);
    expect(r.stderr).to.match(new RegExp(`no \`## ${VERSION.replace(/\./g, '\\.')}\` section with text`));
  });

  it('changelog-section prints exactly one section, trimmed, telling versions apart by their full text', () => {
    writeFileSync(
      join(dir, 'CHANGELOG.md'),
      ['# Changelog', '', '## Unreleased', '', '- next', '', '## 1.2.0-rc.1', '', 'rc notes', '', '## 1x2y0', '', 'wrong',
        '', '## [1.2.0] - 2027-01-05', '', '', '### Fixed', '', '- a thing', '', '', '## 1.1.0', '', 'older', ''].join('\n'),
    );
    expect(section('1.2.0').stdout).to.equal('### Fixed\n\n- a thing\n');
    expect(section('1.2.0-rc.1').stdout).to.equal('rc notes\n');
    expect(section('1.1.0').stdout).to.equal('older\n');
    expect(section('1.2').status).to.equal(1);
    expect(section('1.3.0').status).to.equal(1);
  });
});
