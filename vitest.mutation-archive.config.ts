// The vitest config `npm run test:mutation:archive` uses: vitest.config.ts with `include` narrowed to
// the test files listed in stryker.archive.config.mjs (ARCHIVE_TEST_FILES); see vitest.mutation.config.ts.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';
import { ARCHIVE_TEST_FILES } from './stryker.archive.config.mjs';

export default defineConfig({ ...base, test: { ...base.test, include: ARCHIVE_TEST_FILES } });
