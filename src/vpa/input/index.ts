// The pure pieces of the recommender's inputs (OOM detection, VPA selection, Prometheus history queries); the
// feeders and I/O edges of this folder are imported by path.
export * from './oom-observer.ts';
export * from './vpa-filter.ts';
export * from './prometheus-history.ts';
