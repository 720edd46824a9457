import { expect } from 'chai';
import { UsageError, parseFlags, formatFlagHelp, type FlagSpec } from '../../../src/config/flags.ts';

const specs: FlagSpec[] = [
  { name: 'port', type: 'int', default: 8080, min: 0, max: 65535, help: 'port' },
  { name: 'ratio', type: 'float', default: 1.2, help: 'ratio' },
  { name: 'mode', type: 'enum', values: ['a', 'b'], default: 'a', help: 'mode' },
  { name: 'window', type: 'duration', default: '24h', help: 'window' },
  { name: 'dry', type: 'bool', default: false, help: 'dry' },
  { name: 'file', type: 'string', default: undefined, help: 'file' },
];

describe('parseFlags', () => {
  it('applies defaults, converting durations to milliseconds', () => {
    expect(parseFlags(specs, [])).to.deep.equal({ port: 8080, ratio: 1.2, mode: 'a', window: 86_400_000, dry: false, file: undefined });
  });
  it('accepts --name value, --name=value and bare booleans', () => {
    const f = parseFlags(specs, ['--port', '0', '--ratio=2.5', '--mode=b', '--window', '90s', '--dry', '--file', 'x.csv']);
    expect(f).to.deep.equal({ port: 0, ratio: 2.5, mode: 'b', window: 90_000, dry: true, file: 'x.csv' });
    expect(parseFlags(specs, ['--dry=false']).dry).to.equal(false);
  });
  it('refuses bad values with a message naming the flag', () => {
    const cases: [string[], RegExp][] = [
      [['--port', 'x'], /--port: expected a number/],
      [['--port', '70000'], /--port: must be <= 65535/],
      [['--port', '1.5'], /--port: expected an integer/],
      [['--mode', 'c'], /--mode: expected one of a, b/],
      [['--window', '5 parsecs'], /--window/],
      [['--dry=maybe'], /--dry/],
      [['--nope'], /unknown flag --nope/],
      [['--file'], /--file needs a value/],
      [['stray'], /unexpected argument "stray"/],
    ];
    for (const [argv, msg] of cases) {
      expect(() => parseFlags(specs, argv), argv.join(' ')).to.throw(UsageError, msg);
    }
  });
  it('shows every default in help', () => {
    const help = formatFlagHelp(specs);
    expect(help).to.match(/--port int\s+port \(default 8080\)/);
    expect(help).to.match(/--window duration\s+window \(default "24h"\)/);
    expect(help).to.match(/--mode a\|b/);
  });
});
