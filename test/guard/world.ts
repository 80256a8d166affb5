// The guard's world, on loopback: real SDK McpServers (registerTool with zod inputs, stateful
// streamable HTTP sessions, so a connected client gets notifications/tools/list_changed), an archive of
// them made by the real collector and published by the site's own writers (the check world's way), then
// `goLive()`: each server moves on — or not — as a product's dependency would.
//   stable    keeps its contract
//   compat    gains an optional input on lookup (INFO)
//   breaks    lookup requires a new input (ERR), define stays, a tool `extra` appears
//   desc      only lookup's description changes
//   already   changed before the archive saw it (the archive records the list it serves live)
//   moving    changes while a client is connected: lookup requires a new input, with list_changed
//   hostile   a tool whose name hides characters, whose description carries an injection, breaks
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { runCollector } from '../../collector/run.ts';
import { loadArchive } from '../../src/loader/load-archive.ts';
import { copyLinkedObjects } from '../../src/outputs/linked-objects.ts';
import type { Publication } from '../../src/outputs/publication.ts';
import { writeServerFiles } from '../../src/outputs/server-files.ts';
import { startRegistry } from '../../sandbox/registry-server.ts';
import { TEST_REGISTRY_SCHEMAS } from '../helpers/publication.ts';
import { entry, HOSTILE_TOOL, INJECTION, serveFolder } from '../check/world.ts';

export const GUARD_NAMES = {
  stable: 'io.github.example/stable',
  compat: 'io.github.example/compat',
  breaks: 'io.github.example/breaks',
  desc: 'io.github.example/desc',
  already: 'io.github.example/already',
  moving: 'io.github.example/moving',
  hostile: 'io.github.example/hostile-guard',
} as const;
export type GuardKey = keyof typeof GUARD_NAMES;
export { HOSTILE_TOOL, INJECTION };

type Phase = 'archived' | 'live';
const text = (s: string) => ({ content: [{ type: 'text' as const, text: s }] });

/** The tools a server of `key` registers in `phase`; returns the lookup tool to change later. */
function register(server: McpServer, key: GuardKey, phase: Phase): Record<string, RegisteredTool> {
  const live = phase === 'live';
  const tools: Record<string, RegisteredTool> = {};
  const word = { word: z.string().describe('The word.') };
  if (key === 'hostile') {
    tools[HOSTILE_TOOL] = server.registerTool(HOSTILE_TOOL, { description: `Reads a file. ${INJECTION}`, inputSchema: live ? { file: z.string() } : { file: z.string().optional() } }, async () => text('read'));
    return tools;
  }
  const lookupInput =
    (key === 'compat' && live) ? { ...word, lang: z.string().optional() }
    : (key === 'breaks' && live) || key === 'already' ? { ...word, dictionary: z.string() }
    : word;
  const description = key === 'desc' && live ? 'Looks a word up in the default dictionary.' : 'Looks a word up.';
  tools.lookup = server.registerTool('lookup', { description, inputSchema: lookupInput, annotations: { readOnlyHint: true } }, async () => text("looked up"));
  tools.define = server.registerTool('define', { description: 'Defines a word.', inputSchema: word }, async () => text("defined"));
  if (key === 'breaks' && live) tools.extra = server.registerTool('extra', { description: 'A tool the lock does not pin.', inputSchema: {} }, async () => text('extra'));
  return tools;
}

export interface GuardWorld {
  siteUrl: string;
  endpoints: Record<GuardKey, string>;
  goLive(): void;
  /** Resolves when a session of `key` has opened its GET stream (where list_changed goes). */
  streamOpen(key: GuardKey): Promise<void>;
  /** `moving` changes for every open session: lookup requires a new input, list_changed sent. */
  move(): void;
  close(): Promise<void>;
}

export async function startGuardWorld(dirs: { archive: string; site: string }): Promise<GuardWorld> {
  let phase: Phase = 'archived';
  let moved = false;
  const sessions = new Map<string, { key: GuardKey; transport: StreamableHTTPServerTransport; tools: Record<string, RegisteredTool> }>();
  const waiting = new Map<GuardKey, (() => void)[]>();
  const streams = new Set<GuardKey>();
  const keyOf = (url: string): GuardKey | null => {
    const m = /^\/(\w+)\/mcp$/.exec(new URL(url, 'http://x').pathname);
    return m && m[1]! in GUARD_NAMES ? (m[1] as GuardKey) : null;
  };
  const http: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const key = keyOf(req.url ?? '/');
      if (key === null) return void res.writeHead(404).end();
      const sid = req.headers['mcp-session-id'];
      const s = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (s) {
        if (req.method === 'GET') {
          streams.add(key);
          for (const f of waiting.get(key) ?? []) f();
          waiting.delete(key);
        }
        return s.transport.handleRequest(req, res);
      }
      if (req.method !== 'POST') return void res.writeHead(400).end();
      const server = new McpServer({ name: `guard-${key}`, version: '1.0.0' });
      const tools = register(server, key, key === 'moving' ? (moved ? 'live' : 'archived') : phase);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, { key, transport, tools }),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      await transport.handleRequest(req, res);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const endpoints = Object.fromEntries(Object.keys(GUARD_NAMES).map((k) => [k, `${origin}/${k}/mcp`])) as Record<GuardKey, string>;

  const registry = await startRegistry({ entries: () => (Object.keys(GUARD_NAMES) as GuardKey[]).map((k) => entry(GUARD_NAMES[k], endpoints[k], `The ${k} server.`)) });
  await runCollector({ registry: registry.url, data: dirs.archive, now: new Date('2026-11-01T03:15:00Z'), allowPrivate: true, concurrency: 4, timeoutMs: 3000, methodology: 'v1', optout: null, scheduleLimits: { retryAfterCapMs: 200, backoffBaseMs: 20 }, signer: null });
  await registry.close();
  for (const s of sessions.values()) await s.transport.close();

  const files = await serveFolder(dirs.site);
  const pub: Publication = { permalink: (p) => `${files.url}/${p.replace(/^\/+/, '')}`, releaseDir: null, releaseUrl: `${files.url}/data/release/`, simulated: false, objectsUrl: null };
  const a = await loadArchive(dirs.archive);
  await writeServerFiles(a, dirs.site, pub, TEST_REGISTRY_SCHEMAS);
  await copyLinkedObjects(a, dirs.site, null);

  return {
    siteUrl: files.url,
    endpoints,
    goLive() {
      phase = 'live';
    },
    streamOpen(key) {
      if (streams.has(key)) return Promise.resolve();
      return new Promise((resolve) => waiting.set(key, [...(waiting.get(key) ?? []), resolve]));
    },
    move() {
      moved = true;
      for (const s of sessions.values()) {
        if (s.key === 'moving') s.tools.lookup!.update({ paramsSchema: { word: z.string().describe('The word.'), dictionary: z.string() } });
      }
    },
    async close() {
      for (const s of sessions.values()) await s.transport.close().catch(() => {});
      await files.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
