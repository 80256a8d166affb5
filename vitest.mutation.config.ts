// The vitest config `npm run test:mutation` uses: vitest.config.ts with `include` narrowed to the test
// files listed in stryker.config.mjs (TEST_FILES), so the list lives in one place.
// Stryker's own `testFiles` option is not used for this: with it set, Stryker 9.6 runs static mutants
// (code reached while test files are collected, such as a `describe` body computing a result) with
// runtime activation, so they are never active when that code runs and are reported as survived.
import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.ts';
import { TEST_EXCLUDE, TEST_FILES } from './stryker.config.mjs';

export default defineConfig({ ...base, test: { ...base.test, include: TEST_FILES, exclude: [...configDefaults.exclude, ...TEST_EXCLUDE] } });
