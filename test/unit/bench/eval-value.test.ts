// bench/eval-value.ts and bench/value-chart.ts: the report and the chart from results (no replay here;
// the replay itself is simulate's, tested in test/unit/simulate).
import { expect } from 'chai';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { barsTable, chartFor, evalTraces, report, startupTable, type TraceResult } from '../../../bench/eval-value.ts';
import { craneTraces, otherTraces, valueTraces } from '../../helpers/traces.ts';

const frontier = (shift: number) =>
  [50, 45, 40, 35, 30, 25, 20].map((target, k) => ({ target, replicaHours: 100 + 20 * k, shortMinutes: Math.max(0, 400 - 70 * k + shift) }));

const result: TraceResult = {
  name: 'crane/inputX',
  intervalSeconds: 60,
  fromS: 0,
  toS: 14 * 86_400 - 60,
  replayDays: 14,
  steps: 20_160,
  stepsWithoutData: 0,
  scaleFactor: 2,
  plain: { 0: frontier(0), 60: frontier(20), 180: frontier(60) },
  modes: {
    // auto: at 130 replica-hours the frontier is short 295 min; auto is short 100 → pays.
    auto: { points: { 0: { replicaHours: 130, shortMinutes: 100 }, 60: { replicaHours: 130, shortMinutes: 110 }, 180: { replicaHours: 130, shortMinutes: 130 } }, bound: { ratio: 1.3, t: 5 }, stepsWithoutForecast: 0, stepsSteppedAside: 2016, refreshes: 330, failedRefreshes: 0, fitSeconds: 100 },
    // crane: dearer than the 20 % HPA → off the frontier.
    crane: { points: { 0: { replicaHours: 300, shortMinutes: 0 }, 60: { replicaHours: 300, shortMinutes: 0 }, 180: { replicaHours: 300, shortMinutes: 0 } }, bound: null, stepsWithoutForecast: 20_160, refreshes: 330, failedRefreshes: 330, fitSeconds: 50 },
  },
  seconds: 150,
};

describe('value evaluation report (bench/eval-value.ts)', () => {
  it('evaluates every fixture trace: crane, NAB, Azure and the added ones', () => {
    expect(evalTraces().map((t) => t.name)).to.deep.equal([...craneTraces(), ...otherTraces(), ...valueTraces()].map((t) => t.name));
    expect(evalTraces()).to.have.length(31);
  });

  it('one row per trace and mode with the frontier, the ratio, the verdict and the forecast bound', () => {
    const table = startupTable([result], 0);
    const rows = table.split('\n').filter((l) => l.startsWith('| crane/inputX'));
    expect(rows).to.have.length(2);
    expect(rows[0]).to.equal('| crane/inputX | 14.0 | auto | 0 % / 10 % | 100 | 130.0 | 400 / 100.0 | 295 | 185.7 | 1.30 | **pays** (fewer short minutes at its cost) | 1.30 |');
    expect(rows[1]).to.match(/\| crane \| 100 % \/ 0 % \| 0 \| 300\.0 \|.*\| off frontier \| 220\.0 \| 3\.00 \| does not pay \(off frontier: dearer than every plain HPA\) \| no forecast \|$/);
    expect(table).to.match(/auto on 1 of 1 traces, crane on 0 of 1/);
  });

  it('the bars table: cost and no-worse at 0 s and 3 min, the periodic bar at 3 min, counted not averaged', () => {
    const table = barsTable([{ ...result, periodic: true }, { ...result, name: 'nab/flat', periodic: false }]);
    const rows = table.split('\n').filter((l) => l.startsWith('| crane/inputX') || l.startsWith('| nab/flat'));
    // auto costs 1.30× the 50 % HPA (over the 1.25 bar). At 3 min the frontier at 130 replica-h is short
    // 355 min (auto: 130, so 225 fewer, 2.73×); 130 short min cost the frontier 194.3 replica-h (33 % saved).
    expect(rows[0]).to.equal('| crane/inputX | yes | 1.30 / 1.30 | -195 / -225 | 33 % / 2.73× | not met | met |');
    expect(rows[1]).to.match(/^\| nab\/flat \| no \|.*\| not met \| – \|$/);
    expect(table).to.match(/bars met on 0 of 2 traces; the periodic bar on 1 of 1 periodic traces/);
  });

  it('the report has a table per start-up, lists short and skipped traces, and never averages', () => {
    const text = report([result, { ...result, name: 'alibaba/short', replayDays: 0.8 }, { name: 'nab/zero', intervalSeconds: 300, skipped: 'its mean is 0: nothing to scale', seconds: 0 }]);
    expect(text.match(/^### Pod start-up/gm)).to.have.length(3);
    expect(text).to.match(/### Pod start-up 0 s/).and.match(/### Pod start-up 1 min/).and.match(/### Pod start-up 3 min/);
    expect(text).to.match(/0\.8 \(short trace\)/).and.match(/alibaba\/short \(0\.8 days\)/);
    expect(text).to.match(/Not evaluated: nab\/zero: its mean is 0/);
    expect(text).not.to.match(/total|\| mean/i);
  });

  it('the chart is well-formed SVG with a frontier per start-up and the two EHPA points', () => {
    const svg = chartFor(result);
    expect(XMLValidator.validate(svg)).to.equal(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(svg) as { svg: { g: { id: string; path: { d: string }; circle: unknown[]; rect?: unknown }[] } };
    const groups = doc.svg.g.filter((g) => g.id.startsWith('series-'));
    expect(groups).to.have.length(3);
    for (const g of groups) {
      expect(g.path.d.match(/L/g)).to.have.length(6);
      expect(g.circle).to.have.length(8); // 7 targets + the auto marker
      expect(g.rect).to.not.equal(undefined); // the crane marker
    }
    expect(svg).to.match(/>50%</).and.match(/>20%</).and.match(/>auto</).and.match(/>crane</);
  });
});
