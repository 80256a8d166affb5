// Mutation testing of the archive's own files: `npm run test:mutation:archive`. The hash
// chain on disk (src/archive/chain.ts), the day files every reader goes through (day-files.ts) and the
// atomic writes (atomic.ts). Same settings as the collector's config (stryker.collector.config.mjs):
// one test process, 5 s over the dry run. Results: docs/MUTATION.md.
//
// Only the listed tests run (vitest.mutation-archive.config.ts reads ARCHIVE_TEST_FILES). None of them
// collects an archive in a hook: code a beforeAll runs makes every mutant it reaches "static" (run
// against every test), and with collectArchive in a beforeAll 73 % of the mutants were static and a
// run would have taken two hours. test/archive/chain.test.ts works on copies of the frozen golden
// archive instead; chain-link.test.ts and test/collector/ops/chain.test.ts (collected archives) are
// not in the list.
// One module: npx stryker run stryker.archive.config.mjs --mutate src/archive/chain.ts
import collector from './stryker.collector.config.mjs';

/** @type {string[]} */
export const ARCHIVE_MUTATE = ['src/archive/chain.ts', 'src/archive/day-files.ts', 'src/archive/atomic.ts'];

/** @type {string[]} */
export const ARCHIVE_TEST_FILES = ['test/archive/chain.test.ts', 'test/archive/day-files.test.ts', 'test/archive/atomic.test.ts'];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...collector,
  vitest: { configFile: 'vitest.mutation-archive.config.ts', related: true },
  mutate: ARCHIVE_MUTATE,
  htmlReporter: { fileName: 'reports/mutation-archive/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation-archive/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  incrementalFile: 'reports/stryker-archive-incremental.json',
};
