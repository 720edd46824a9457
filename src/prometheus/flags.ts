// The Prometheus every loop reads (TSP history, the adapter's fallback, the VPA recommender), declared once.
import type { FlagSpec } from '../config/flags.ts';

export const PROMETHEUS_FLAGS = [
  { name: 'prometheus-url', type: 'string', default: undefined, help: 'Prometheus base URL for TimeSeriesPrediction history, e.g. http://prometheus:9090' },
  { name: 'prometheus-timeout', type: 'duration', default: '3m', help: 'timeout of one Prometheus query_range request' },
  { name: 'prometheus-max-points', type: 'int', default: 11000, min: 2, help: 'most points per series in one query_range; longer ranges are split' },
] as const satisfies readonly FlagSpec[];
