// The simulate table's pod-minutes (bench/simulate-table.ts underPodMinutes): a figure of the benchmark's
// table, not of src/simulate, so it is tested with the benchmark.
import { expect } from 'chai';
import { underPodMinutes } from '../../../bench/simulate-table.ts';
import type { SimulationResult } from '../../../src/simulate/simulate.ts';

describe('simulate table: under-provisioned pod-minutes', () => {
  it('under-provisioned pod-minutes: the pods missing at the target, with the replicas in force before each step', () => {
    const step = (usageCores: number, replicas: number) => ({
      t: 0,
      usageCores,
      forecastCores: null,
      forecastWindowMaxCores: null,
      cronReplicas: null,
      ehpa: { replicas, proposals: {}, underProvisioned: false },
      plain: { replicas, proposals: {}, underProvisioned: false },
    });
    // Target 0.5 core per pod, 2 replicas at the start, 60 s steps.
    // Step 1: 2.5 cores need 5 pods, 2 in force -> 3 missing; then 5 replicas.
    // Step 2: 2 cores need 4, 5 in force -> 0; then 3 replicas.
    // Step 3: 1.75 cores need 3.5, 3 in force -> 0.5.
    const result = { steps: [step(2.5, 5), step(2, 3), step(1.75, 3)], summary: {} } as unknown as SimulationResult;
    expect(underPodMinutes(result, 'ehpa', 0.5, 60, 2)).to.equal(3.5);
    expect(underPodMinutes(result, 'plain', 0.5, 120, 2)).to.equal(7);
  });
});
