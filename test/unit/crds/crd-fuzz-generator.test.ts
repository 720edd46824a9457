// The schema-driven fuzz generator (test/helpers/crd-fuzz.ts) reaches every tenant-writable leaf of every
// CRD in crds/: the leaf set is computed here on its own, straight from the YAML, so a field added to a
// CRD that the generator failed to reach fails this test instead of going unfuzzed.
import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { CRDS_DIR, fuzzCases, fuzzSample, getPath } from '../../helpers/crd-fuzz.ts';

type Node = { type?: string; properties?: Record<string, Node>; items?: Node; additionalProperties?: Node | boolean };

/** kind → every leaf path ('a.b[].c', maps as '{}') under spec, and under status when creates keep it. */
function leafPathsFromYaml(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const file of readdirSync(CRDS_DIR).filter((f) => f.endsWith('.yaml'))) {
    for (const doc of parseAllDocuments(readFileSync(`${CRDS_DIR}/${file}`, 'utf8'))) {
      const crd = doc.toJS();
      if (crd?.kind !== 'CustomResourceDefinition') continue;
      for (const v of crd.spec.versions) {
        const set = new Set<string>();
        const visit = (n: Node, p: string): void => {
          const props = Object.entries(n.properties ?? {});
          if (props.length) return props.forEach(([k, c]) => visit(c, `${p}.${k}`));
          set.add(p);
          if (n.items) visit(n.items, `${p}[]`);
          if (typeof n.additionalProperties === 'object') visit(n.additionalProperties, `${p}{}`);
        };
        const root = v.schema.openAPIV3Schema.properties as Record<string, Node>;
        visit(root.spec!, 'spec');
        // With a status subresource kube-apiserver drops status on create: it is not the tenant's to write.
        if (root.status && !v.subresources?.status) visit(root.status, 'status');
        out.set(crd.spec.names.kind, set);
      }
    }
  }
  return out;
}

describe('crd-fuzz: the generated hostile cases', () => {
  const cases = fuzzCases();

  it('cover every leaf of every CRD schema', () => {
    const expected = leafPathsFromYaml();
    expect([...expected.keys()].sort()).to.deep.equal(['EffectiveHorizontalPodAutoscaler', 'Substitute', 'TimeSeriesPrediction', 'VerticalPodAutoscaler', 'VerticalPodAutoscalerCheckpoint']);
    const missing: string[] = [];
    for (const [kind, paths] of expected) {
      const covered = new Set(cases.filter((c) => c.crd.kind === kind).flatMap((c) => c.fields));
      for (const p of paths) if (!covered.has(p)) missing.push(`${kind} ${p}`);
      // Nothing fuzzed that the schema does not have.
      for (const p of covered) expect(paths.has(p), `${kind} ${p} is not in the schema`).to.equal(true);
    }
    expect(missing).to.deep.equal([]);
  });

  it('each single-field case sets its field on an object that is otherwise the valid base', () => {
    for (const c of cases.filter((x) => !x.pair)) {
      const path = c.fields[0]!.replace(/\[\]/g, '.[]').replace(/\{\}/g, '.{}').split('.');
      expect(getPath(c.object, path), c.id).to.not.equal(undefined);
      expect((c.object as { spec?: unknown }).spec, c.id).to.be.an('object');
    }
  });

  it('reach the extremes: 1e308, 1e-320, NaN, 64 KiB strings, 10,000 items, each on many fields', () => {
    const count = (re: RegExp) => cases.filter((c) => re.test(c.id)).length;
    expect(count(/= 1e308$/)).to.be.above(20);
    expect(count(/= 1e-320$/)).to.be.above(20);
    expect(count(/= "NaN"$/)).to.be.above(20);
    expect(count(/= 64 KiB/)).to.be.above(50);
    expect(count(/= 10,000 items$/)).to.be.above(15);
    const buckets = cases.find((c) => c.id === 'TimeSeriesPrediction spec.predictionMetrics[].algorithm.percentile.histogram.maxValue × spec.predictionMetrics[].algorithm.percentile.histogram.bucketSize = 1e8 / 1');
    expect(getPath(buckets?.object, ['spec', 'predictionMetrics', '[]', 'algorithm'])).to.deep.include({ algorithmType: 'percentile' });
  });

  it('the CI sample is deterministic and holds every kind, every field type and every pair', () => {
    const a = fuzzSample(cases, 150);
    expect(a.map((c) => c.id)).to.deep.equal(fuzzSample(cases, 150).map((c) => c.id));
    expect(a.length).to.be.within(140, 160);
    const kinds = new Set(cases.map((c) => c.crd.kind));
    expect(new Set(a.map((c) => c.crd.kind))).to.deep.equal(kinds);
    const semantic = (cs: typeof cases) => new Set(cs.flatMap((c) => c.semantics));
    expect(semantic(a)).to.deep.equal(semantic(cases));
    expect(a.filter((c) => c.pair).length).to.equal(cases.filter((c) => c.pair).length);
  });
});
