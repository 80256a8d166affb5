// The vitest config `npm run test:mutation:collector` uses: vitest.config.ts with `include` narrowed to
// the test files listed in stryker.collector.config.mjs (COLLECTOR_TEST_FILES); see vitest.mutation.config.ts.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';
import { COLLECTOR_TEST_FILES } from './stryker.collector.config.mjs';

export default defineConfig({ ...base, test: { ...base.test, include: COLLECTOR_TEST_FILES } });
