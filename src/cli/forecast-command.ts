// `ehpa-adapter forecast`: reads a series from CSV, forecasts it with the DSP (Crane or auto estimators) or
// percentile algorithm, prints one JSON object. Bad input is one line on stderr with the CSV line number.
import { readFile } from 'node:fs/promises';
import { defineCommand } from './command.ts';
import { UsageError } from '../config/flags.ts';
import { BOUNDS } from '../api/bounds.ts';
import { forecast, InvalidSeriesError, type ForecastConfig } from '../prediction/index.ts';
import { parseSeriesCsv, SeriesCsvError } from '../prediction/series-csv.ts';

/** Samples one forecast may print: 90 days at 10 s. */
const MAX_FORECAST_SAMPLES = 777_600;

function wholeSeconds<F>(flags: F, name: keyof F & string): number | undefined {
  const ms = flags[name] as number | undefined;
  if (ms === undefined) return undefined;
  if (ms <= 0 || ms % 1000 !== 0) throw new UsageError(`--${name} must be a positive whole number of seconds`);
  return ms / 1000;
}

export const forecastCommand = defineCommand({
  name: 'forecast',
  flags: [
    { name: 'input', type: 'string', default: undefined, help: 'CSV file with a header; first column unix seconds or "YYYY-MM-DD HH:MM:SS" (UTC), second the value' },
    { name: 'sample-interval', type: 'duration', default: '60s', help: 'sample interval of the series' },
    { name: 'algorithm', type: 'enum', values: ['dsp', 'percentile'], default: 'dsp', help: 'prediction algorithm' },
    { name: 'estimators', type: 'enum', values: ['crane', 'auto'], default: 'auto', help: "dsp estimators: Crane's eight FFT estimators, or auto (wider set, budget-matched margins, fallback without a period)" },
    { name: 'history', type: 'duration', default: undefined, help: 'history used (default 15d for dsp, 7d for percentile)' },
    { name: 'horizon', type: 'duration', default: '24h', help: 'forecast horizon' },
    { name: 'seed', type: 'int', default: 1, min: 0, max: 4294967295, help: "seed of period detection's permutation test" },
  ],
  async run(flags, io) {
    const input = flags['input'];
    if (!input) throw new UsageError('--input is required');
    let text: string;
    try {
      text = await readFile(input, 'utf8');
    } catch (e) {
      throw new UsageError(`cannot read ${input}: ${(e as Error).message}`);
    }
    let series;
    try {
      series = parseSeriesCsv(text);
    } catch (e) {
      if (e instanceof SeriesCsvError) throw new UsageError(`${input}: ${e.message}`);
      throw e;
    }
    const interval = wholeSeconds(flags, 'sample-interval') as number;
    const history = wholeSeconds(flags, 'history');
    const horizon = wholeSeconds(flags, 'horizon') as number;
    // The bounds a TSP's own settings have (docs/security.md §2): a horizon of 1e8 days was a RangeError
    // from deep inside the forecaster after reading the file.
    const maxDays = BOUNDS.historyLengthSeconds.max / 86_400;
    for (const [name, seconds] of [['history', history], ['horizon', horizon]] as const) {
      if (seconds !== undefined && seconds > BOUNDS.historyLengthSeconds.max) throw new UsageError(`--${name} must be at most ${maxDays}d`);
    }
    if (horizon / interval > MAX_FORECAST_SAMPLES) throw new UsageError(`--horizon / --sample-interval is ${Math.ceil(horizon / interval)} samples, more than ${MAX_FORECAST_SAMPLES}; lengthen the interval or shorten the horizon`);
    const config: ForecastConfig = {
      algorithm: flags['algorithm'] as 'dsp' | 'percentile',
      sampleIntervalSeconds: interval,
      horizonSeconds: horizon,
      estimators: flags['estimators'] as 'crane' | 'auto',
      ...(history !== undefined ? { historySeconds: history } : {}),
    };
    const now = series.timestamps[series.timestamps.length - 1] as number;
    let result;
    try {
      result = forecast(series, config, { now, seed: flags['seed'] });
    } catch (e) {
      if (e instanceof InvalidSeriesError) throw new UsageError(`${input}: ${e.message}`);
      throw e;
    }
    io.stdout.write(JSON.stringify(result) + '\n');
    return 0;
  },
});
