// The probe against real servers on loopback: real SDK servers (4 shapes) serving real tool lists,
// and a misbehaving server for every v1 error class. One collector run over one small world.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCollector, type CollectorSummary } from '../../collector/run.ts';
import { Store } from '../../collector/store.ts';
import { ERROR_CLASSES, Observation, toolSetHash, toolsSha256 } from '../../src/lib/index.ts';
import type { Behaviour } from '../../sandbox/mcp-host.ts';
import { realTools, startWorld, tmpData, type World } from './world.ts';

const NOW = new Date('2026-02-01T03:00:00Z');

/** Answers initialize like a v1 server, then `tools` decides the tools/list answer. */
function scripted(tools: (res: ServerResponse, id: unknown) => void): Behaviour {
  return {
    kind: 'raw',
    handler(_req: IncomingMessage, res: ServerResponse, body: Buffer) {
      const msg = body.length ? (JSON.parse(body.toString()) as { id?: unknown; method?: string }) : {};
      if (msg.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'scripted', version: '0' } } }));
      } else if (msg.method === 'tools/list') {
        tools(res, msg.id);
      } else {
        res.writeHead(202).end();
      }
    },
  };
}

interface Case {
  label: string;
  behaviour?: Behaviour;
  /** Rewrite the URL (TLS failure, refused port, redirects that need the URL). */
  url?: (local: string, ctx: { closedPort: number; tlsPort: number; urlOf: (label: string) => string }) => string;
  expect: Partial<Observation>;
  detail?: RegExp;
}

const CASES: Case[] = [
  { label: 'sdk-stateful-sse', behaviour: { kind: 'mcp', tools: realTools(0), stateful: true, json: false }, expect: { outcome: 'ok', session: true, body_content_type: 'text/event-stream' } },
  { label: 'sdk-stateless-json', behaviour: { kind: 'mcp', tools: realTools(1), stateful: false, json: true }, expect: { outcome: 'ok', session: false, body_content_type: 'application/json' } },
  { label: 'sdk-stateful-json', behaviour: { kind: 'mcp', tools: realTools(2), stateful: true, json: true }, expect: { outcome: 'ok', session: true, body_content_type: 'application/json' } },
  { label: 'sdk-stateless-sse', behaviour: { kind: 'mcp', tools: realTools(3), stateful: false, json: false }, expect: { outcome: 'ok', session: false, body_content_type: 'text/event-stream' } },
  { label: 'hang', behaviour: { kind: 'hang' }, expect: { outcome: 'error', error_class: 'timeout', step: 'initialize' } },
  { label: 'sse-stall', behaviour: { kind: 'sse-stall', everyMs: 50 }, expect: { outcome: 'error', error_class: 'timeout', step: 'initialize' } },
  { label: 'refused', url: (_, c) => `http://127.0.0.1:${c.closedPort}/mcp`, expect: { outcome: 'error', error_class: 'tls', step: 'initialize' }, detail: /ECONNREFUSED/ },
  { label: 'tls-handshake', behaviour: { kind: 'mcp', tools: realTools(4) }, url: (local) => local.replace('http://', 'https://'), expect: { outcome: 'error', error_class: 'tls' }, detail: /tls handshake failed/ },
  { label: 'self-signed', url: (_, c) => `https://127.0.0.1:${c.tlsPort}/mcp`, expect: { outcome: 'error', error_class: 'tls', step: 'initialize' }, detail: /DEPTH_ZERO_SELF_SIGNED_CERT/ },
  { label: '404', behaviour: { kind: 'status', status: 404, body: 'not here' }, expect: { outcome: 'error', error_class: 'http_4xx', http_status: 404, step: 'initialize' } },
  { label: '500', behaviour: { kind: 'status', status: 500, body: 'oops' }, expect: { outcome: 'error', error_class: 'http_5xx', http_status: 500 } },
  { label: '401', behaviour: { kind: 'status', status: 401, headers: { 'www-authenticate': 'Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"' } }, expect: { outcome: 'error', error_class: 'auth', http_status: 401, www_authenticate: 'Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"' } },
  { label: '403', behaviour: { kind: 'status', status: 403 }, expect: { outcome: 'error', error_class: 'auth', http_status: 403, www_authenticate: null } },
  { label: '429', behaviour: { kind: 'status', status: 429, headers: { 'retry-after': '120' } }, expect: { outcome: 'error', error_class: 'rate_limited', http_status: 429, retry_after: '120' } },
  { label: 'html', behaviour: { kind: 'status', status: 200, headers: { 'content-type': 'text/html' }, body: '<!doctype html><title>Login</title>' }, expect: { outcome: 'error', error_class: 'parse', step: 'initialize', http_status: 200 } },
  { label: 'broken-json', behaviour: { kind: 'status', status: 200, headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"result":{' }, expect: { outcome: 'error', error_class: 'parse' } },
  { label: 'json-not-jsonrpc', behaviour: { kind: 'status', status: 200, headers: { 'content-type': 'application/json' }, body: '{"status":"ok","service":"mcp"}' }, expect: { outcome: 'error', error_class: 'parse' }, detail: /not the json-rpc answer/ },
  { label: 'modern-only', behaviour: { kind: 'modern-only' }, expect: { outcome: 'error', error_class: 'http_4xx', http_status: 400, jsonrpc_code: -32022, step: 'initialize' }, detail: /modern-only/ },
  { label: 'session-lost', behaviour: { kind: 'session-lost' }, expect: { outcome: 'error', error_class: 'http_4xx', http_status: 404, jsonrpc_code: -32001, step: 'tools/list', session: true }, detail: /^session lost/ },
  {
    label: 'over-cap',
    behaviour: scripted((res, id) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const pad = 'x'.repeat(1024 * 1024);
      res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"tools":[{"name":"a","description":"`);
      let i = 0;
      const more = () => {
        while (i++ < 9) if (!res.write(pad)) return res.once('drain', more);
        res.end('"}]}}');
      };
      more();
    }),
    expect: { outcome: 'error', error_class: 'parse', step: 'tools/list' },
    detail: /over 8 MiB cap/,
  },
  {
    label: 'tools-list-rpc-error',
    behaviour: scripted((res, id) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }));
    }),
    expect: { outcome: 'error', error_class: 'http_4xx', jsonrpc_code: -32601, step: 'tools/list', protocol_version: '2025-06-18' },
  },
  {
    label: 'next-cursor',
    behaviour: scripted((res, id) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { tools: realTools(5), nextCursor: 'page2' } }));
    }),
    expect: { outcome: 'ok', next_cursor: true, protocol_version: '2025-06-18' },
  },
  {
    label: 'sse-priming-and-notification-first',
    behaviour: scripted((res, id) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: 0\ndata:\n\n: keepalive\n\n');
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } })}\n\n`);
      res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: { tools: realTools(7) } })}\n\n`);
    }),
    expect: { outcome: 'ok', detail: null, body_content_type: 'text/event-stream' },
  },
  {
    label: 'sse-left-open',
    behaviour: scripted((res, id) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: { tools: realTools(8) } })}\n\n`);
      const t = setInterval(() => res.write(': keepalive\n\n'), 50);
      res.on('close', () => clearInterval(t));
    }),
    expect: { outcome: 'ok' },
    detail: /left open after the answer/,
  },
  {
    label: 'repeated-member',
    behaviour: { kind: 'mcp', tools: realTools(9), json: true, repeat: { tool: realTools(9)[0]!.name, member: 'description', first: 'The approved description.' } },
    expect: { outcome: 'ok', tools_set_hash: null },
  },
  { label: 'redirect-307', url: (_, c) => c.urlOf('redirect-307-target'), behaviour: { kind: 'mcp', tools: realTools(6), stateful: true }, expect: { outcome: 'ok', redirects: 1 } },
  { label: 'redirect-307-target', behaviour: { kind: 'mcp', tools: realTools(6), stateful: true }, expect: { outcome: 'ok', redirects: 0, final_url: null } },
  { label: 'redirect-302', behaviour: { kind: 'redirect', location: '/elsewhere', status: 302 }, expect: { outcome: 'error', error_class: 'http_4xx', http_status: 302 }, detail: /redirect not followed/ },
  { label: 'redirect-loop', behaviour: { kind: 'redirect', location: '/loop', status: 308 }, expect: { outcome: 'error', error_class: 'http_4xx', http_status: 308, redirects: 3 }, detail: /more than 3 redirects/ },
];

let world: World;
let tls: HttpsServer;
let data: string;
let summary: CollectorSummary;
let rows: Observation[];
const nameOf = new Map<string, string>(); // label -> registry name
const urlOfLabel = new Map<string, string>();

beforeAll(async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));

  const fixture = (f: string) => readFileSync(new URL(`./fixtures/${f}`, import.meta.url));
  tls = createHttpsServer({ key: fixture('self-signed.key'), cert: fixture('self-signed.crt') }, (_req, res) => res.end('{}'));
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
  const tlsPort = (tls.address() as AddressInfo).port;

  const byIndex = new Map<number, Case>();
  world = await startWorld({
    endpoints: CASES.length,
    hostCount: 6,
    behave: (i, name) => {
      const c = CASES[i]!;
      byIndex.set(i, c);
      nameOf.set(c.label, name);
      return c.behaviour ?? { kind: 'hang' };
    },
    urlFor: (i, local, host) => {
      const c = CASES[i]!;
      urlOfLabel.set(c.label, local);
      if (c.label === 'redirect-307') {
        // 307 to another host's real server: a cross-origin hop.
        host.mount(new URL(local).pathname, { kind: 'redirect', location: '', status: 307 });
      }
      if (c.label === 'redirect-loop') host.mount(new URL(local).pathname.replace(/mcp$/, 'loop'), { kind: 'redirect', location: new URL(local).pathname.replace(/mcp$/, 'loop'), status: 308 });
      return c.url && c.label !== 'redirect-307' ? c.url(local, { closedPort, tlsPort, urlOf: (l) => urlOfLabel.get(l)! }) : local;
    },
  });
  // The 307's location is only known once every URL exists.
  const from = new URL(urlOfLabel.get('redirect-307')!);
  const hostOf = world.hosts.find((h) => h.port === Number(from.port))!;
  hostOf.mount(from.pathname, { kind: 'redirect', location: urlOfLabel.get('redirect-307-target')!, status: 307 });
  const loopFrom = new URL(urlOfLabel.get('redirect-loop')!);
  world.hosts.find((h) => h.port === Number(loopFrom.port))!.mount(loopFrom.pathname, { kind: 'redirect', location: loopFrom.pathname.replace(/mcp$/, 'loop'), status: 308 });

  data = tmpData();
  summary = await runCollector({ registry: world.registry.url, data, allowPrivate: true, now: NOW, timeoutMs: 600, optout: null, concurrency: 8, methodology: 'v1', probeLimits: { sseGraceMs: 200 }, scheduleLimits: { retryAfterCapMs: 200, backoffBaseMs: 20 } });
  rows = readFileSync(`${data}/observations/2026-02-01.jsonl`, 'utf8').trimEnd().split('\n').map((l) => Observation.parse(JSON.parse(l)));
}, 60_000);

afterAll(async () => {
  await world?.close();
  tls?.close();
});

const rowOf = (label: string) => rows.find((r) => r.target === nameOf.get(label))!;

describe('probe(endpoint) against real loopback servers', () => {
  it.each(CASES.map((c) => [c.label, c] as const))('%s gives the expected row', (label, c) => {
    const row = rowOf(label);
    expect(row, label).toBeDefined();
    expect(row).toMatchObject(c.expect);
    if (c.detail) expect(row.detail).toMatch(c.detail);
  });

  it('produces every probe error class from a real server', () => {
    const seen = new Set(rows.map((r) => r.error_class));
    for (const c of ERROR_CLASSES) expect(seen, c).toContain(c);
  });

  it('writes exactly one valid row per target and a run row that counts them', () => {
    const names = rows.map((r) => r.target);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBe(summary.run.targets);
    expect(summary.run.attempts).toBe(CASES.length);
    expect(summary.run.eligible).toBe(CASES.length);
    expect(summary.run.outcomes.ok).toBe(CASES.filter((c) => c.expect.outcome === 'ok').length);
  });

  it('stores tools/list bodies verbatim: bytes hash to their name and carry the served tools', () => {
    const store = Store.open(data, new Date().toISOString());
    try {
      for (const label of ['sdk-stateful-sse', 'sdk-stateless-json', 'sdk-stateful-json', 'sdk-stateless-sse']) {
        const row = rowOf(label);
        const bytes = readFileSync(store.objectPath(row.body_sha256!));
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(row.body_sha256);
        const i = CASES.findIndex((c) => c.label === label);
        const served = realTools(i);
        expect(row.tools_sha256).toBe(toolsSha256(served));
        expect(row.tool_count).toBe(served.length);
        const text = bytes.toString('utf8');
        const json = row.body_content_type === 'text/event-stream' ? text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).find((d) => d.includes('"tools"'))! : text;
        expect((JSON.parse(json) as { result: { tools: unknown } }).result.tools).toEqual(served);
      }
    } finally {
      store.close();
    }
  });

  it('records the interoperable set hash of the served page on ok rows, and null where the page has none', () => {
    for (const label of ['sdk-stateful-sse', 'sdk-stateless-json', 'sdk-stateful-json', 'sdk-stateless-sse']) {
      const served = realTools(CASES.findIndex((c) => c.label === label));
      expect(rowOf(label).tools_set_hash, label).toBe(toolSetHash([JSON.stringify(served)]));
    }
    // A first page that offers a next one, and a body repeating a member name: no set hash.
    expect([rowOf('next-cursor').tools_set_hash, rowOf('repeated-member').tools_set_hash]).toEqual([null, null]);
    // Every row writes the field, null where there is none (one shape for JSON Lines, CSV and Parquet).
    for (const r of rows) expect(Object.keys(r), r.target).toContain('tools_set_hash');
    for (const r of rows) if (r.outcome !== 'ok') expect(r.tools_set_hash, r.target).toBeNull();
  });

  it('uses the same raw body for identical servers (constant JSON-RPC ids)', () => {
    const a = rowOf('redirect-307');
    const b = rowOf('redirect-307-target');
    expect(a.body_sha256).toBe(b.body_sha256);
    expect(a.final_url).toBe(urlOfLabel.get('redirect-307-target'));
  });
});
