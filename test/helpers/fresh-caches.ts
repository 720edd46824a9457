// Loaded in every mocha process (.mocharc.json "require"): a root hook that empties the pure core's
// memo caches before each test, so no test passes on an answer an earlier test computed. Under mutation
// testing (one process runs many mutants) a cached answer would otherwise hide a mutant from every later
// test. The caches only hold what the functions would compute again, so this changes no result.
import { clearCronCaches } from '../../src/cron/cron-window.ts';
import { clearCraneFftPlans } from '../../src/prediction/dsp/crane-fft.ts';
import { clearDftPlans } from '../../src/prediction/dsp/dft.ts';
import { clearQuantityMemo } from '../../src/quantity/quantity.ts';
import { clearValidationMemo } from '../../src/ehpa/validation.ts';

export const mochaHooks = {
  beforeEach(): void {
    clearCronCaches();
    clearCraneFftPlans();
    clearDftPlans();
    clearQuantityMemo();
    clearValidationMemo();
  },
};
