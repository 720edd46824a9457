// Forcing the DSP estimator mode of a simulation (src/simulate/tsp-replay.ts forecastPlan).
import { expect } from 'chai';
import { forecastPlan } from '../../../src/simulate/tsp-replay.ts';

describe('simulate: estimator mode', () => {
  it('forecastPlan forces crane or auto; without a choice, the EHPA decides (auto when it lists none)', () => {
    expect(forecastPlan({ algorithmType: 'dsp' }, 'crane')?.config.estimators).to.equal('crane');
    expect(forecastPlan({ algorithmType: 'dsp' }, 'auto')?.config.estimators).to.equal('auto');
    expect(forecastPlan({ algorithmType: 'dsp' })?.config.estimators).to.equal('auto');
  });
});
