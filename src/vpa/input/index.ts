// Pure pieces of the recommender's inputs: OOM detection, VPA selection, Prometheus history queries.
export * from './oom-observer.ts';
export * from './vpa-filter.ts';
export * from './prometheus-history.ts';
