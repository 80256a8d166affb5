// mcp-lock.json, version 1: the remote MCP servers a product calls, each pinned to the contract the
// archive recorded for it (its tool set hash and every tool's definition hash, tool definition hash
// v1), with when and from what it was pinned. `npm run check -- lock <name…>` writes it from an
// archive's published files, `npm run check -- --lock mcp-lock.json` checks every entry, the Action
// checks it in CI and @mcp-schema/guard holds calls at run time. The zod schema is the documentation:
// its JSON Schema is published at /api/schema/mcp-lock.v1.json (src/outputs/mcp-lock-schema.ts).
//
// Pure: text in, values or one-sentence errors out. A lockfile is the product's own file, but it is
// read as input that may be wrong: every problem is a sentence naming the entry, never a crash.
import { z } from 'zod';
import { setHashOfLines } from './tool-definition-hash.ts';
import { byCodeUnits } from './tool-map.ts';

export const MCP_LOCK_VERSION = 1;
/** Where the site publishes the lockfile's JSON Schema (beside the descriptor's). */
export const MCP_LOCK_SCHEMA_PATH = '/api/schema/mcp-lock.v1.json';
/** Levels a lock may fail on, most severe first; security HIGH ranks with ERR, security WARN with WARN. */
export const LOCK_FAIL_ON = ['ERR', 'WARN', 'INFO'] as const;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits');
const instant = z.string().datetime({ offset: true });

export const McpLockTool = z
  .object({
    name: z.string().describe('The tool name exactly as served (server text).'),
    definition_sha256: sha256.describe('Tool definition hash v1: SHA-256 of the RFC 8785 form of the definition as served.'),
  })
  .strict();

export const McpLockServer = z
  .object({
    name: z.string().min(1).describe('The registry name (server.name).'),
    endpoint: z.string().nullable().describe('The streamable-http endpoint the archive probes for it (the only one a check contacts).'),
    set_sha256: sha256.describe('Tool definition hash v1 set hash of the pinned listing: the SHA-256 of the sorted `name:hash` lines of `tools`.'),
    tools: z.array(McpLockTool).describe('Every pinned tool with its definition hash, sorted by name.'),
    pinned: z
      .object({
        at: instant.describe('When the entry was written.'),
        from: z.literal('archive').describe("Pinned from the archive's record (its latest successful answer), never from one live answer."),
        archive: z.string().describe('The archive it was read from (a base URL or a folder).'),
        descriptor_url: z.string().nullable().describe("The server's descriptor there."),
        set_url: z.string().nullable().describe('The set file: every server that served this set, first and last seen.'),
        observed_at: instant.nullable().describe('When the archive observed the pinned answer.'),
        first_seen: instant.nullable().describe('The first time the archive saw this server serve this set.'),
        last_seen: instant.nullable().describe('The last time it did.'),
        stable_days: z.number().int().nonnegative().nullable().describe('Whole days from first_seen to last_seen: how long the archive saw this contract unchanged.'),
      })
      .strict(),
    fail_on: z.enum(LOCK_FAIL_ON).optional().describe("This server's fail-on level (else the lock's, else ERR)."),
  })
  .strict();

export const McpLock = z
  .object({
    $schema: z.string().optional().describe('The JSON Schema of this format.'),
    lock_version: z.literal(MCP_LOCK_VERSION).describe('Format version; a change that removes or renames a field gets a new number.'),
    archive: z.string().optional().describe('The archive to check against when none is named (a base URL).'),
    fail_on: z.enum(LOCK_FAIL_ON).optional().describe('The default fail-on level for every server (ERR when absent).'),
    servers: z.array(McpLockServer).describe('The pinned servers, sorted by name, one entry per name.'),
  })
  .strict()
  .describe('mcp-lock.json: the remote MCP servers a product calls, each pinned to its archived contract.');

export type McpLock = z.infer<typeof McpLock>;
export type McpLockServer = z.infer<typeof McpLockServer>;
export type LockFailOn = (typeof LOCK_FAIL_ON)[number];

export class McpLockError extends Error {
  override readonly name = 'McpLockError';
}

/** An empty lock. */
export function emptyLock(schemaUrl?: string): McpLock {
  return { ...(schemaUrl ? { $schema: schemaUrl } : {}), lock_version: MCP_LOCK_VERSION, servers: [] };
}

/**
 * A lockfile's text read back: valid JSON, the version-1 shape, one entry per name, and each entry's
 * set hash equal to the set hash of its own lines (a hand-edited hash is caught here, not at run time).
 */
export function readLock(text: string): McpLock {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new McpLockError(`The lockfile is not JSON (${(e as Error).message}).`);
  }
  if (typeof value === 'object' && value !== null && 'lock_version' in value && (value as { lock_version: unknown }).lock_version !== MCP_LOCK_VERSION) {
    throw new McpLockError(`The lockfile's lock_version is ${JSON.stringify((value as { lock_version: unknown }).lock_version)}; this reader knows version ${MCP_LOCK_VERSION}.`);
  }
  const parsed = McpLock.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new McpLockError(`The lockfile does not have the mcp-lock v1 shape: ${issue.path.length ? issue.path.join('.') : 'the file'}: ${issue.message}.`);
  }
  const seen = new Set<string>();
  for (const [i, s] of parsed.data.servers.entries()) {
    if (seen.has(s.name)) throw new McpLockError(`The lockfile names ${JSON.stringify(s.name.slice(0, 200))} twice (servers.${i}): one entry per server.`);
    seen.add(s.name);
    const problem = lockEntryProblem(s);
    if (problem) throw new McpLockError(`servers.${i}: ${problem}`);
  }
  return parsed.data;
}

/** Why an entry contradicts itself (its set hash is not that of its tool lines), or null. */
export function lockEntryProblem(s: Pick<McpLockServer, 'set_sha256' | 'tools'>): string | null {
  const computed = setHashOfLines(s.tools.map((t) => ({ name: t.name, hash: t.definition_sha256 })));
  return computed === s.set_sha256 ? null : `its set_sha256 is not the set hash of its tools (they hash to ${computed}): the entry was edited by hand; pin it again.`;
}

/** The lock with these entries written in: an entry of the same name is replaced (keeping its own fail_on unless the new one has one), the rest kept; sorted by name. */
export function lockWith(lock: McpLock, entries: readonly McpLockServer[]): McpLock {
  const byName = new Map(lock.servers.map((s) => [s.name, s]));
  for (const e of entries) {
    const old = byName.get(e.name);
    byName.set(e.name, e.fail_on === undefined && old?.fail_on !== undefined ? { ...e, fail_on: old.fail_on } : e);
  }
  return { ...lock, servers: [...byName.values()].sort((a, b) => byCodeUnits(a.name, b.name)) };
}

/** A lock as its file: two-space JSON and a final newline (stable, so a re-pin is a small diff). */
export function lockText(lock: McpLock): string {
  return `${JSON.stringify(lock, null, 2)}\n`;
}

/** Whole days from one instant to a later one (null when either is missing or they are out of order). */
export function stableDays(first: string | null, last: string | null): number | null {
  if (first === null || last === null) return null;
  const d = Date.parse(last) - Date.parse(first);
  return Number.isFinite(d) && d >= 0 ? Math.floor(d / 86_400_000) : null;
}

/** A set file's `name:hash` line read back (the hash is the last 64 hex digits: a tool name may hold a colon). */
export function parseSetLine(line: string): { name: string; hash: string } | null {
  const m = /^([\s\S]*):([0-9a-f]{64})$/.exec(line);
  return m ? { name: m[1]!, hash: m[2]! } : null;
}

/** The fail-on level of one entry: its own, else the lock's, else the caller's default. */
export function lockFailOn(lock: Pick<McpLock, 'fail_on'>, s: Pick<McpLockServer, 'fail_on'>, fallback: LockFailOn = 'ERR'): LockFailOn {
  return s.fail_on ?? lock.fail_on ?? fallback;
}
