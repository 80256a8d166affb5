// @mcp-schema/guard: hold a call to a remote MCP tool whose contract changed since the product pinned it.
//
// guard(client, { lock }) wraps a connected official-SDK `Client`: on connect and on every
// notifications/tools/list_changed it reads the live tool list (every page, as served: no field
// dropped), hashes every definition (tool definition hash v1), compares the list with the lock entry's
// pinned contract — or, when the lock has no entry for the server, with the archive's latest record —
// through the archive's own classification (src/lib classifyChange: every rule, ids and levels), and
// from then on `client.callTool` of a tool with a finding at or above fail-on throws a
// ContractDriftError carrying the findings (mode 'hold'), or calls through and reports it (mode
// 'warn'). A tool the lock does not know is held unless allowUnknown. Every hash, rule and set-hash
// recipe is the archive's (bundled from src/lib by esbuild: one implementation).
//
// The pinned definitions are read from the archive (its set file and the raw answer it links, whose set
// hash must equal the pin). Without the archive the guard compares definition hashes only: a tool
// whose hash moved is held as unclassified (it cannot tell a description edit from a new required input).
//
// Tool names, descriptions and finding messages are the server's text: error messages quote them with
// hidden characters escaped, and the findings are data on the error, never part of our sentence.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { answerTextFromBody } from '../../../src/lib/answer-body.ts';
import { clip } from '../../../src/lib/clip.ts';
import { showHidden } from '../../../src/lib/hidden-characters.ts';
import { lockFailOn, readLock, type LockFailOn, type McpLock, type McpLockServer } from '../../../src/lib/mcp-lock.ts';
import { classifyChange } from '../../../src/lib/rules/registry.ts';
import { servedToolHashes } from '../../../src/lib/served-tool-hashes.ts';
import { slugFor } from '../../../src/lib/slug.ts';
import { parseToolsList, type Tool } from '../../../src/lib/tool.ts';
import { setHashOfLines, toolDefinitionHash } from '../../../src/lib/tool-definition-hash.ts';

export const DEFAULT_ARCHIVE = 'https://mcp-schema.example.org';
const RANK: Record<string, number> = { ERR: 3, HIGH: 3, WARN: 2, INFO: 1 };
const FILE_CAP = 16 * 1024 * 1024;

export interface GuardOptions {
  /** The lock: its object, its JSON text, or the path of mcp-lock.json. */
  lock: McpLock | string;
  /** The server's registry name in the lock (default: the lock's only entry). */
  server?: string;
  /** The published archive (a base URL or a folder; default the lock's `archive`, else the public site). */
  archive?: string;
  /** 'hold' (default) throws ContractDriftError; 'warn' calls through and reports. */
  mode?: 'hold' | 'warn';
  /** Let calls to tools the lock does not know through (default false: held). */
  allowUnknown?: boolean;
  /** Hold at or above this level (default: the entry's fail_on, the lock's, else ERR; security HIGH ranks with ERR). */
  failOn?: LockFailOn;
  /** Told of every check, and (mode 'warn') of every call to a drifted tool. */
  onDrift?: (event: DriftEvent) => void;
}

export interface GuardFinding {
  rule: string;
  axis: string;
  level: string;
  tool: string;
  path: string;
  message: string;
}

export interface HeldTool {
  tool: string;
  reason: 'changed' | 'unknown' | 'unclassified';
  findings: GuardFinding[];
}

export interface DriftReport {
  server: string;
  /** What the live list was compared with: the lock's pin, or (no entry) the archive's latest record. */
  baseline: 'lock' | 'archive';
  fail_on: LockFailOn;
  live_set_sha256: string;
  baseline_set_sha256: string | null;
  archive_set_sha256: string | null;
  /**
   * no-change: the live list is the baseline; same-change: the archive's latest record is the live list
   * (the server changed for everyone); different-list: the archive records another list (this caller
   * sees a different one); unknown: the archive could not be read.
   */
  archive_saw: 'no-change' | 'same-change' | 'different-list' | 'unknown';
  findings: GuardFinding[];
  held: HeldTool[];
  notes: string[];
}

export type DriftEvent = { kind: 'checked'; report: DriftReport } | { kind: 'called-through'; error: ContractDriftError };

export class ContractDriftError extends Error {
  override readonly name = 'ContractDriftError';
  constructor(
    readonly tool: string,
    readonly reason: HeldTool['reason'],
    readonly findings: GuardFinding[],
    readonly report: DriftReport,
  ) {
    super(
      `${reason === 'unknown' ? 'Held a call to a tool the lock does not pin' : reason === 'unclassified' ? "Held a call to a tool whose definition hash moved since it was pinned (the archive's pinned definitions could not be read, so the change is unclassified)" : `Held a call to a tool whose contract changed since it was pinned (${findings.length} finding${findings.length === 1 ? '' : 's'} at or above ${report.fail_on})`}: ${quoted(tool, 80)} on ${quoted(report.server, 120)}; ${report.archive_saw === 'same-change' ? 'the archive saw the same change (the server changed for everyone)' : report.archive_saw === 'different-list' ? 'the archive records another list (this caller sees a different one)' : report.archive_saw === 'unknown' ? 'the archive could not be read' : 'the archive records the pinned list'}. The findings are on error.findings (server text in them is data).`,
    );
  }
}

/** Server text in our sentence: cut, in double quotes (inner quotes and backslashes escaped), hidden characters and line breaks shown as escapes. */
function quoted(text: string, max: number): string {
  return `"${showHidden(clip(text, max).replace(/[\\"]/g, (c) => `\\${c}`)).replace(/[\t\n\r\u2028\u2029]/g, (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`)}"`;
}

export interface GuardedClient {
  readonly client: Client;
  /** The latest comparison (after connect, and after each tools/list_changed). */
  report(): DriftReport;
  /** Compare again now (as a tools/list_changed does). */
  refresh(): Promise<DriftReport>;
  /** Put callTool and the notification handler back. */
  unguard(): void;
}

const RawList = z.looseObject({ tools: z.array(z.looseObject({ name: z.string() })), nextCursor: z.string().optional() });

/** Wrap a connected Client; resolves after the first comparison. Throws for a lock it cannot use. */
export async function guard(client: Client, o: GuardOptions): Promise<GuardedClient> {
  const lock = await lockOf(o.lock);
  const name = o.server ?? (lock.servers.length === 1 ? lock.servers[0]!.name : null);
  if (name === null) throw new Error(`Name the server: the lock pins ${lock.servers.length} servers (guard(client, { lock, server: '<registry name>' })).`);
  const entry = lock.servers.find((s) => s.name === name) ?? null;
  const failOn = o.failOn ?? (entry ? lockFailOn(lock, entry) : (lock.fail_on ?? 'ERR'));
  const archive = new Archive(o.archive ?? lock.archive ?? DEFAULT_ARCHIVE);
  const mode = o.mode ?? 'hold';
  let last: DriftReport | null = null;
  let current: Promise<DriftReport> = compare();
  await current;

  async function compare(): Promise<DriftReport> {
    const live = await liveTools(client);
    const r = await classify(name!, entry, live, archive, failOn, o.allowUnknown ?? false);
    last = r; // before onDrift: a listener reading report() sees this comparison
    o.onDrift?.({ kind: 'checked', report: r });
    return r;
  }
  function refresh(): Promise<DriftReport> {
    const next = compare();
    // A comparison that fails (the server or the archive did not answer) leaves the last one in force.
    current = next.catch(() => last!);
    return next;
  }

  const original = client.callTool.bind(client);
  const guarded: typeof client.callTool = async (params, ...rest) => {
    const r = await current;
    const held = r.held.find((h) => h.tool === params.name);
    if (held) {
      const error = new ContractDriftError(held.tool, held.reason, held.findings, r);
      if (mode === 'hold') throw error;
      o.onDrift?.({ kind: 'called-through', error });
    }
    return original(params, ...rest);
  };
  client.callTool = guarded;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    void refresh().catch(() => {});
  });
  return {
    client,
    report: () => last!,
    refresh,
    unguard() {
      client.callTool = original;
      client.removeNotificationHandler('notifications/tools/list_changed');
    },
  };
}

async function lockOf(lock: McpLock | string): Promise<McpLock> {
  if (typeof lock !== 'string') return readLock(JSON.stringify(lock));
  return readLock(lock.trimStart().startsWith('{') ? lock : await readFile(lock, 'utf8'));
}

/** Every page of the live list, each tool exactly as the SDK parsed it from the wire (no field dropped). */
async function liveTools(client: Client): Promise<Record<string, unknown>[]> {
  const tools: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, RawList);
    tools.push(...(r.tools as Record<string, unknown>[]));
    cursor = r.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

async function classify(name: string, entry: McpLockServer | null, liveRaw: Record<string, unknown>[], archive: Archive, failOn: LockFailOn, allowUnknown: boolean): Promise<DriftReport> {
  const lines = liveRaw.map((t) => ({ name: String(t.name), hash: toolDefinitionHash(JSON.stringify(t)) }));
  const live = parseToolsList({ result: { tools: liveRaw } });
  const notes: string[] = [];
  const latest = await archive.latest(name).catch((e: Error) => {
    notes.push(`the archive's latest record could not be read: ${e.message}`);
    return null;
  });
  let before: Tool[] | null = null;
  let baselineSet: string | null = null;
  let pinned: Map<string, string> | null = null;
  if (entry) {
    baselineSet = entry.set_sha256;
    pinned = new Map(entry.tools.map((t) => [t.name, t.definition_sha256]));
    before = await archive.pinnedTools(entry.set_sha256).catch((e: Error) => {
      notes.push(`the pinned definitions could not be read from the archive (${e.message}): definition hashes are compared, unclassified`);
      return null;
    });
  } else if (latest) {
    baselineSet = latest.setHash;
    before = latest.tools;
    pinned = new Map(latest.lines.map((l) => [l.name, l.hash]));
    notes.push('the lock has no entry for this server: compared with the archive\'s latest record');
  } else notes.push('the lock has no entry for this server and the archive could not be read: every tool is unknown');
  const liveSet = setHashOfLines(lines);
  const findings: GuardFinding[] = before
    ? (() => {
        const c = classifyChange(before, live);
        return [...c.compatibility, ...c.security].map((f) => ({ rule: f.rule, axis: f.axis, level: f.level, tool: f.tool, path: f.path, message: f.message }));
      })()
    : [];
  const held: HeldTool[] = [];
  for (const l of lines) {
    const pin = pinned?.get(l.name);
    if (pin === undefined) {
      if (!allowUnknown) held.push({ tool: l.name, reason: 'unknown', findings: findings.filter((f) => f.tool === l.name) });
      continue;
    }
    if (pin === l.hash) continue;
    if (before === null) {
      held.push({ tool: l.name, reason: 'unclassified', findings: [] });
      continue;
    }
    const mine = findings.filter((f) => f.tool === l.name && (RANK[f.level] ?? 0) >= RANK[failOn]!);
    if (mine.length > 0) held.push({ tool: l.name, reason: 'changed', findings: mine });
  }
  const archiveSet = latest?.setHash ?? null;
  return {
    server: name,
    baseline: entry ? 'lock' : 'archive',
    fail_on: failOn,
    live_set_sha256: liveSet,
    baseline_set_sha256: baselineSet,
    archive_set_sha256: archiveSet,
    archive_saw: liveSet === baselineSet ? 'no-change' : latest === null ? 'unknown' : archiveSet === liveSet ? 'same-change' : 'different-list',
    findings,
    held,
    notes,
  };
}

/** The few published files the guard reads: a base URL (fetch) or a built site's folder. */
class Archive {
  constructor(private readonly base: string) {}

  private async text(where: string): Promise<string | null> {
    if (/^https?:\/\//i.test(where)) {
      const res = await fetch(where, { headers: { accept: 'application/json, */*' }, signal: AbortSignal.timeout(20_000) });
      if (res.status === 404 || res.status === 410) return null;
      if (!res.ok) throw new Error(`HTTP ${res.status} for ${where}`);
      const buf = Buffer.from(await res.arrayBuffer());
      if (buf.length > FILE_CAP) throw new Error(`${where} is over ${FILE_CAP} bytes`);
      return buf.toString('utf8');
    }
    try {
      return await readFile(where, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  private where(sitePath: string): string {
    const rel = sitePath.replace(/^\/+/, '');
    return /^https?:\/\//i.test(this.base) ? new URL(rel.split('/').map(encodeURIComponent).join('/'), this.base.replace(/\/*$/, '/')).href : path.join(this.base, ...rel.split('/'));
  }

  private async json(sitePath: string): Promise<Record<string, unknown> | null> {
    const t = await this.text(this.where(sitePath));
    if (t === null) return null;
    const v = JSON.parse(t) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  }

  /** The server's latest archived answer: its tools, set hash and lines (/api/tools/<slug>.json). */
  async latest(name: string): Promise<{ tools: Tool[]; setHash: string | null; lines: { name: string; hash: string }[] } | null> {
    const f = await this.json(`/api/tools/${slugFor(name)}.json`);
    if (f === null) return null;
    const entries = Array.isArray(f.tools) ? (f.tools as { tool?: unknown; definition_sha256?: unknown }[]) : [];
    const tools = parseToolsList({ result: { tools: entries.map((e) => e.tool) } });
    const lines = entries.flatMap((e) => (typeof e.definition_sha256 === 'string' && typeof (e.tool as { name?: unknown })?.name === 'string' ? [{ name: (e.tool as { name: string }).name, hash: e.definition_sha256 }] : []));
    return { tools, setHash: typeof f.set_sha256 === 'string' ? f.set_sha256 : null, lines };
  }

  /** The pinned set's tools: its raw answer from the set file, whose set hash must be the pin. */
  async pinnedTools(pin: string): Promise<Tool[]> {
    const set = await this.json(`/api/sets/${pin}.json`);
    if (set === null) throw new Error(`the archive has never seen the set ${pin}`);
    const raw = typeof set.raw_body_url === 'string' ? set.raw_body_url : null;
    const body = raw ? await this.text(raw) : null;
    if (raw === null || body === null) throw new Error('the archive does not publish the raw answer of the pinned set');
    const contentType = /\.txt(?:$|\?)/.test(raw) ? 'text/event-stream' : 'application/json';
    const served = servedToolHashes(body, contentType);
    if (served.setHash !== pin) throw new Error(`the archive's raw answer for the pinned set hashes to ${served.setHash ?? 'nothing'}, not to the pin`);
    return parseToolsList(JSON.parse(answerTextFromBody(body, contentType)) as unknown);
  }
}
