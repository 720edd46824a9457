// `serve --hpa-shape` (docs/crane-behaviour.md §C.9): v0.7 unless asked, head accepted, anything else refused
// in one line before serve starts (exit 2 through UsageError).
import { expect } from 'chai';
import { parseFlags, UsageError } from '../../../src/config/flags.ts';
import { serveCommand } from '../../../src/cli/serve-command.ts';

describe('serve --hpa-shape', () => {
  it('defaults to v0.7 and takes head', () => {
    expect(parseFlags(serveCommand.flags, [])['hpa-shape']).to.equal('v0.7');
    expect(parseFlags(serveCommand.flags, ['--hpa-shape=head'])['hpa-shape']).to.equal('head');
    expect(parseFlags(serveCommand.flags, ['--hpa-shape', 'v0.7'])['hpa-shape']).to.equal('v0.7');
  });

  it('refuses any other value with one line naming the two', () => {
    for (const bad of ['v0.8', 'HEAD', '']) {
      let err: unknown;
      try {
        parseFlags(serveCommand.flags, [`--hpa-shape=${bad}`]);
      } catch (e) {
        err = e;
      }
      expect(err, bad).to.be.instanceOf(UsageError);
      expect((err as Error).message).to.equal(`invalid value "${bad}" for --hpa-shape: expected one of v0.7, head`);
    }
  });
});
