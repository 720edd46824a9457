// PodSelectorIndex: the EHPAs a pod event requeues, kept per namespace (src/ehpa/selector-index.ts). The
// expected keys come from a flat scan over every (key, namespace, selector) written here, the rule the
// index replaces: same namespace and a matching selector.
import { expect } from 'chai';
import { PodSelectorIndex, type LabelMatcher } from '../../../src/ehpa/selector-index.ts';

const app = (name: string): LabelMatcher => (l) => l?.['app'] === name;

describe('PodSelectorIndex', () => {
  it('answers only from the pod’s namespace: a selector elsewhere never matches, however its labels', () => {
    const ix = new PodSelectorIndex();
    ix.set('a/web', 'a', app('web'));
    ix.set('b/web', 'b', app('web'));
    ix.set('a/api', 'a', app('api'));
    expect(ix.keysFor('a', { app: 'web' })).to.deep.equal(['a/web']);
    expect(ix.keysFor('b', { app: 'web' })).to.deep.equal(['b/web']);
    expect(ix.keysFor('c', { app: 'web' })).to.deep.equal([]);
    expect(ix.keysFor(undefined, { app: 'web' })).to.deep.equal([]);
    expect(ix.size).to.equal(3);
  });

  it('set replaces a key’s selector, also across namespaces; delete forgets it and empty namespaces', () => {
    const ix = new PodSelectorIndex();
    ix.set('k', 'a', app('web'));
    ix.set('k', 'a', app('api'));
    expect(ix.keysFor('a', { app: 'web' })).to.deep.equal([]);
    expect(ix.keysFor('a', { app: 'api' })).to.deep.equal(['k']);
    ix.set('k', 'b', app('api'));
    expect(ix.keysFor('a', { app: 'api' })).to.deep.equal([]);
    expect(ix.keysFor('b', { app: 'api' })).to.deep.equal(['k']);
    expect(ix.size).to.equal(1);
    ix.delete('k');
    ix.delete('k');
    expect(ix.keysFor('b', { app: 'api' })).to.deep.equal([]);
    expect(ix.size).to.equal(0);
  });

  it('equals a flat scan over random sets, replacements and deletes (3,000 operations)', () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const ix = new PodSelectorIndex();
    const flat = new Map<string, { namespace: string; matches: LabelMatcher }>();
    for (let op = 0; op < 3000; op++) {
      const key = `k${rnd(60)}`;
      if (rnd(4) === 0) {
        ix.delete(key);
        flat.delete(key);
      } else {
        const namespace = `ns${rnd(5)}`;
        const matches = app(`app${rnd(8)}`);
        ix.set(key, namespace, matches);
        flat.set(key, { namespace, matches });
      }
      const ns = `ns${rnd(6)}`;
      const labels = { app: `app${rnd(8)}` };
      const expected = [...flat].filter(([, s]) => s.namespace === ns && s.matches(labels)).map(([k]) => k).sort();
      expect(ix.keysFor(ns, labels).sort(), `operation ${op}`).to.deep.equal(expected);
      expect(ix.size).to.equal(flat.size);
    }
  });
});
