import { expect } from 'chai';
import { runCli } from '../../../src/cli/run-cli.ts';
import { CONTROLLER_FLAGS, KUBE_FLAGS, parseControllerList } from '../../../src/cli/serve-controllers.ts';
import { serveCommand } from '../../../src/cli/serve-command.ts';
import { captureIO } from '../../helpers/capture-io.ts';

describe('serve: controller flags', () => {
  it('are part of serve, each once, with defaults shown', () => {
    const names = serveCommand.flags.map((f) => f.name);
    for (const f of [...KUBE_FLAGS, ...CONTROLLER_FLAGS]) expect(names).to.include(f.name);
    expect(new Set(names).size).to.equal(names.length);
    expect(CONTROLLER_FLAGS.find((f) => f.name === 'leader-elect')?.default).to.equal(true);
  });
  it('parses the controller list and refuses unknown names', () => {
    expect(parseControllerList('ehpa, tsp')).to.deep.equal(['ehpa', 'tsp']);
    expect(parseControllerList('')).to.deep.equal([]);
    expect(() => parseControllerList('ehpa,nope')).to.throw(/unknown controller "nope"/);
  });
  it('a bad --controllers value is one line and exit code 2', async () => {
    const io = captureIO();
    const code = await runCli(['serve', '--controllers', 'ehpa,nope', '--metrics-port', '0'], io);
    expect(code).to.equal(2);
    expect(io.err().trim().split('\n')).to.have.length(1);
    expect(io.err()).to.contain('unknown controller "nope"');
  });
});
