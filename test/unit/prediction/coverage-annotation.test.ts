// The coverage annotation's bounds (src/prediction/coverage-annotation.ts): a number strictly between 0 and
// 1, no longer than any float string, parsed with Crane's float syntax; a bad value is a spec problem
// (tspBoundsProblems), which the TSP controller turns into Ready=False/InvalidSpec and an event.
import { expect } from 'chai';
import { COVERAGE_ANNOTATION, coverageFromAnnotations } from '../../../src/prediction/coverage-annotation.ts';
import { tspBoundsProblems } from '../../../src/prediction/spec-bounds.ts';
import { BOUNDS } from '../../../src/api/bounds.ts';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';

const at = (v: string) => coverageFromAnnotations({ [COVERAGE_ANNOTATION]: v });

describe('coverage annotation', () => {
  it('absent: no target and no problem (the default applies)', () => {
    expect(coverageFromAnnotations(undefined)).to.deep.equal({});
    expect(coverageFromAnnotations({ other: '0.5' })).to.deep.equal({});
  });

  it('accepts numbers strictly between 0 and 1 in Crane float syntax', () => {
    expect(at('0.95')).to.deep.equal({ coverage: 0.95 });
    expect(at('.5')).to.deep.equal({ coverage: 0.5 });
    expect(at('9e-1')).to.deep.equal({ coverage: 0.9 });
    expect(at(' 0.99 ')).to.deep.equal({ coverage: 0.99 });
    expect(at('0.000001')).to.deep.equal({ coverage: 0.000001 });
  });

  it('refuses the bounds themselves, values outside them, non-numbers and the empty string, naming the annotation', () => {
    for (const v of ['0', '1', '1.0', '1.5', '-0.1', '95', 'abc', '', 'NaN', 'inf', '0x1p-1', '0.9.1', '95%']) {
      const r = at(v);
      expect(r.coverage, v).to.equal(undefined);
      expect(r.problem, v).to.equal(`annotation ${COVERAGE_ANNOTATION} is "${v}"; it must be a number strictly between 0 and 1 (e.g. "0.95")`);
    }
  });

  it('refuses a value longer than a float string before parsing it', () => {
    const long = `0.${'9'.repeat(BOUNDS.floatStringLength)}`;
    expect(at(long).problem).to.equal(`annotation ${COVERAGE_ANNOTATION} is ${long.length} characters long, more than ${BOUNDS.floatStringLength}`);
    // Exactly the bound is parsed (30 fives after "0.").
    expect(at('0.' + '5'.repeat(BOUNDS.floatStringLength - 2)).coverage).to.be.closeTo(0.5555555, 1e-6);
  });

  it('is one of the TSP spec bounds', () => {
    const tsp = (annotations?: Record<string, string>): TimeSeriesPrediction => ({
      apiVersion: 'prediction.crane.io/v1alpha1',
      kind: 'TimeSeriesPrediction',
      metadata: { name: 't', namespace: 'n', ...(annotations ? { annotations } : {}) },
      spec: { targetRef: { kind: 'Deployment', name: 'web' }, predictionWindowSeconds: 3600, predictionMetrics: [] },
    });
    expect(tspBoundsProblems(tsp())).to.deep.equal([]);
    expect(tspBoundsProblems(tsp({ [COVERAGE_ANNOTATION]: '0.8' }))).to.deep.equal([]);
    expect(tspBoundsProblems(tsp({ [COVERAGE_ANNOTATION]: '2' }))).to.deep.equal([`annotation ${COVERAGE_ANNOTATION} is "2"; it must be a number strictly between 0 and 1 (e.g. "0.95")`]);
  });
});
