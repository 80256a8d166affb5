#!/usr/bin/env node
// The `mcp-schema-mcp` command: the stdio MCP server over a published archive (mcp/server.ts), loaded
// through tsx (a dependency) as `npm run mcp` does.
import { tsImport } from 'tsx/esm/api';

const { main } = await tsImport('../mcp/cli.ts', import.meta.url);
await main(process.argv.slice(2));
