// Exposition text for series with their own timestamps: what Prometheus' text parser (format 0.0.4) reads.
import { expect } from 'chai';
import { expositionText, expositionTextSliced } from '../../../src/observability/exposition-text.ts';

describe('exposition text', () => {
  it('writes a HELP and TYPE header, labels in the given order, and an explicit timestamp in ms only when given', () => {
    const text = expositionText([{
      name: 'crane_prediction_tsp', help: 'model metrics value', type: 'gauge',
      samples: [
        { labels: { targetKind: 'Deployment', targetName: 'web' }, value: 2.5, timestampMs: 1_767_781_860_000 },
        { labels: { targetKind: 'Node', targetName: 'n1' }, value: 0 },
      ],
    }]);
    expect(text).to.equal([
      '# HELP crane_prediction_tsp model metrics value',
      '# TYPE crane_prediction_tsp gauge',
      'crane_prediction_tsp{targetKind="Deployment",targetName="web"} 2.5 1767781860000',
      'crane_prediction_tsp{targetKind="Node",targetName="n1"} 0',
      '',
    ].join('\n'));
  });

  it('escapes backslash, double quote and newline in label values, and backslash and newline in HELP', () => {
    const text = expositionText([{ name: 'm', help: 'a\\b\nc', type: 'gauge', samples: [{ labels: { l: 'x"y\\z\nw' }, value: 1 }] }]);
    expect(text).to.contain('# HELP m a\\\\b\\nc\n');
    expect(text).to.contain('m{l="x\\"y\\\\z\\nw"} 1\n');
  });

  it('leaves out a sample whose value or timestamp is not finite (no NaN or Inf reaches an HPA)', () => {
    const text = expositionText([{
      name: 'm', help: 'h', type: 'gauge',
      samples: [{ labels: {}, value: Number.NaN }, { labels: {}, value: Infinity }, { labels: {}, value: 1, timestampMs: Number.NaN }, { labels: {}, value: 3 }],
    }]);
    expect(text.split('\n').filter((l) => l.startsWith('m'))).to.deep.equal(['m 3']);
  });

  it('refuses a metric or label name Prometheus would reject (which would fail the whole scrape)', () => {
    expect(() => expositionText([{ name: 'bad-name', help: '', type: 'gauge', samples: [] }])).to.throw(/invalid metric name/);
    expect(() => expositionText([{ name: 'm', help: '', type: 'gauge', samples: [{ labels: { '1x': 'v' }, value: 1 }] }])).to.throw(/invalid label name/);
  });

  it('an empty family list is empty text (appending it changes nothing)', () => {
    expect(expositionText([])).to.equal('');
  });

  it('the sliced writer gives the same text as the plain one, for many samples', async () => {
    const samples = Array.from({ length: 3000 }, (_, i) => ({ labels: { i: String(i) }, value: i / 7, ...(i % 2 ? { timestampMs: i * 1000 } : {}) }));
    const families = [{ name: 'a', help: 'h', type: 'gauge' as const, samples }, { name: 'b', help: 'h', type: 'gauge' as const, samples }];
    const sliced = await expositionTextSliced(families, 0);
    expect(sliced).to.equal(expositionText(families));
    expect(sliced.split('\n')).to.have.length(2 * 3002 + 1);
  });
});
