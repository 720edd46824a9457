import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../../src/cli/run-cli.ts';
import { COMMANDS } from '../../../src/cli/commands.ts';
import { COMMAND_ENTRIES } from '../../../src/cli/command-registry.ts';
import { readFileSync } from 'node:fs';
import { assertBuildFresh } from '../../e2e/harness/build-freshness.ts';
import { captureIO } from '../../helpers/capture-io.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = fileURLToPath(new URL('../../../bin/ehpa-adapter.js', import.meta.url));

describe('ehpa-adapter CLI', () => {
  it('--help lists every command with its summary; `<command> --help` every flag with its default', async () => {
    const io = captureIO();
    expect(await runCli(['--help'], io)).to.equal(0);
    for (const c of COMMANDS) expect(io.out()).to.include(`  ${c.name.padEnd(11)}${c.summary}\n`);
    expect(io.out()).to.match(/ehpa-adapter <command> --help/);
    for (const c of COMMANDS) {
      const one = captureIO();
      expect(await runCli([c.name, '--help'], one)).to.equal(0);
      expect(one.out()).to.match(new RegExp(`^ehpa-adapter ${c.name}: `));
      for (const f of c.flags) {
        expect(one.out()).to.include(`--${f.name}`);
        if (f.default !== undefined) expect(one.out()).to.include(`(default ${JSON.stringify(f.default)})`);
      }
    }
  });

  it('the command list loads no command: the registry imports none of their modules', () => {
    const text = readFileSync(fileURLToPath(new URL('../../../src/cli/command-registry.ts', import.meta.url)), 'utf8');
    expect(text.match(/^import .*$/gm)).to.deep.equal(["import type { CommandEntry } from './command.ts';"]);
    expect(COMMAND_ENTRIES.map((e) => e.name)).to.deep.equal(COMMANDS.map((c) => c.name));
    for (const c of COMMANDS) expect(c.name).to.equal(COMMAND_ENTRIES.find((e) => e.summary === c.summary)?.name);
  });
  it('version prints the package version as JSON', async () => {
    const io = captureIO();
    expect(await runCli(['version'], io)).to.equal(0);
    expect(JSON.parse(io.out())).to.include({ name: 'ehpa-adapter', version: '0.1.0' });
  });
  it('a bad flag is one line on stderr and exit code 2', async () => {
    const io = captureIO();
    expect(await runCli(['serve', '--metrics-port', 'eighty'], io)).to.equal(2);
    expect(io.err().trim().split('\n')).to.have.length(1);
    expect(io.err()).to.match(/--metrics-port/);
  });
  it('an unknown command exits 2', async () => {
    const io = captureIO();
    expect(await runCli(['frobnicate'], io)).to.equal(2);
    expect(io.err()).to.match(/unknown command "frobnicate"/);
  });
  it('the installed bin runs `version` as a separate process', async () => {
    assertBuildFresh(ROOT);
    const out = await new Promise<string>((resolve, reject) => {
      const p = spawn(process.execPath, [BIN, 'version'], { stdio: ['ignore', 'pipe', 'inherit'] });
      let s = '';
      p.stdout.on('data', (c: Buffer) => (s += c.toString()));
      p.on('exit', (code) => (code === 0 ? resolve(s) : reject(new Error(`exit ${code}`))));
    });
    expect(JSON.parse(out).name).to.equal('ehpa-adapter');
  });
});
