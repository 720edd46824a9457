// The real traces in test/fixtures/traces (provenance and licences: test/fixtures/README.md) as the tests read
// them: the directory, Crane's 16 inputs with Crane's period labels, and a loader on the product's own CSV
// reader (src/prediction/series-csv.ts). Tests take them from here rather than from bench/, so a test of src/
// does not depend on the benchmark layer; bench/traces.ts adds the benchmark's other trace sets.
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

export interface CraneTrace {
  name: string;
  file: string;
  intervalSeconds: number;
  label: PeriodLabel;
}

/** Crane's 16 DSP test inputs (gocrane/crane pkg/prediction/dsp/test_data): 60 s samples, input15 at 15 s. */
export function craneTraces(): CraneTrace[] {
  return CRANE_LABELS.map((label, i) => ({
    name: `crane/input${i}`,
    file: `${TRACES_DIR}crane/input${i}.csv`,
    intervalSeconds: i === 15 ? 15 : 60,
    label,
  }));
}

/** A trace file's `time,value` series (the value in the second column). */
export function loadTrace(trace: { file: string }): ParsedSeries {
  return parseSeriesCsv(readFileSync(trace.file, 'utf8'), 1);
}
