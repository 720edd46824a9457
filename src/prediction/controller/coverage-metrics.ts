// The forecast's trustworthiness on /metrics, per TimeSeriesPrediction (labels namespace and name only, so
// one series per TSP; removed when the TSP is deleted, refused by a bound, or this replica stops leading):
// - ehpa_adapter_prediction_realized_coverage: share of the last day's prediction windows whose actual
//   maximum the published forecast covered (realized-coverage.ts), present once a window could be judged;
// - ehpa_adapter_prediction_realized_coverage_windows: how many windows that share is over;
// - ehpa_adapter_prediction_coverage_target: the target `auto` mode calibrates for (absent without an
//   `auto` metric), so an alert can compare the two: realized_coverage < coverage_target - 0.1;
// - ehpa_adapter_prediction_pays: 1 when every judged `auto` forecast of the TSP pays against a plain HPA at
//   the same cost, 0 when one steps aside (served from observation); absent when none was judged.
import { Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../../observability/metrics-registry.ts';
import type { CoverageCount } from './realized-coverage.ts';

export interface CoverageMetrics {
  /** The TSP's current figures; `realized` without windows and an undefined `target` remove their series. */
  set(namespace: string, name: string, v: { realized: CoverageCount; target: number | undefined; pays?: boolean | undefined }): void;
  /** Drops every series of the TSP. */
  forget(namespace: string, name: string): void;
}

export function registerCoverageMetrics(registry: Registry): CoverageMetrics {
  const realized = new Gauge({
    name: `${METRIC_PREFIX}prediction_realized_coverage`,
    help: "Share of the last day's prediction windows whose actual maximum the TimeSeriesPrediction's published forecast covered",
    labelNames: ['namespace', 'name'],
    registers: [registry],
  });
  const windows = new Gauge({
    name: `${METRIC_PREFIX}prediction_realized_coverage_windows`,
    help: 'Prediction windows ehpa_adapter_prediction_realized_coverage is computed over',
    labelNames: ['namespace', 'name'],
    registers: [registry],
  });
  const target = new Gauge({
    name: `${METRIC_PREFIX}prediction_coverage_target`,
    help: "The coverage auto mode's calibration aims for (annotation prediction.ehpa-adapter.io/coverage, default 0.9)",
    labelNames: ['namespace', 'name'],
    registers: [registry],
  });
  const pays = new Gauge({
    name: `${METRIC_PREFIX}prediction_pays`,
    help: 'Whether the TimeSeriesPrediction\'s auto forecasts pay against a plain HPA at the same cost on a replay of their own history (1), or one steps aside and is served from observation (0)',
    labelNames: ['namespace', 'name'],
    registers: [registry],
  });
  const all = [realized, windows, target, pays];
  return {
    set(namespace, name, v) {
      const labels = { namespace, name };
      if (v.realized.windows > 0) {
        realized.set(labels, v.realized.covered / v.realized.windows);
        windows.set(labels, v.realized.windows);
      } else {
        realized.remove(labels);
        windows.remove(labels);
      }
      if (v.target === undefined) target.remove(labels);
      else target.set(labels, v.target);
      if (v.pays === undefined) pays.remove(labels);
      else pays.set(labels, v.pays ? 1 : 0);
    },
    forget(namespace, name) {
      for (const g of all) g.remove({ namespace, name });
    },
  };
}
