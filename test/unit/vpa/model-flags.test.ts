// The recommender model's flags are declared once (src/vpa/model-flags.ts) and taken by both `serve` and
// `recommend`, so a name, default or bound cannot differ between the two (they once had: the percentile
// bounds had drifted apart).
import { expect } from 'chai';
import { COMMANDS } from '../../../src/cli/commands.ts';
import { VPA_MODEL_FLAGS } from '../../../src/vpa/model-flags.ts';

describe('VPA model flags', () => {
  const flagsOf = (name: string) => COMMANDS.find((c) => c.name === name)!.flags;
  it('serve and recommend both take every model flag, as the very same declaration', () => {
    expect(VPA_MODEL_FLAGS).to.have.length(12);
    for (const spec of VPA_MODEL_FLAGS) {
      expect(flagsOf('serve').filter((f) => f.name === spec.name), `serve --${spec.name}`).to.deep.equal([spec]);
      expect(flagsOf('recommend').filter((f) => f.name === spec.name), `recommend --${spec.name}`).to.deep.equal([spec]);
      expect(flagsOf('serve').find((f) => f.name === spec.name)).to.equal(spec);
      expect(flagsOf('recommend').find((f) => f.name === spec.name)).to.equal(spec);
    }
  });
  it('every percentile flag of either command is bounded to [0, 1]', () => {
    for (const cmd of ['serve', 'recommend']) {
      for (const f of flagsOf(cmd).filter((x) => x.name.endsWith('-percentile'))) {
        expect(f, `${cmd} --${f.name}`).to.include({ min: 0, max: 1 });
      }
    }
  });
});
