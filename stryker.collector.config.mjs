// Mutation testing of the collector modules: `npm run test:mutation:collector`.
// A config of its own so `npm run test:mutation` (src/lib) stays as fast as it was; same settings
// (stryker.config.mjs), other files, other tests, other reports. Results: docs/MUTATION.md.
//
// Only each module's own tests run (vitest.mutation-collector.config.ts reads COLLECTOR_TEST_FILES):
// a whole collector run through run.ts passing over the code does not count as killing its mutants.
// collector/host-gate.ts (the request-level gate) has fast tests of its own (host-gate.test.ts: the
// gate alone, and send() through it to a loopback host); the end-to-end loopback runs of
// scheduling.test.ts (5 s a run) are not in the list. Likewise the v2 probe is measured with
// probe-v2.test.ts and probe-v2-decisions.test.ts, not probe-v2-world.test.ts (18 s a run).
// One module: npx stryker run stryker.collector.config.mjs --mutate collector/errors.ts
import lib from './stryker.config.mjs';

/** @type {string[]} */
export const COLLECTOR_MUTATE = [
  'collector/errors.ts',
  'collector/http.ts',
  'collector/schedule.ts',
  'collector/store.ts',
  // the courtesy gate and the probe, driven directly
  'collector/host-gate.ts',
  'collector/host-signal.ts',
  'collector/address-policy.ts',
  'collector/probe-v2/*.ts',
];

/** @type {string[]} */
export const COLLECTOR_TEST_FILES = [
  'test/collector/errors.test.ts',
  'test/collector/schedule.test.ts',
  'test/collector/store.test.ts',
  // store.ts's lock: the same property as lock.test.ts (a dead, zombie or reused holder's lock is taken,
  // a live one refuses) through Store.open's ProcView, in milliseconds; lock.test.ts (20 SIGKILLed
  // collectors, ~10 s) made every Store.open mutant slow and still runs in `npm test` (vitest.config.ts).
  'test/collector/store-lock-fast.test.ts',
  'test/collector/http.test.ts',
  // http.ts: the redirect and address-policy tests drive it against loopback servers
  'test/collector/redirect-headers.test.ts',
  'test/collector/address-policy.test.ts',
  // the request-level gate, the host signal, the v2 probe
  'test/collector/host-gate.test.ts',
  'test/collector/host-signal.test.ts',
  'test/collector/address-lookup.test.ts',
  'test/collector/probe-v2.test.ts',
  'test/collector/probe-v2-decisions.test.ts',
  // pages.ts, tool-set-hash.ts, sse.ts, canary.ts, auth.ts driven directly through a Wire to loopback servers
  'test/collector/probe-v2-pages.test.ts',
  'test/collector/probe-v2-sse.test.ts',
  'test/collector/probe-v2-canary.test.ts',
  'test/collector/probe-v2-auth.test.ts',
  // wire.ts driven directly (budget, classes, throttling, no-answer cases, get and DELETE)
  'test/collector/probe-v2-wire.test.ts',
  // index.ts's own keeping — handshake facts and their bounds, final URL, notes, budget, session
  'test/collector/probe-v2-handshake.test.ts',
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...lib,
  vitest: { configFile: 'vitest.mutation-collector.config.ts', related: true },
  mutate: COLLECTOR_MUTATE,
  // The shared machine: one test process.
  concurrency: 1,
  // These tests take well under a second; the mutants that time out here are awaits that never settle
  // (a promise no one resolves is not a loop hit counts can catch), and 20 s each made the run too long.
  timeoutMS: 5_000,
  htmlReporter: { fileName: 'reports/mutation-collector/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation-collector/mutation.json' },
  thresholds: { high: 80, low: 70, break: null },
  incrementalFile: 'reports/stryker-collector-incremental.json',
  tempDirName: '.stryker-tmp',
};
