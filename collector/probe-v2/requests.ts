// The JSON-RPC messages and headers the v2 probe sends (methodology v2, "Probe"), one function each, so
// the probe (index.ts) and the validation worksheet's curl commands (collector/ops/validation.ts) send
// the same bytes: a reviewer repeating the probe by hand repeats exactly this.
import { MODERN_PROTOCOL_VERSION } from '../../src/lib/index.ts';
import { PROBER_VERSION } from '../version.ts';
import { CANARY_ID, CANARY_TOOL_NAME } from './canary.ts';
import { TOOLS_LIST_ID } from './pages.ts';
import { Wire } from './wire.ts';

/** JSON-RPC ids: constant, so identical servers give byte-identical raw bodies (v1 uses 1 and 2 too). */
export const HANDSHAKE_ID = 1;

export const CLIENT_INFO = { name: 'mcp-schema', version: PROBER_VERSION };
/** The per-request `_meta` of 2026-07-28 (basic/index.mdx §`_meta`): version and capabilities required, clientInfo SHOULD. */
export const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  'io.modelcontextprotocol/clientCapabilities': {},
};

const json = (v: unknown): string => JSON.stringify(v);

/** The 2026-07-28 request headers: the base ones, MCP-Protocol-Version, Mcp-Method and (tools/call) Mcp-Name. */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    ...Wire.base(),
    'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  };
}

export const discoverBody = (): string => json({ jsonrpc: '2.0', id: HANDSHAKE_ID, method: 'server/discover', params: { _meta: META } });
export const modernToolsListBody = (cursor?: string): string => json({ jsonrpc: '2.0', id: TOOLS_LIST_ID, method: 'tools/list', params: { ...(cursor === undefined ? {} : { cursor }), _meta: META } });
export const modernCanaryBody = (): string => json({ jsonrpc: '2.0', id: CANARY_ID, method: 'tools/call', params: { name: CANARY_TOOL_NAME, arguments: {}, _meta: META } });
export const initializeBody = (offer: string): string => json({ jsonrpc: '2.0', id: HANDSHAKE_ID, method: 'initialize', params: { protocolVersion: offer, capabilities: {}, clientInfo: CLIENT_INFO } });
export const initializedBody = (): string => json({ jsonrpc: '2.0', method: 'notifications/initialized' });
export const legacyToolsListBody = (cursor?: string): string => json({ jsonrpc: '2.0', id: TOOLS_LIST_ID, method: 'tools/list', ...(cursor === undefined ? {} : { params: { cursor } }) });
export const legacyCanaryBody = (): string => json({ jsonrpc: '2.0', id: CANARY_ID, method: 'tools/call', params: { name: CANARY_TOOL_NAME, arguments: {} } });
