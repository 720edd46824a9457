// Every size, count and duration a tenant controls, bounded. One table serves both places a bound is
// enforced: the CRD schemas (scripts/gen-crds.ts turns these numbers into maxLength / maxItems / maximum,
// so the apiserver refuses an object at admission with a message naming the field) and the code (for
// objects stored before the bound existed, or written with validation off; they get a condition and an
// event, and nothing else is affected). The numbers, and why each is what it is, are in docs/security.md.
//
// Chosen so that everything Crane's documentation and examples write fits with room to spare
// (sampleInterval 60s, historyLength 1d–15d, predictionWindowSeconds 3600, a handful of crons).

export const BOUNDS = {
  /** Any Crane duration string ("60s", "15d", "1h30m"): longer than this is not a duration anyone means. */
  durationStringLength: 32,
  /** Any Crane float string ("0.99", "1e-10"). */
  floatStringLength: 32,
  /** `auto` mode's accepted extra cost for the same shortage (annotation prediction.ehpa-adapter.io/accept-extra-cost): a share. */
  acceptExtraCost: { min: 0, max: 10 },
  /** `auto` mode's coverage target (annotation prediction.ehpa-adapter.io/coverage): strictly between these. */
  coverageTarget: { min: 0, max: 1 },
  /** Sample interval: at least a second (Prometheus' resolution), at most an hour (Crane's DSP limit). */
  sampleIntervalSeconds: { min: 1, max: 3600 },
  /** History length: 90 days is beyond any retention a forecast here uses (Crane's default is 15 d). */
  historyLengthSeconds: { max: 90 * 86_400 },
  /** historyLength / sampleInterval: one series' points. 15 d at 15 s is 86,400; the fit is O(n log n). */
  historyPoints: 100_000,
  /** The percentile histogram's halfLife: at most the longest history. */
  halfLifeSeconds: { max: 90 * 86_400 },
  /** predictionWindowSeconds: a day (Crane's examples use an hour). The forecast covers twice this. */
  predictionWindowSeconds: { min: 1, max: 86_400 },
  /** Buckets of a percentile histogram (maxValue / bucketSize, or the exponential layout's count): each is
   *  a double allocated per fit. Crane's largest example layout (1e6 / 10, linear) is 100,001; ten times
   *  that is 8 MB. 1e8 buckets took `serve` out of memory before the bound existed. */
  histogramBuckets: 1_000_000,
  /** A percentile block's or an fft estimator's marginFraction: the forecast is × (1 + margin). */
  marginFraction: { min: 0, max: 10 },
  /** A percentile block's targetUtilization: the forecast is ÷ it, so a hundredth is already × 100. */
  targetUtilization: { min: 0.01, max: 10 },
  /** Crane's DSP fft estimator: spectrum items kept. */
  spectrumItems: { max: 1_000 },
  /** Estimators of each kind in one DSP block. */
  estimatorsPerKind: 8,
  /** spec.predictionMetrics of a TSP: Crane's EHPA makes one or two (cpu, memory). */
  predictionMetrics: 16,
  /** A user-written PromQL expression (TSP expressionQuery, EHPA metric-query annotation). */
  promqlLength: 4_096,
  /** Series one Prometheus query may return for a forecast: more is a query that forgot to aggregate. */
  seriesPerQuery: 100,
  /** Forecast samples one TSP status may hold (all metrics, all series): keeps the object well under
   *  etcd's 1.5 MiB request limit (a sample is about 45 bytes of JSON). */
  statusSamples: 20_000,
  /** spec.crons of an EHPA: a few per calendar pattern is what people write; each costs work per
   *  cron-metric request. */
  crons: 50,
  /** A cron's start or end expression ("CRON_TZ=Europe/Berlin 0 8 * * 1-5"). */
  cronExpressionLength: 128,
  /** A cron's name (it keys the list) and time zone (IANA names are at most ~32 characters). */
  cronNameLength: 253,
  timeZoneLength: 64,
  /** Free text (cron description). */
  descriptionLength: 1_024,
  /** Kubernetes names and kinds in references: DNS subdomain and kind lengths. */
  nameLength: 253,
  kindLength: 63,
  apiVersionLength: 253,
  /** Metric names / resource identifiers. */
  metricNameLength: 253,
} as const;

/** Bytes of one Prometheus response the client reads before giving up (streamed and counted). A legal
 *  answer (seriesPerQuery × 11,000 points × ~40 bytes) is under 48 MiB. */
export const MAX_PROMETHEUS_RESPONSE_BYTES = 64 * 1024 * 1024;
