// The JSON Schema of mcp-lock.json, version 1, made from its zod schema (src/lib mcp-lock.ts) as the
// descriptor's is made from its own (descriptor-schema.ts): published at /api/schema/mcp-lock.v1.json
// (MCP_LOCK_SCHEMA_PATH) by writeServerFiles, so the format, its reader and its documentation cannot disagree.
import { zodToJsonSchema } from 'zod-to-json-schema';
import { McpLock } from '../lib/index.ts';

/** The JSON Schema (draft-07) of a lockfile, with `id` as its $id. */
export function mcpLockJsonSchema(id: string): Record<string, unknown> {
  return { $id: id, title: 'mcp-lock.json, version 1', ...(zodToJsonSchema(McpLock, { $refStrategy: 'none', target: 'jsonSchema7' }) as Record<string, unknown>) };
}
