// Flags are typed from their spec tables (FlagsOf): reading a flag that a table does not declare does not
// compile. The @ts-expect-error lines below are the test: `npm test` type-checks this file, and the build
// fails if a misspelt name ever compiles again. The runtime part checks the values the types promise.
import { expect } from 'chai';
import { parseFlags, type FlagSpec } from '../../../src/config/flags.ts';
import { VPA_RECOMMENDER_FLAGS } from '../../../src/vpa/routines/recommender-flags.ts';

const TABLE = [
  { name: 'window', type: 'duration', default: '90s', help: 'a duration' },
  { name: 'count', type: 'int', default: undefined, help: 'an optional int' },
  { name: 'mode', type: 'enum', values: ['a', 'b'], default: 'a', help: 'an enum' },
  { name: 'on', type: 'bool', default: false, help: 'a bool' },
] as const satisfies readonly FlagSpec[];

describe('typed flags (FlagsOf)', () => {
  it('gives each declared flag its type, and undeclared names do not compile', () => {
    const f = parseFlags(TABLE, ['--mode=b', '--on']);
    const window: number = f['window'];
    const count: number | undefined = f['count'];
    const mode: 'a' | 'b' = f['mode'];
    const on: boolean = f['on'];
    expect({ window, count, mode, on }).to.deep.equal({ window: 90_000, count: undefined, mode: 'b', on: true });
    // @ts-expect-error: 'windw' is not a flag of this table
    expect(f['windw']).to.equal(undefined);
  });
  it('holds for the real tables: the VPA recommender flags', () => {
    const f = parseFlags(VPA_RECOMMENDER_FLAGS, ['--recommender-interval=30s']);
    const interval: number = f['recommender-interval'];
    expect(interval).to.equal(30_000);
    // @ts-expect-error: a misspelt flag name
    expect(f['recommender-intervall']).to.equal(undefined);
  });
});
