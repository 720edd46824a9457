// Lint with typescript-eslint's recommended rules; type-aware rules stay off to keep `npm test` fast.
// Plus the import rule of docs/architecture.md: each room of src/ imports only rooms on lower floors.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Floor of each room (top-level folder of src/). A room never imports a room on its own or a higher floor. */
export const FLOORS = {
  api: 0,
  gomath: 0,
  quantity: 0,
  selectors: 1,
  cron: 1,
  config: 1,
  observability: 1,
  hpa: 1,
  histogram: 1,
  kube: 2,
  prometheus: 2,
  'metric-values': 3,
  prediction: 3,
  ehpa: 4,
  vpa: 4,
  adapter: 5,
  simulate: 5,
  cli: 6,
};

/** One no-restricted-imports block per room: the rooms at or above its floor are off limits. */
function importRule() {
  return Object.entries(FLOORS).map(([room, floor]) => {
    const banned = Object.entries(FLOORS).filter(([other, f]) => other !== room && f >= floor).map(([other]) => other);
    const patterns = banned.map((other) => ({
      group: [`**/${other}/**`],
      message: `src/${room} (floor ${floor}) must not import src/${other} (floor ${FLOORS[other]}): see docs/architecture.md, "Rooms and the allowed imports".`,
    }));
    if (room === 'kube') {
      patterns.push({
        group: ['**/api/ehpa.ts', '**/api/prediction.ts', '**/api/kinds.ts'],
        message: 'kube/ knows the API server, not EHPAs or TSPs: use only api/meta.ts, api/autoscaling.ts and api/pod.ts.',
      });
    }
    return { files: [`src/${room}/**/*.ts`], rules: { 'no-restricted-imports': ['error', { patterns }] } };
  });
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test/oracles/**/*.go'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  ...importRule(),
);
