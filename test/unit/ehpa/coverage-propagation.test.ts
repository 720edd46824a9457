// The EHPA's coverage annotation reaches its TSP (src/ehpa/desired-tsp.ts) and is kept exactly as the EHPA
// has it, removal included (OwnedApplier's exactAnnotations); other annotations on the TSP are left alone.
import { expect } from 'chai';
import type { V2MetricSpec } from '@kubernetes/client-node';
import { buildDesiredTsp } from '../../../src/ehpa/desired-tsp.ts';
import { COVERAGE_ANNOTATION } from '../../../src/prediction/coverage-annotation.ts';
import { OwnedApplier } from '../../../src/kube/apply-owned.ts';
import { resourcePath } from '../../../src/kube/api-client.ts';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import { InMemoryObjects } from '../../helpers/in-memory-objects.ts';
import { cpuUtilization50, ehpa, prediction } from './fixtures.ts';

const TSPS = resourcePath('prediction.crane.io/v1alpha1', 'timeseriespredictions', 'default');

describe('coverage annotation: EHPA to TSP', () => {
  const withCoverage = (v?: string) => ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], prediction }, v === undefined ? {} : { annotations: { [COVERAGE_ANNOTATION]: v, other: 'not copied' } });

  it('the desired TSP carries the EHPA’s coverage annotation as is, and no other', () => {
    expect(buildDesiredTsp(withCoverage('0.95'))?.metadata.annotations).to.deep.equal({ [COVERAGE_ANNOTATION]: '0.95' });
    // Copied unparsed: the TSP controller validates it (an invalid value becomes the TSP's InvalidSpec).
    expect(buildDesiredTsp(withCoverage('2'))?.metadata.annotations).to.deep.equal({ [COVERAGE_ANNOTATION]: '2' });
    expect(buildDesiredTsp(withCoverage())?.metadata).to.not.have.property('annotations');
  });

  it('applied exactly: set, changed and removed on the TSP; annotations others put there stay', async () => {
    const store = new InMemoryObjects();
    const applier = new OwnedApplier(store);
    const owner = withCoverage('0.95');
    const apply = async (e: typeof owner) => {
      const desired = buildDesiredTsp(e)!;
      const existing = store.read<TimeSeriesPrediction>(`${TSPS}/${desired.metadata.name}`);
      return applier.apply({ path: TSPS, desired, existing, ownerUid: e.metadata.uid, exactAnnotations: [COVERAGE_ANNOTATION] });
    };
    const created = await apply(owner);
    expect(created.action).to.equal('created');
    const path = `${TSPS}/${created.object.metadata.name}`;
    // Someone else annotates the TSP.
    const annotated = store.read<TimeSeriesPrediction>(path)!;
    annotated.metadata.annotations = { ...annotated.metadata.annotations, 'team.example.com/owner': 'web' };
    await store.replace(path, annotated);
    expect((await apply(owner)).action).to.equal('unchanged');

    const changed = await apply(withCoverage('0.8'));
    expect(changed.action).to.equal('updated');
    expect(store.read<TimeSeriesPrediction>(path)!.metadata.annotations).to.deep.equal({ [COVERAGE_ANNOTATION]: '0.8', 'team.example.com/owner': 'web' });

    const removed = await apply(withCoverage());
    expect(removed.action).to.equal('updated');
    expect(store.read<TimeSeriesPrediction>(path)!.metadata.annotations).to.deep.equal({ 'team.example.com/owner': 'web' });
    expect((await apply(withCoverage())).action).to.equal('unchanged');
  });
});
