// One handler per vector kind of test/fixtures/vpa-conformance/vpa-vectors.json (format: docs/vpa-recommender.md §8). Each replays the
// vector's input through our core and asserts the expected values exactly.
import type { Vector } from './common.ts';
import { HISTOGRAM_HANDLERS } from './histogram-handlers.ts';
import { LOGIC_HANDLERS } from './logic-handlers.ts';
import { MODEL_HANDLERS } from './model-handlers.ts';

export type { Vector } from './common.ts';

export const HANDLERS: Record<string, (v: Vector) => void> = { ...HISTOGRAM_HANDLERS, ...LOGIC_HANDLERS, ...MODEL_HANDLERS };
