// Real SDK endpoints for the era zoo (sandbox/era-servers.ts): the official TypeScript SDK v1
// (@modelcontextprotocol/sdk 1.32, legacy revisions 2024-11-05 … 2025-11-25 over the `initialize`
// handshake) and v2 (@modelcontextprotocol/server 2.4, revision 2026-07-28, served through
// createMcpHandler with or without its stateless legacy fallback). Each endpoint is a
// `(req, res, body)` handler: the zoo has already read (and recorded) the body, so it is handed to
// the SDK pre-parsed.
//
// Two flavours per SDK, because they answer the canary `tools/call` differently and the probe must
// classify both (bytes captured here, see the v2-protocol notes):
//   - `McpServer` (what most deployments use): v1 answers an unknown tool IN the result
//     (`isError: true`, text "MCP error -32602: Tool … not found"); v2 answers a JSON-RPC error
//     -32602 "Tool … not found" (HTTP 200).
//   - the low-level `Server` with hand-written `tools/list` / `tools/call` handlers, for what
//     McpServer cannot do: cursor pagination, an endless cursor, a chosen canary answer.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server as ServerV1 } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, fromJsonSchema, McpServer as McpServerV2, ProtocolError, Server as ServerV2 } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';

export type Serve = (req: IncomingMessage, res: ServerResponse, body: Buffer) => Promise<void>;

export interface SdkEndpoint {
  serve: Serve;
  close(): Promise<void>;
}

export type ToolDef = { name: string; description?: string; inputSchema: Record<string, unknown>; [k: string]: unknown };
export interface ToolPage {
  tools: ToolDef[];
  nextCursor?: string;
}
/** A tools/list source: the page for a cursor (undefined = first page), or null for an unknown cursor. */
export type Pager = (cursor: string | undefined) => ToolPage | null;

/** How a low-level server answers `tools/call` for a tool it does not have (the probe's canary). */
export type CanaryAnswer = 'jsonrpc-error' | 'is-error';

/** Who a low-level server says it is, and what it tells clients (the zoo's defaults when absent). */
export interface Identity {
  info?: { name: string; version: string };
  /** `instructions` in the initialize / server/discover result; null = none. Default: the zoo's INSTRUCTIONS. */
  instructions?: string | null;
}

export const SDK_V1_INFO = { name: 'era-zoo-sdk-v1', version: '1.32.2-zoo' };
export const SDK_V2_INFO = { name: 'era-zoo-sdk-v2', version: '2.4.0-zoo' };
export const INSTRUCTIONS = 'Era zoo: a loopback server for probe tests. Nothing here is real.';

const ECHO = {
  name: 'echo',
  description: 'Echo the text back.',
  schema: { type: 'object', properties: { text: { type: 'string', description: 'Text to echo' } }, required: ['text'] },
} as const;

/** SDK v1 McpServer. Stateful: one transport per Mcp-Session-Id (bounded); stateless: one per request. */
export function sdkV1(opts: { stateful: boolean; json: boolean; pager?: Pager; canary?: CanaryAnswer }): SdkEndpoint {
  const make = () => (opts.pager ? lowLevelV1(opts.pager, opts.canary ?? 'jsonrpc-error') : mcpServerV1());
  return opts.stateful ? statefulV1(make, opts.json) : statelessV1(make, opts.json);
}

function mcpServerV1(): McpServerV1 {
  const server = new McpServerV1(SDK_V1_INFO, { instructions: INSTRUCTIONS });
  server.registerTool(ECHO.name, { description: ECHO.description, inputSchema: { text: z.string().describe('Text to echo') } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
}

/** SDK v1 low-level `Server`: tools/list pages from `pager`, served as given (raw JSON Schemas, verbatim). */
export function lowLevelV1(pager: Pager, canary: CanaryAnswer, id: Identity = {}): ServerV1 {
  const instructions = id.instructions === undefined ? INSTRUCTIONS : (id.instructions ?? undefined);
  const server = new ServerV1(id.info ?? SDK_V1_INFO, { capabilities: { tools: {} }, instructions });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const page = pager(request.params?.cursor);
    // The spec's answer to an unknown cursor (Pagination, "Error Handling").
    if (!page) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
    return page as never;
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const message = `Unknown tool: ${request.params.name}`;
    if (canary === 'is-error') return { content: [{ type: 'text', text: message }], isError: true };
    throw new McpError(ErrorCode.InvalidParams, message);
  });
  return server;
}

type V1 = McpServerV1 | ServerV1;

function statelessV1(make: () => V1, json: boolean): SdkEndpoint {
  return {
    async serve(req, res, body) {
      // A fresh server and transport per request, as the SDK's stateless examples do.
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: json });
      const server = make();
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, parseJson(body));
    },
    async close() {},
  };
}

/** Sessions kept per endpoint; older ones are closed (a probe that never DELETEs must not grow memory). */
const MAX_SESSIONS = 16;

function statefulV1(make: () => V1, json: boolean): SdkEndpoint {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return {
    async serve(req, res, body) {
      const sid = req.headers['mcp-session-id'];
      const existing = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (existing) return existing.handleRequest(req, res, parseJson(body));
      if (typeof sid === 'string') {
        // An id we never issued or already ended: 404, in the SDK transport's own words for a closed
        // session (2025-11-25 Session Management: 404 means start a new session).
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
        return;
      }
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (id) => {
          sessions.set(id, transport);
          for (const [old, t] of sessions) {
            if (sessions.size <= MAX_SESSIONS) break;
            sessions.delete(old);
            void t.close().catch(() => {});
          }
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await make().connect(transport);
      await transport.handleRequest(req, res, parseJson(body));
    },
    async close() {
      for (const t of sessions.values()) await t.close().catch(() => {});
      sessions.clear();
    },
  };
}

/**
 * SDK v2 through createMcpHandler: `legacy: 'reject'` is a modern-only endpoint (2025-era requests get
 * 400 -32022 naming ['2026-07-28']); `'stateless'` (the SDK default) also serves 2025-era traffic,
 * statelessly, with SSE answers and no Mcp-Session-Id.
 */
export function sdkV2(opts: { legacy: 'reject' | 'stateless'; pager?: Pager; canary?: CanaryAnswer } & Identity): SdkEndpoint {
  const factory = () => (opts.pager ? lowLevelV2(opts.pager, opts.canary ?? 'jsonrpc-error', opts) : mcpServerV2());
  const handler = createMcpHandler(factory, { legacy: opts.legacy });
  const node = toNodeHandler(handler);
  return {
    serve: (req, res, body) => node(req, res, parseJson(body)),
    close: () => handler.close(),
  };
}

function mcpServerV2(): McpServerV2 {
  const server = new McpServerV2(SDK_V2_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.registerTool(ECHO.name, { description: ECHO.description, inputSchema: fromJsonSchema<{ text: string }>(ECHO.schema) }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
}

/**
 * SDK v2 low-level `Server`: tools/list pages from `pager`. Served as given on the legacy leg; on the
 * modern (2026-07-28) leg SDK v2 2.4 strips `execution` from every tool (deleted vocabulary in that
 * revision: `enforceDeletedFields`) and adds resultType/ttlMs/cacheScope/_meta to the result.
 */
export function lowLevelV2(pager: Pager, canary: CanaryAnswer, id: Identity = {}): ServerV2 {
  const instructions = id.instructions === undefined ? INSTRUCTIONS : (id.instructions ?? undefined);
  const server = new ServerV2(id.info ?? SDK_V2_INFO, { capabilities: { tools: {} }, instructions });
  server.setRequestHandler('tools/list', async (request) => {
    const page = pager(request.params?.cursor);
    if (!page) throw new ProtocolError(-32602, 'Invalid cursor');
    return page as never;
  });
  server.setRequestHandler('tools/call', async (request) => {
    const message = `Unknown tool: ${request.params.name}`;
    if (canary === 'is-error') return { content: [{ type: 'text', text: message }], isError: true };
    throw new ProtocolError(-32602, message);
  });
  return server;
}

/**
 * The deprecated HTTP+SSE transport (2024-11-05) with the SDK v1's own SSEServerTransport: a GET on a
 * stream path opens the stream and sends `event: endpoint` with `<messagesPath>?sessionId=…` (a
 * relative URL); POSTs to messagesPath carry the client's messages. Anything else (a POST on the
 * stream path included) is express's default 404 page, as an express-based SSE server answers.
 * Streams are bounded (the oldest is closed beyond MAX_SESSIONS).
 */
export function httpSse(opts: { isStream: (path: string) => boolean; messagesPath: string; server: () => McpServerV1 | ServerV1 }): SdkEndpoint {
  const transports = new Map<string, SSEServerTransport>();
  return {
    async serve(req, res, body) {
      const url = new URL(req.url ?? '/', 'http://sse.invalid');
      if (opts.isStream(url.pathname) && req.method === 'GET') {
        const transport = new SSEServerTransport(opts.messagesPath, res);
        transports.set(transport.sessionId, transport);
        for (const [old, t] of transports) {
          if (transports.size <= MAX_SESSIONS) break;
          transports.delete(old);
          void t.close().catch(() => {});
        }
        res.on('close', () => transports.delete(transport.sessionId));
        await opts.server().connect(transport);
        return;
      }
      const transport = url.pathname === opts.messagesPath && req.method === 'POST' ? transports.get(url.searchParams.get('sessionId') ?? '') : undefined;
      if (transport) return transport.handlePostMessage(req, res, parseJson(body));
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot ${req.method} ${url.pathname}</pre>\n</body>\n</html>\n`);
    },
    async close() {
      for (const t of transports.values()) await t.close().catch(() => {});
      transports.clear();
    },
  };
}

/** The zoo's HTTP+SSE server: McpServer with one echo tool. */
export function echoServerV1(): McpServerV1 {
  const server = new McpServerV1(SDK_V1_INFO, { instructions: INSTRUCTIONS });
  server.registerTool('echo', { description: 'Echo the text back.' }, async () => ({ content: [{ type: 'text', text: 'echo' }] }));
  return server;
}

/**
 * A tools/list pager over a whole list: pages of `pageSize` tools (all at once when absent), opaque
 * cursors (base64 of the next offset, `=` padding and all), null for a cursor it never issued.
 */
export function pagesOf(list: () => ToolDef[], pageSize?: number | null): Pager {
  return (cursor) => {
    const tools = list();
    if (!pageSize || pageSize <= 0) return cursor === undefined ? { tools } : null;
    let at = 0;
    if (cursor !== undefined) {
      const m = /^offset=(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
      if (!m || Buffer.from(m[0]).toString('base64') !== cursor) return null;
      at = Number(m[1]);
      if (at <= 0 || at >= tools.length) return null;
    }
    const page: ToolPage = { tools: tools.slice(at, at + pageSize) };
    if (at + pageSize < tools.length) page.nextCursor = cursorAt(at + pageSize);
    return page;
  };
}

/** The opaque cursor pagesOf issues for the page starting at `offset`. */
export function cursorAt(offset: number): string {
  return Buffer.from(`offset=${offset}`).toString('base64');
}

export function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}
