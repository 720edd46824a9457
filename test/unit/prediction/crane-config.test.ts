import { expect } from 'chai';
import {
  craneParseDurationSeconds,
  craneParseFloat,
  dspSettingsFromSpec,
  percentileSettingsFromSpec,
  DEFAULT_DSP_SETTINGS,
  DEFAULT_PERCENTILE_SETTINGS,
} from '../../../src/prediction/crane-config.ts';

describe('prediction crane-config (crane-behaviour.md §D.5, §E.1)', () => {
  it('parses durations like crane utils.ParseDuration', () => {
    expect(craneParseDurationSeconds('15d')).to.equal(15 * 86_400);
    expect(craneParseDurationSeconds('60s')).to.equal(60);
    expect(craneParseDurationSeconds('1h30m')).to.equal(5400);
    expect(craneParseDurationSeconds('0')).to.equal(0);
    expect(() => craneParseDurationSeconds('')).to.throw(/invalid duration/);
    expect(() => craneParseDurationSeconds('1d12h')).to.throw('time: unknown unit "d" in duration "1d12h"'); // not "Nd", and Go has no "d"
    expect(() => craneParseDurationSeconds('2w')).to.throw();
  });
  it('parses floats like strconv.ParseFloat with "" as the default', () => {
    expect(craneParseFloat('', 0.5)).to.equal(0.5);
    expect(craneParseFloat(undefined, 0.5)).to.equal(0.5);
    expect(craneParseFloat('0.15', 0)).to.equal(0.15);
    expect(craneParseFloat('1e-3', 0)).to.equal(0.001);
    expect(craneParseFloat('+Inf', 0)).to.equal(Infinity);
    expect(() => craneParseFloat(' 1', 0)).to.throw(/invalid syntax/);
    expect(() => craneParseFloat('0x10', 0)).to.throw(/invalid syntax/);
  });
  it('dsp: no block gives the defaults (1m, 15d, the 8 FFT estimators)', () => {
    expect(dspSettingsFromSpec(undefined)).to.deep.equal({ settings: DEFAULT_DSP_SETTINGS });
    expect(DEFAULT_DSP_SETTINGS.craneEstimators).to.have.length(8);
  });
  it('dsp: reads the block, estimators with Crane defaults for empty fields', () => {
    const r = dspSettingsFromSpec({
      sampleInterval: '60s',
      historyLength: '7d',
      estimators: { maxValue: [{ marginFraction: '0.1' }], fft: [{ marginFraction: '', minNumOfSpectrumItems: 10 }] },
    });
    expect(r.error).to.equal(undefined);
    expect(r.settings.intervalSeconds).to.equal(60);
    expect(r.settings.historySeconds).to.equal(7 * 86_400);
    expect(r.settings.craneEstimators).to.deep.equal([
      { kind: 'maxValue', marginFraction: 0.1 },
      { kind: 'fft', marginFraction: 0, highFrequencyThreshold: 1 / 3600, lowAmplitudeThreshold: 1, maxNumOfSpectrumItems: 100, minNumOfSpectrumItems: 10 },
    ]);
  });
  it('dsp: a history under 48h (the "1d" a Crane user reported) or a sample interval over 1h falls back to the defaults', () => {
    expect(dspSettingsFromSpec({ sampleInterval: '60s', historyLength: '1d' })).to.deep.equal({ settings: DEFAULT_DSP_SETTINGS, error: 'historyDuration is too short', errorField: 'historyLength' });
    expect(dspSettingsFromSpec({ sampleInterval: '2h', historyLength: '15d' }).error).to.equal('historyResolution is too long');
    expect(dspSettingsFromSpec({ historyLength: '15d' }).error).to.match(/invalid duration/);
  });
  it('percentile: a missing duration (even historyLength, as in examples/tsp-node-resource-percent.yaml) means the defaults', () => {
    const r = percentileSettingsFromSpec({ sampleInterval: '1m', histogram: { halfLife: '24h' } });
    expect(r.settings).to.deep.equal(DEFAULT_PERCENTILE_SETTINGS);
    expect(r.error).to.match(/invalid duration/);
  });
  it('percentile: exponential when growth ratio, first bucket and max are set; aggregated defaults to false', () => {
    const r = percentileSettingsFromSpec({
      sampleInterval: '1m',
      historyLength: '3d',
      percentile: '0.95',
      marginFraction: '0.2',
      histogram: { halfLife: '24h', maxValue: '1000', firstBucketSize: '0.01', bucketSizeGrowthRatio: '0.05' },
    });
    expect(r.error).to.equal(undefined);
    expect(r.settings.aggregated).to.equal(false);
    expect(r.settings.historySeconds).to.equal(3 * 86_400);
    expect(r.settings.config.percentile).to.equal(0.95);
    expect(r.settings.config.marginFraction).to.equal(0.2);
    expect(r.settings.config.histogram).to.deep.equal({ kind: 'exponential', maxValue: 1000, firstBucketSize: 0.01, ratio: 1.05, epsilon: 1e-10 });
    const lin = percentileSettingsFromSpec({ sampleInterval: '1m', historyLength: '3d', histogram: { halfLife: '1h', maxValue: '10', bucketSize: '0.5' } });
    expect(lin.settings.config.histogram).to.deep.equal({ kind: 'linear', maxValue: 10, bucketSize: 0.5, epsilon: 1e-10 });
  });
});
