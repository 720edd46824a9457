// The real traces in test/fixtures/traces (provenance and licences: test/fixtures/README.md), one module for
// the tests and the benchmarks: the directory, Crane's 16 inputs with Crane's period labels, the other trace
// sets the forecast and value evaluations replay, and a loader on the product's own CSV reader
// (src/prediction/series-csv.ts). It lives beside the fixtures it names rather than in bench/, so a test of
// src/ never depends on the benchmark layer; bench/ imports it from here.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseSeriesCsv, type ParsedSeries } from '../../src/prediction/series-csv.ts';

export const TRACES_DIR = fileURLToPath(new URL('../fixtures/traces/', import.meta.url));

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
  /** Column of the value in the file (0-based, the time column included when there is one). */
  valueColumn: number;
  /** A file without a time column: row i after the header is rowSeconds · i seconds after 0. */
  rowSeconds?: number;
}

/** One of Crane's own inputs: always labelled. */
export interface CraneTrace extends Trace {
  label: PeriodLabel;
}

/** Crane's 16 DSP test inputs (gocrane/crane pkg/prediction/dsp/test_data): 60 s samples, input15 at 15 s. */
export function craneTraces(): CraneTrace[] {
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

/**
 * The traces added for the iso-cost value evaluation (`npm run eval:value`): six more NAB CloudWatch series
 * (CPU %, load-balancer requests, network bytes in), three NAB tweet volumes (request-like, 55 days) and the
 * Alibaba 2018 cluster's mean machine CPU (research/study use only: test/fixtures/traces/alibaba/NOTICE.md).
 */
export function valueTraces(): Trace[] {
  const nab = [
    'ec2_cpu_utilization_5f5533',
    'ec2_cpu_utilization_825cc2',
    'ec2_cpu_utilization_ac20cd',
    'ec2_cpu_utilization_c6585a',
    'elb_request_count_8c0756',
    'ec2_network_in_257a54',
    'Twitter_volume_AAPL',
    'Twitter_volume_GOOG',
    'Twitter_volume_FB',
  ].map((n) => ({ name: `nab/${n}`, file: `${TRACES_DIR}nab/${n}.csv`, intervalSeconds: 300, label: null, valueColumn: 1 }));
  return [
    ...nab,
    {
      name: 'alibaba/machine_usage (Alibaba cluster-trace-v2018, research/study use)',
      file: `${TRACES_DIR}alibaba/machine_usage_days_1_to_8_grouped_300_seconds.csv`,
      intervalSeconds: 300,
      label: null,
      valueColumn: 0,
      rowSeconds: 300,
    },
  ];
}

/** A CSV without a time column, numbered: row i after the header gets time rowSeconds · i. */
export function withRowTimes(text: string, rowSeconds: number): string {
  const lines = text.split(/\r?\n/);
  let row = 0;
  return lines
    .map((line, i) => {
      if (i === 0) return `t,${line}`;
      if (line.trim() === '') return line;
      return `${rowSeconds * row++},${line}`;
    })
    .join('\n');
}

/** A trace's series: the value in `valueColumn` (default 1, the column after the time), rows numbered when the file has no time. */
export function loadTrace(trace: Pick<Trace, 'file'> & Partial<Pick<Trace, 'valueColumn' | 'rowSeconds'>>): ParsedSeries {
  const text = readFileSync(trace.file, 'utf8');
  const column = trace.valueColumn ?? 1;
  if (trace.rowSeconds !== undefined) return parseSeriesCsv(withRowTimes(text, trace.rowSeconds), column + 1);
  return parseSeriesCsv(text, column);
}
