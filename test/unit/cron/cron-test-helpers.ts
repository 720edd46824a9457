// Helpers shared by the cron unit tests.
import { expect } from 'chai';
import { parseStandardCron, CronSyntaxError } from '../../../src/cron/standard-cron.ts';

export const at = (iso: string) => Date.parse(iso);

// cron-window.ts keeps compiled crons and window states per text. The root hook (test/helpers/fresh-caches.ts)
// empties them before each test; within a test, a spelling not used before (trailing blanks and tabs, which
// robfig's strings.Fields ignores) makes a call parse and evaluate afresh, e.g. when a loop measures that cost.
let spellings = 0;
export function fresh(expr: string): string {
  spellings += 1;
  return `${expr} ${spellings.toString(2).replace(/0/g, ' ').replace(/1/g, '\t')}`;
}

/** The CronSyntaxError parseStandardCron throws for `expr`; fails the test when it parses. */
export function syntaxError(expr: string): CronSyntaxError {
  try {
    parseStandardCron(expr);
  } catch (e) {
    if (e instanceof CronSyntaxError) return e;
    throw e;
  }
  return expect.fail(`${JSON.stringify(expr)} parsed, but robfig/cron v3.0.1 rejects it`);
}
