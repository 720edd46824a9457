// Turning model state into VPA recommendations: estimators, the pod recommender, API quantities and
// the post-processors.
export * from './estimators.ts';
export * from './pod-recommender.ts';
export * from './resource-list.ts';
export * from './post-processors.ts';
export * from './limits.ts';
