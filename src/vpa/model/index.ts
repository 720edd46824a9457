// The VPA recommender's state: histograms, container and aggregate state, the cluster view, checkpoints,
// and the Go numeric/time semantics they depend on. Pure: time is always passed in.
// Go-exact maths live in src/gomath (shared with the DSP port); re-exported for the model's users.
export * from '../../gomath/go-math.ts';
export * from '../../gomath/go-time.ts';
export * from '../../histogram/options.ts';
export * from '../../histogram/histogram.ts';
export * from './resource-amount.ts';
export * from './aggregations-config.ts';
export * from './aggregate-container-state.ts';
export * from './container-state.ts';
export * from './cluster-state.ts';
export * from './checkpoint-json.ts';
export * from './vpa-types.ts';
export * from './vpa-conditions.ts';
