#!/usr/bin/env node
// The `mcp-schema-check` command (npx mcp-schema-check …, from a clone or a packed tarball): the check
// is TypeScript, loaded through tsx (a dependency) as `npm run check` does. See collector/check/cli.ts.
import { tsImport } from 'tsx/esm/api';

const { main } = await tsImport('../collector/check/cli.ts', import.meta.url);
process.exitCode = await main(process.argv.slice(2));
