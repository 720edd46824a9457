// Mutation testing of the pure core with StrykerJS (`npm run test:mutation`; docs/testing.md, "Mutation testing").
// Not part of `npm test`: a cold run takes about an hour on a 2-core machine; incremental re-runs take minutes.
// Everything Stryker writes (sandboxes, incremental file, HTML/JSON reports) goes under
// ~/.cache/ehpa-adapter/stryker/, outside the working tree, so lint, tsc and git never see it.
import { homedir } from 'node:os';
import { join } from 'node:path';

const out = process.env.EHPA_STRYKER_DIR ?? join(homedir(), '.cache', 'ehpa-adapter', 'stryker');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  // The pure core: code with no I/O, whose behaviour the unit and conformance tests pin down.
  mutate: [
    'src/metric-values/**/*.ts',
    'src/cron/**/*.ts',
    'src/quantity/**/*.ts',
    'src/selectors/**/*.ts',
    'src/vpa/model/**/*.ts',
    'src/vpa/logic/**/*.ts',
    'src/prediction/dsp/**/*.ts',
    'src/hpa/**/*.ts',
    'src/ehpa/desired-hpa.ts',
    'src/ehpa/desired-tsp.ts',
    'src/ehpa/predicted-metrics.ts',
    'src/ehpa/naming.ts',
    'src/ehpa/validation.ts',
    'src/ehpa/current-metrics.ts',
    // Barrel files only re-export.
    '!src/**/index.ts',
  ],
  testRunner: 'mocha',
  // .mocharc.json is read too (forbid-only, forbid-pending, the preload); its `node-option: import=tsx` only
  // applies to the mocha CLI, so the worker processes get tsx here.
  mochaOptions: {
    // EHPA_STRYKER_SPEC (comma-separated globs) narrows the tests for a run over one part of the core, e.g.
    // src/prediction/dsp with 'test/unit/prediction/**/*.test.ts': a shorter initial run, and test files
    // being edited elsewhere in the tree cannot fail it. Mutants are then judged by those tests alone.
    spec: process.env.EHPA_STRYKER_SPEC?.split(',') ?? ['test/unit/**/*.test.ts', 'test/conformance/**/*.test.ts'],
    // The docs tests list files with `git ls-files`, and the sandbox is not a git checkout; they test no core code.
    // promql-confine tests src/prometheus, which is outside the scope, and its linearity check parses megabytes
    // of PromQL (seconds per run) that no mutant here can change.
    // The worker-pool tests run fits in worker threads, where Stryker activates no mutant, and compare them
    // with fits in this thread: they would "kill" any dsp mutant that changes a forecast by comparing it with
    // the unmutated code, which says nothing about whether a test pins the behaviour down.
    ignore: ['test/unit/docs/**', 'test/unit/prometheus/promql-confine.test.ts', 'test/unit/prediction/worker/**'],
  },
  testRunnerNodeArgs: ['--import', 'tsx'],
  coverageAnalysis: 'perTest',
  // A static mutant (code that also runs while test files load or in `before` hooks) needs a fresh process
  // and the whole suite (~80 s) per mutant: hours for this scope. Mutants that tests also cover run against
  // those tests; only purely static ones (module-level tables) are reported as Ignored, and
  // docs/testing.md counts them separately.
  ignoreStatic: true,
  checkers: ['typescript'],
  // The checker compiles only what the mutation run uses, so a half-edited e2e test elsewhere cannot stop it.
  // EHPA_STRYKER_TSCONFIG narrows it for a run over one part: tsconfig.stryker-dsp.json checks src/prediction/dsp and
  // its own tests, so each mutant's re-check does not walk every file that imports the forecaster.
  tsconfigFile: process.env.EHPA_STRYKER_TSCONFIG ?? 'tsconfig.stryker.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  // The machine has 2 cores shared with other engineers.
  concurrency: 2,
  incremental: true,
  incrementalFile: join(out, 'incremental.json'),
  tempDirName: join(out, 'tmp'),
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: join(out, 'mutation.html') },
  jsonReporter: { fileName: join(out, 'mutation.json') },
  // A mutant is a timeout when its tests take longer than timeoutFactor x their dry-run time + timeoutMS. On
  // a 2-core machine that others load to 4x, tighter figures turned slow runs into "timeouts", which Stryker
  // scores as killed; these leave headroom at the cost of waiting longer for a real infinite loop.
  timeoutFactor: 3,
  timeoutMS: 20000,
  thresholds: { high: 90, low: 85, break: null },
};
