// controlledValues and proportional limits (semantics of upstream utils/vpa GetContainerControlledValues
// and GetProportionalLimit: integer milli-units / bytes, floor division, request==limit and zero-request
// shortcuts, limits left unset without an original or default limit).
import { expect } from 'chai';
import { Quantity } from '../../../../src/quantity/index.ts';
import { getContainerControlledValues, getProportionalLimit, type QuantityList } from '../../../../src/vpa/logic/index.ts';

const list = (o: Record<string, string>): QuantityList => new Map(Object.entries(o).map(([k, v]) => [k, Quantity.parse(v)]));
const str = (l: QuantityList | undefined) => (l ? Object.fromEntries([...l].map(([k, q]) => [k, q.toString()])) : undefined);

describe('limits', () => {
  it('controlledValues defaults to RequestsAndLimits and follows the container (or "*") policy', () => {
    expect(getContainerControlledValues('app', undefined)).to.equal('RequestsAndLimits');
    const policy = { containerPolicies: [{ containerName: '*', controlledValues: 'RequestsOnly' as const }] };
    expect(getContainerControlledValues('app', policy)).to.equal('RequestsOnly');
  });
  it('keeps the limit/request ratio with floor division', () => {
    const r = getProportionalLimit(list({ cpu: '2', memory: '200Mi' }), list({ cpu: '1', memory: '100Mi' }), list({ cpu: '1501m', memory: '150Mi' }), new Map());
    expect(str(r.limits)).to.deep.equal({ cpu: '3002m', memory: '300Mi' });
    const odd = getProportionalLimit(list({ cpu: '1' }), list({ cpu: '3' }), list({ cpu: '1' }), new Map());
    expect(str(odd.limits)).to.deep.equal({ cpu: '333m' }); // 1000*1000/3000 floored
    expect(odd.annotations).to.deep.equal(['memory: limit NOT set since originalLimit is nil or 0']);
  });
  it('uses the recommendation when request equals limit or the request is zero; the default limit when none', () => {
    expect(str(getProportionalLimit(list({ cpu: '1' }), list({ cpu: '1' }), list({ cpu: '250m' }), new Map()).limits)).to.deep.equal({ cpu: '250m' });
    expect(str(getProportionalLimit(list({ memory: '1Gi' }), new Map(), list({ memory: '300Mi' }), new Map()).limits)).to.deep.equal({ memory: '300Mi' });
    expect(str(getProportionalLimit(new Map(), list({ cpu: '500m' }), list({ cpu: '1' }), list({ cpu: '1' })).limits)).to.deep.equal({ cpu: '2' });
  });
  it('sets no limit without an original or default limit, or for a zero recommendation', () => {
    const r = getProportionalLimit(new Map(), list({ cpu: '1', memory: '1Gi' }), list({ cpu: '2', memory: '2Gi' }), new Map());
    expect(r.limits).to.equal(undefined);
    expect(r.annotations).to.deep.equal([]);
  });
});
