import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { CRDS, renderCrd } from '../../../scripts/gen-crds.ts';
import { BOUNDS } from '../../../src/api/bounds.ts';

const dir = new URL('../../../crds/', import.meta.url);

describe('crds/', () => {
  for (const [file, doc] of Object.entries(CRDS)) {
    it(`${file} is what scripts/gen-crds.ts generates`, () => {
      expect(readFileSync(new URL(file, dir), 'utf8')).to.equal(renderCrd(doc));
    });
  }

  it('EHPA: defaults, required fields, status subresource, cron names as list keys, min<=max rule', () => {
    const c = parse(readFileSync(new URL('autoscaling.crane.io_effectivehorizontalpodautoscalers.yaml', dir), 'utf8'));
    const v = c.spec.versions[0];
    const spec = v.schema.openAPIV3Schema.properties.spec;
    expect(spec.required).to.deep.equal(['scaleTargetRef', 'maxReplicas']);
    expect(spec.properties.minReplicas.default).to.equal(1);
    expect(spec.properties.scaleStrategy.default).to.equal('Auto');
    expect(spec.properties.prediction.properties.predictionWindowSeconds.default).to.equal(3600);
    expect(spec.properties.crons['x-kubernetes-list-map-keys']).to.deep.equal(['name']);
    expect(spec['x-kubernetes-validations'][0].rule).to.contain('self.minReplicas <= self.maxReplicas');
    expect(v.subresources).to.deep.equal({ status: {} });
    expect(v.additionalPrinterColumns.map((p: { name: string }) => p.name)).to.deep.equal(['STRATEGY', 'MINPODS', 'MAXPODS', 'SPECIFICPODS', 'REPLICAS', 'AGE']);
  });

  it('the EHPA scaleTargetRef and the TSP targetRef carry the bounds the controllers apply (src/api/bounds.ts)', () => {
    const props = (file: string, ...path: string[]) => {
      let o = parse(readFileSync(new URL(file, dir), 'utf8')).spec.versions[0].schema.openAPIV3Schema.properties.spec;
      for (const p of path) o = o.properties[p];
      return o.properties as Record<string, { maxLength?: number }>;
    };
    for (const ref of [props('autoscaling.crane.io_effectivehorizontalpodautoscalers.yaml', 'scaleTargetRef'), props('prediction.crane.io_timeseriespredictions.yaml', 'targetRef')]) {
      expect(ref.kind?.maxLength).to.equal(BOUNDS.kindLength);
      expect(ref.name?.maxLength).to.equal(BOUNDS.nameLength);
      expect(ref.apiVersion?.maxLength).to.equal(BOUNDS.apiVersionLength);
    }
  });

  it('Substitute has the scale subresource paths Crane uses', () => {
    const c = parse(readFileSync(new URL('autoscaling.crane.io_substitutes.yaml', dir), 'utf8'));
    expect(c.spec.versions[0].subresources.scale).to.deep.equal({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' });
  });
});
