// Mutation testing: `npm run test:mutation`. Not part of `npm test`: it runs the tests once per
// mutant. Results, survivors and how each was dealt with: docs/MUTATION.md.
//
// Stryker 10.1 with its vitest runner of the same version (they are released together; 10.x needs
// Node ≥ 22, the project runs on 26). Older than 9.6.1 loses per-test coverage and hit counts under
// vitest ≥ 4.1 (stryker-js #5928): every mutant then runs every test and infinite loops are only caught
// by the timeout.
//
// To add a module: one line in MUTATE (the file) and one in TEST_FILES (the tests that cover it).
// Only the listed test files run (vitest.mutation.config.ts reads TEST_FILES), so a module's own tests
// have to kill its mutants: a site build or a sandbox demo that happens to pass through the code does
// not count.
// One module, or some lines of it: npx stryker run --mutate src/lib/wilson.ts  (or …/wilson.ts:20-31)
/** @type {string[]} */
export const MUTATE = [
  'src/lib/**/*.ts',
  '!src/lib/index.ts', // re-exports only
  '!src/lib/contract/index.ts', // re-exports only
  // collector (after the collector/ refactor):
  // 'collector/http.ts',
  // 'collector/errors.ts',
  // 'collector/store.ts',
  // 'collector/scheduler.ts',
];

/** @type {string[]} */
export const TEST_FILES = [
  'test/lib/**/*.test.ts',
];

// Test files under TEST_FILES that the run leaves out. readme.test.ts checks that every export of the barrel
// (src/lib/index.ts) is documented and evaluates the README's examples: it loads every module, so it would be
// related to every mutant, and a module's own tests are the ones meant to kill its mutants.
/** @type {string[]} */
export const TEST_EXCLUDE = ['test/lib/readme.test.ts'];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // related: each run starts from the test files that import the mutated file.
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  mutate: MUTATE,
  // perTest: each mutant runs only the tests that reached it in the dry run.
  coverageAnalysis: 'perTest',
  // The machine has 2 shared cores.
  concurrency: 2,
  // Infinite loops are caught by hit counts, not by the clock; a short timeout only turns slow runs on a
  // busy machine into false "timeout" kills (scored as detected). 20 s over the dry run's time is ample.
  timeoutMS: 20_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // Keep the survivors' list readable in the terminal (the HTML report has every mutant).
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  thresholds: { high: 90, low: 80, break: null },
  // `npm run test:mutation -- --incremental` reuses the last run's verdicts for unchanged code and tests.
  incrementalFile: 'reports/stryker-incremental.json',
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  ignorePatterns: ['data', 'dist', '.astro', '.cache', '.tmp', '.demo', '.bench', 'reports', 'test/output'],
};
