// A tool as served in tools/list (MCP spec 2025-06-18, "Tool"), and the one place that pulls
// `result.tools` out of a JSON-RPC response. Methodology v1, "Canonicalisation" hashes exactly this array.
import { isObject } from './canonical.ts';
import { clip } from './clip.ts';

/**
 * Deliberately loose: servers are unvetted and the record keeps what they sent, so unknown keys
 * (`icons`, `_meta`, …) are kept and every surface but `name` may be missing or of any type.
 */
export interface Tool {
  name: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  title?: string;
  [key: string]: unknown;
}

export class ToolsListError extends Error {
  override readonly name = 'ToolsListError';
}

/**
 * `result.tools` of a JSON-RPC `tools/list` response (already JSON-parsed).
 * Throws a ToolsListError for a JSON-RPC error, a missing result, a non-array `tools`,
 * or a tool without a string `name` (the diff and the rules key tools by name).
 */
export function parseToolsList(json: unknown): Tool[] {
  if (!isObject(json)) throw new ToolsListError('tools/list response is not a json object');
  if ('error' in json && json.error !== undefined && json.error !== null) {
    const error = isObject(json.error) ? json.error : {};
    const code = typeof error.code === 'number' ? error.code : 'unknown';
    const message = typeof error.message === 'string' ? clip(error.message, 120) : '';
    throw new ToolsListError(`tools/list answered json-rpc error ${code}${message ? `: ${message}` : ''}`);
  }
  if (!isObject(json.result)) throw new ToolsListError('tools/list response has no result object');
  const tools = json.result.tools;
  if (!Array.isArray(tools)) throw new ToolsListError('tools/list result.tools is not an array');
  tools.forEach((tool, i) => {
    if (!isObject(tool) || typeof tool.name !== 'string') {
      throw new ToolsListError(`tools/list result.tools[${i}] has no string name`);
    }
  });
  return tools as Tool[];
}
