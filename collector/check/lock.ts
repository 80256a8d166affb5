// The lockfile's two commands (docs/CHECK.md, "A lockfile"):
//   pinLock   `npm run check -- lock <name…>`: write (or extend) mcp-lock.json from the archive's
//             record — each server's latest archived contract as its descriptor, tools file and set
//             file publish it — never from one live answer. No server is contacted.
//   checkLock `npm run check -- --lock mcp-lock.json`: every entry checked against its pinned set with
//             the single check (runCheck: one probe per server, the collector's probe, address policy
//             and opt-out list), one report, the worst exit code.
// The format, its reader and its set-hash rule are src/lib mcp-lock.ts; nothing is computed here twice.
import {
  byCodeUnits,
  isObject,
  lockEntryProblem,
  lockFailOn,
  parseSetLine,
  stableDays,
  type LockFailOn,
  type McpLock,
  type McpLockServer,
} from '../../src/lib/index.ts';
import { slugFor } from '../../src/lib/slug.ts';
import { ArchiveUnavailable, PublishedArchive } from './archive.ts';
import { DATA_NOTE, nameOf, runCheck, Stop, type CheckReport, type Verdict } from './check.ts';
import { serverStatus } from './status.ts';
import { quoted } from './text.ts';
import type { OpmlFeed } from './opml.ts';

const NS = 'org.mcp-schema';

export interface PinResult {
  /** The entries read from the archive, one per target that could be pinned. */
  entries: McpLockServer[];
  /** Targets that could not be pinned, each with one sentence. */
  failed: { target: string; reason_code: string; reason: string }[];
}

/** Read each target's latest archived contract and make its lock entry. Reads the archive only. */
export async function pinLock(o: { targets: string[]; archive: string; now?: () => Date }): Promise<PinResult> {
  const out: PinResult = { entries: [], failed: [] };
  let archive: PublishedArchive;
  try {
    archive = new PublishedArchive(o.archive);
  } catch (e) {
    return { entries: [], failed: o.targets.map((target) => ({ target, reason_code: 'archive-unavailable', reason: `Could not read the archive: ${(e as Error).message}.` })) };
  }
  const at = (o.now ?? (() => new Date()))().toISOString();
  for (const target of o.targets) {
    try {
      out.entries.push(await pinOne(archive, target, at));
    } catch (e) {
      if (e instanceof Stop) out.failed.push({ target, reason_code: e.code, reason: e.message });
      else if (e instanceof ArchiveUnavailable) out.failed.push({ target, reason_code: 'archive-unavailable', reason: `Could not read the archive: ${e.message}.` });
      else throw e;
    }
  }
  return out;
}

async function pinOne(archive: PublishedArchive, target: string, at: string): Promise<McpLockServer> {
  if (target.trim() === '') throw new Stop('bad-input', 'Name a server: a registry name (io.github.owner/server) or its endpoint URL.');
  const name = await nameOf(archive, target);
  const slug = slugFor(name);
  const descriptorPath = `/api/servers/${slug}.json`;
  const d = await archive.json(descriptorPath);
  if (d === null) throw new Stop('not-in-archive', `The archive has no server named ${quoted(name)}: it has never listed it (check the name, or the --archive).`);
  const meta = isObject(d.value) && isObject(d.value._meta) ? d.value._meta : {};
  const block = (k: string): Record<string, unknown> => (isObject(meta[`${NS}/${k}`]) ? (meta[`${NS}/${k}`] as Record<string, unknown>) : {});
  archive.learnPrefix(block('descriptor').self_url, descriptorPath);
  const probed = isObject(block('connectability').probed) ? (block('connectability').probed as Record<string, unknown>) : {};
  const f = await archive.json(`/api/tools/${slug}.json`);
  if (f === null) throw new Stop('no-contract', `The archive has no contract for ${quoted(name)}: it never answered tools/list to the collector, so there is nothing to pin.`);
  const file = isObject(f.value) ? f.value : {};
  const setHash = typeof file.set_sha256 === 'string' ? file.set_sha256 : null;
  if (setHash === null) throw new Stop('no-contract', `The archive's latest answer for ${quoted(name)} has no set hash${typeof file.set_problem === 'string' ? ` (${quoted(file.set_problem, 160)})` : ''}, so it cannot be pinned.`);
  const entries = Array.isArray(file.tools) ? file.tools : [];
  const tools = entries.map((e) => {
    const name = isObject(e) && isObject(e.tool) && typeof e.tool.name === 'string' ? e.tool.name : null;
    const hash = isObject(e) && typeof e.definition_sha256 === 'string' ? e.definition_sha256 : null;
    return name !== null && hash !== null ? { name, definition_sha256: hash } : null;
  });
  if (tools.some((t) => t === null)) throw new Stop('no-contract', `The archive's latest answer for ${quoted(name)} has a tool without a name or a definition hash, so it cannot be pinned tool by tool.`);
  const lines = (tools as { name: string; definition_sha256: string }[]).sort((a, b) => byCodeUnits(a.name, b.name) || byCodeUnits(a.definition_sha256, b.definition_sha256));
  // The archive's own files must agree: the tools' hashes make the set hash the file states.
  const problem = lockEntryProblem({ set_sha256: setHash, tools: lines });
  if (problem) throw new Stop('pin-unusable', `The archive's tools file for ${quoted(name)} is inconsistent: ${problem.replace(/: the entry was edited by hand; pin it again\.$/, '.')}`);
  // This server's first and last sighting of the set, from the set file.
  const s = await archive.json(`/api/sets/${setHash}.json`);
  const set = s && isObject(s.value) ? s.value : {};
  if (s && Array.isArray(set.lines)) {
    const published = (set.lines as unknown[]).map((l) => (typeof l === 'string' ? parseSetLine(l) : null));
    const same = published.length === lines.length && published.every((l, i) => l !== null && l.name === lines[i]!.name && l.hash === lines[i]!.definition_sha256);
    if (!same) throw new Stop('pin-unusable', `The archive's set file for ${setHash} lists other lines than ${quoted(name)}'s tools file: the archive copy is inconsistent.`);
  }
  const mine = (Array.isArray(set.servers) ? set.servers : []).find((x): x is Record<string, unknown> => isObject(x) && x.name === name) ?? null;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const first = mine ? str(mine.first_seen) : null;
  // Descriptor format 2: while the server still serves the set, the set file says so (last_seen null) and its status file has the latest ok answer.
  const status = await serverStatus(archive, slug);
  const last = mine ? (str(mine.last_seen) ?? (mine.still_serving === true ? (status.entry?.last_ok_at ?? null) : null)) : null;
  return {
    name,
    endpoint: str(probed.url),
    set_sha256: setHash,
    tools: lines,
    pinned: {
      at,
      from: 'archive',
      archive: archive.where,
      descriptor_url: d.url,
      set_url: s?.url ?? null,
      observed_at: status.entry?.tools_observed_at ?? str(file.observed_at),
      first_seen: first,
      last_seen: last,
      stable_days: stableDays(first, last),
    },
  };
}

export interface LockServerReport {
  name: string;
  fail_on: LockFailOn;
  /** The lock's own pin. */
  pinned_set_sha256: string;
  report: CheckReport;
}

export interface LockReport {
  lock_report_version: 1;
  lock: string;
  archive: string;
  /** The worst verdict (could-not-check, breaking, compatible, same: the order of the exit codes). */
  verdict: Verdict;
  exit_code: 0 | 1 | 2;
  counts: Record<Verdict, number>;
  data_note: string;
  servers: LockServerReport[];
}

const WORST: Verdict[] = ['could-not-check', 'breaking', 'compatible', 'same'];

/** Check every entry of a lock, one after the other (one probe per server), and gather one report. */
export async function checkLock(o: { lock: McpLock; lockPath: string; archive: string; allowPrivate?: boolean; timeoutMs?: number; optout?: string | null; failOn?: LockFailOn; now?: () => Date }): Promise<LockReport> {
  const servers: LockServerReport[] = [];
  for (const entry of o.lock.servers) {
    const failOn = lockFailOn(o.lock, entry, o.failOn ?? 'ERR');
    const report = await runCheck({ target: entry.name, archive: o.archive, pin: entry.set_sha256, failOn, allowPrivate: o.allowPrivate ?? false, timeoutMs: o.timeoutMs ?? 15_000, optout: o.optout ?? null, ...(o.now ? { now: o.now } : {}) });
    if (entry.endpoint !== null && report.target.endpoint !== null && report.target.endpoint !== entry.endpoint) {
      report.notes.push(`the archive now probes ${quoted(report.target.endpoint)}; the lock was pinned at ${quoted(entry.endpoint)}`);
    }
    servers.push({ name: entry.name, fail_on: failOn, pinned_set_sha256: entry.set_sha256, report });
  }
  const counts: Record<Verdict, number> = { same: 0, compatible: 0, breaking: 0, 'could-not-check': 0 };
  for (const s of servers) counts[s.report.verdict]++;
  const verdict = WORST.find((v) => counts[v] > 0) ?? 'same';
  return {
    lock_report_version: 1,
    lock: o.lockPath,
    archive: o.archive,
    verdict,
    exit_code: servers.reduce<0 | 1 | 2>((worst, s) => (s.report.exit_code > worst ? s.report.exit_code : worst), 0),
    counts,
    data_note: DATA_NOTE,
    servers,
  };
}

/**
 * The breaking-only feed of every server a lock pins, as its descriptor links it (`breaking_feed_url`,
 * mapped onto the copy being read when that copy is served at a URL): the OPML's outlines.
 */
export async function lockFeeds(o: { lock: McpLock; archive: string }): Promise<{ feeds: OpmlFeed[]; failed: { name: string; reason: string }[] }> {
  const out: { feeds: OpmlFeed[]; failed: { name: string; reason: string }[] } = { feeds: [], failed: [] };
  let archive: PublishedArchive;
  try {
    archive = new PublishedArchive(o.archive);
  } catch (e) {
    return { feeds: [], failed: o.lock.servers.map((s) => ({ name: s.name, reason: `Could not read the archive: ${(e as Error).message}.` })) };
  }
  for (const s of o.lock.servers) {
    try {
      const slug = slugFor(s.name);
      const d = await archive.json(`/api/servers/${slug}.json`);
      const meta = d && isObject(d.value) && isObject(d.value._meta) ? d.value._meta : {};
      const info = isObject(meta[`${NS}/descriptor`]) ? (meta[`${NS}/descriptor`] as Record<string, unknown>) : {};
      const history = isObject(meta[`${NS}/schema-history`]) ? (meta[`${NS}/schema-history`] as Record<string, unknown>) : {};
      archive.learnPrefix(info.self_url, `/api/servers/${slug}.json`);
      const feed = typeof history.breaking_feed_url === 'string' ? history.breaking_feed_url : null;
      if (d === null || feed === null) {
        out.failed.push({ name: s.name, reason: `No breaking-only feed for ${quoted(s.name)}: ${d === null ? 'the archive has no server of that name' : 'its descriptor links none (a build before breaking-only feeds, or no contract yet)'}.` });
        continue;
      }
      const page = typeof history.history_url === 'string' ? history.history_url : null;
      out.feeds.push({ name: s.name, xmlUrl: archive.kind === 'url' ? await archive.here(feed) : feed, htmlUrl: page });
    } catch (e) {
      if (!(e instanceof ArchiveUnavailable)) throw e;
      out.failed.push({ name: s.name, reason: `Could not read the archive: ${e.message}.` });
    }
  }
  return out;
}
