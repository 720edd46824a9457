// The real traces in test/fixtures/traces (provenance and licences: test/fixtures/README.md), with Crane's period
// labels for its own 16 inputs. Shared by the forecast evaluation, the DSP benchmark and the tests.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseSeriesCsv, type ParsedSeries } from '../src/prediction/series-csv.ts';

export const TRACES_DIR = fileURLToPath(new URL('../test/fixtures/traces/', import.meta.url));

export type PeriodLabel = 'day' | 'week' | 'none';

/** Crane's pkg/prediction/dsp/signal_test.go labels (periodic[] / periods[]), input0 ... input15. */
export const CRANE_LABELS: readonly PeriodLabel[] = [
  'day', 'day', 'week', 'none', 'none', 'none', 'none', 'none',
  'week', 'day', 'week', 'day', 'week', 'week', 'week', 'week',
];

export interface Trace {
  name: string;
  file: string;
  intervalSeconds: number;
  /** Crane's label, or null for traces Crane never labelled. */
  label: PeriodLabel | null;
  valueColumn: number;
}

export function craneTraces(): Trace[] {
  return CRANE_LABELS.map((label, i) => ({
    name: `crane/input${i}`,
    file: `${TRACES_DIR}crane/input${i}.csv`,
    intervalSeconds: i === 15 ? 15 : 60,
    label,
    valueColumn: 1,
  }));
}

export function otherTraces(): Trace[] {
  const nab = ['rds_cpu_utilization_cc0c53', 'ec2_cpu_utilization_53ea38', 'ec2_cpu_utilization_24ae8d'].map((n) => ({
    name: `nab/${n}`,
    file: `${TRACES_DIR}nab/${n}.csv`,
    intervalSeconds: 300,
    label: null,
    valueColumn: 1,
  }));
  return [
    ...nab,
    { name: 'nab/nyc_taxi', file: `${TRACES_DIR}nab/nyc_taxi.csv`, intervalSeconds: 1800, label: null, valueColumn: 1 },
    {
      name: 'azure/vm_cpu (CC-BY-4.0, Microsoft Azure Public Dataset v2)',
      file: `${TRACES_DIR}azure/vm_cpu_readings_month_aggregated_cpu_mem.csv`,
      intervalSeconds: 300,
      label: null,
      valueColumn: 1,
    },
  ];
}

export function loadTrace(trace: Trace): ParsedSeries {
  return parseSeriesCsv(readFileSync(trace.file, 'utf8'), trace.valueColumn);
}
