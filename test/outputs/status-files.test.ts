// Descriptor format 2 and the status files (src/lib server-status.ts, src/outputs/status-files.ts) on the
// collector's own archive: two consecutive days of the local world, each written by writeServerFiles as
// the build writes it. Every server but BREAKS_NAME answers the same on both days; BREAKS_NAME answers
// HTTP 503 on the second. What is checked:
//   - a server in the same state keeps its descriptor and tools file byte for byte (its rows moved);
//   - the server that changed has another descriptor, and its set file says it stopped serving;
//   - set files and name-index shards that name no changed server keep their bytes;
//   - the status shards carry the new day, the 30-day window and the latest instants;
//   - a descriptor validates against the published format 2 JSON Schema, a status shard against its
//     own, and the frozen format 1 schema stays published and refuses a format 2 descriptor (the near miss).
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_SCHEMA_PATH, statusPath, statusShard, StatusShard } from '../../src/lib/index.ts';
import { loadArchive } from '../../src/loader/load-archive.ts';
import type { Archive, ServerView } from '../../src/loader/views.ts';
import { DESCRIPTOR_SCHEMA_PATH, DESCRIPTOR_V1_SCHEMA_PATH } from '../../src/outputs/descriptor.ts';
import { writeServerFiles } from '../../src/outputs/server-files.ts';
import { StatusFiles } from '../../src/outputs/status-files.ts';
import { BREAKS_NAME, collectArchive } from '../helpers/archive.ts';
import { TEST_PUBLICATION as pub, TEST_REGISTRY_SCHEMAS } from '../helpers/publication.ts';

let work: string;
let before: Archive;
let after: Archive;
const out = { before: '', after: '' };
const read = (which: 'before' | 'after', p: string) => readFile(path.join(out[which], ...p.split('/').filter(Boolean)), 'utf8');
const files = (which: 'before' | 'after', dir: string) => readdirSync(path.join(out[which], dir)).sort();

/** The same state on both days: status, strip runs, contract, changes, endpoint and the latest row's detail. */
const steady = (s: ServerView, b: ServerView | undefined): b is ServerView =>
  b !== undefined && s.status === b.status && s.strip.length === b.strip.length && s.head?.toolsSha256 === b.head?.toolsSha256 && s.changes.length === b.changes.length && s.endpoint === b.endpoint && s.latest.detail === b.latest.detail;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'mcps-status-files-'));
  await collectArchive({ seed: 'status-files', size: 10, days: 4, breaksOnDay: 3, timeoutMs: 3000, afterRun: async (day, dir) => void (day === 2 && cpSync(dir, path.join(work, 'before'), { recursive: true })) }, path.join(work, 'after'));
  [before, after] = [await loadArchive(path.join(work, 'before')), await loadArchive(path.join(work, 'after'))];
  out.before = path.join(work, 'out-before');
  out.after = path.join(work, 'out-after');
  await writeServerFiles(before, out.before, pub, TEST_REGISTRY_SCHEMAS);
  await writeServerFiles(after, out.after, pub, TEST_REGISTRY_SCHEMAS);
}, 180_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('per-server files of two consecutive days', () => {
  it('a server in the same state keeps its descriptor and tools file byte for byte; the one that changed does not', async () => {
    const same = after.servers.filter((s) => steady(s, before.bySlug.get(s.slug)));
    expect(same.length).toBeGreaterThan(5);
    for (const s of same) {
      const b = before.bySlug.get(s.slug)!;
      expect(s.lastObserved, s.name).not.toBe(b.lastObserved); // its rows moved: the equality below is not of one day twice
      expect(await read('after', `/api/servers/${s.slug}.json`), s.name).toBe(await read('before', `/api/servers/${s.slug}.json`));
      if (s.current) expect(await read('after', `/api/tools/${s.slug}.json`), s.name).toBe(await read('before', `/api/tools/${s.slug}.json`));
    }
    const broke = after.servers.find((s) => s.name === BREAKS_NAME)!;
    expect(same).not.toContain(broke);
    const [d0, d1] = [JSON.parse(await read('before', `/api/servers/${broke.slug}.json`)), JSON.parse(await read('after', `/api/servers/${broke.slug}.json`))];
    expect([d0._meta['org.mcp-schema/health'].status, d1._meta['org.mcp-schema/health'].status]).toEqual(['ok', 'error']);
    // The state that began names its day; the last ok answer is now a fixed instant, not "the latest run".
    expect(d1._meta['org.mcp-schema/health']).toMatchObject({ since: after.asOfDay, ok_until: broke.lastOk });
    expect(d0._meta['org.mcp-schema/health'].ok_until).toBeNull();
  });

  it('set files and name-index shards that name no changed server keep their bytes; the changed server\'s set says it stopped', async () => {
    const changed = new Set(after.servers.filter((s) => !steady(s, before.bySlug.get(s.slug))).map((s) => s.name));
    expect(changed.has(BREAKS_NAME)).toBe(true);
    let kept = 0;
    for (const f of files('after', 'api/sets')) {
      const [a, b] = [await read('after', `/api/sets/${f}`), await read('before', `/api/sets/${f}`).catch(() => null)];
      const names = (JSON.parse(a) as { servers: { name: string }[] }).servers.map((x) => x.name);
      if (b !== null && !names.some((n) => changed.has(n))) {
        expect(a, f).toBe(b);
        kept++;
      }
    }
    expect(kept).toBeGreaterThan(0);
    const broke = after.servers.find((s) => s.name === BREAKS_NAME)!;
    const set = JSON.parse(await read('after', `/api/sets/${broke.current!.setHash}.json`)) as { servers: { name: string; still_serving: boolean; last_seen: string | null }[] };
    const stopped = after.sets.find((x) => x.setHash === broke.current!.setHash)!.servers.find((x) => x.target === BREAKS_NAME)!;
    expect(set.servers.find((x) => x.name === BREAKS_NAME)).toMatchObject({ still_serving: false, last_seen: stopped.lastSeen });
    for (const dir of ['api/tool-names', 'api/endpoints']) {
      expect(files('after', dir)).toEqual(files('before', dir));
      for (const f of files('after', dir)) {
        const a = await read('after', `/${dir}/${f}`);
        if (![...changed].some((n) => a.includes(JSON.stringify(n)))) expect(a, `${dir}/${f}`).toBe(await read('before', `/${dir}/${f}`));
      }
    }
  });

  it('the status shards carry the new day, the window and the latest instants of each server', async () => {
    const shards = files('after', 'api/status');
    expect(shards.length).toBeGreaterThan(1);
    expect(shards.length).toBeLessThanOrEqual(Math.min(256, after.servers.length));
    let listed = 0;
    for (const f of shards) {
      const [a, b] = [StatusShard.parse(JSON.parse(await read('after', `/api/status/${f}`))), StatusShard.parse(JSON.parse(await read('before', `/api/status/${f}`)))];
      expect([a.as_of, a.as_of_day]).toEqual([after.asOf, after.asOfDay]);
      expect(b.as_of_day).toBe(before.asOfDay);
      expect(a.as_of_day).not.toBe(b.as_of_day);
      for (const e of a.servers) {
        expect(`${statusShard(e.slug)}.json`).toBe(f);
        const s = after.bySlug.get(e.slug)!;
        expect([e.last_observed_at, e.last_ok_at, e.consecutive_failures, e.probes, e.window?.to_day]).toEqual([s.lastObserved, s.lastOk, s.consecutiveFailures, s.health?.probes ?? 0, after.asOfDay]);
        listed++;
      }
    }
    expect(listed).toBe(after.servers.length);
    const broke = after.servers.find((s) => s.name === BREAKS_NAME)!;
    const d = JSON.parse(await read('after', `/api/servers/${broke.slug}.json`));
    expect(d._meta['org.mcp-schema/descriptor'].status_url).toBe(pub.permalink(statusPath(statusShard(broke.slug))));
  });
});

describe('the status writer', () => {
  it('writes the same bytes whether it held every entry or spilled them to its scratch folder; entries sorted by slug', async () => {
    const shard = StatusShard.parse(JSON.parse(await read('after', `/api/status/${files('after', 'api/status')[0]}`)));
    const entries = after.servers.flatMap((s) => {
      const f = StatusShard.parse(JSON.parse(readFileSync(path.join(out.after, ...statusPath(statusShard(s.slug)).split('/').filter(Boolean)), 'utf8')));
      return f.servers.filter((e) => e.slug === s.slug);
    });
    expect(entries).toHaveLength(after.servers.length);
    const write = async (dir: string, spillBytes?: number) => {
      const w = new StatusFiles(pub, spillBytes);
      for (const e of [...entries].reverse()) await w.add(e); // given out of order: the writer sorts
      await w.write(path.join(work, dir), after.asOf);
    };
    await write('held');
    await write('spilled', 1);
    const names = readdirSync(path.join(work, 'held', 'api', 'status')).sort();
    expect(readdirSync(path.join(work, 'spilled', 'api', 'status')).sort()).toEqual(names);
    expect(names).toEqual(files('after', 'api/status'));
    for (const n of names) {
      const held = readFileSync(path.join(work, 'held', 'api', 'status', n), 'utf8');
      expect(readFileSync(path.join(work, 'spilled', 'api', 'status', n), 'utf8'), n).toBe(held);
      expect(held, n).toBe(await read('after', `/api/status/${n}`));
    }
    const slugs = shard.servers.map((e) => e.slug);
    expect(slugs).toEqual([...slugs].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
  });
});

describe('the published schemas', () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);

  it('every descriptor validates against the format 2 JSON Schema; a status shard against its own', async () => {
    const v2 = ajv.compile(JSON.parse(await read('after', DESCRIPTOR_SCHEMA_PATH)) as object);
    for (const s of after.servers) {
      const d = JSON.parse(await read('after', `/api/servers/${s.slug}.json`)) as unknown;
      expect(v2(d), `${s.name}: ${ajv.errorsText(v2.errors)}`).toBe(true);
    }
    const status = ajv.compile(JSON.parse(await read('after', STATUS_SCHEMA_PATH)) as object);
    const shard = JSON.parse(await read('after', `/api/status/${files('after', 'api/status')[0]}`)) as unknown;
    expect(status(shard), ajv.errorsText(status.errors)).toBe(true);
    // The near miss: a shard with a format 1 descriptor's date field is refused.
    expect(status({ ...(shard as object), generated_at: after.asOf })).toBe(false);
  });

  it('the frozen format 1 schema stays published and refuses a format 2 descriptor', async () => {
    const raw = JSON.parse(await read('after', DESCRIPTOR_V1_SCHEMA_PATH)) as { $id: string };
    expect(raw.$id).toBe(pub.permalink(DESCRIPTOR_V1_SCHEMA_PATH));
    const v1 = new Ajv({ allErrors: true, strict: false });
    addFormats(v1);
    const validate = v1.compile(raw);
    const d = JSON.parse(await read('after', `/api/servers/${after.servers[0]!.slug}.json`)) as { _meta: Record<string, Record<string, unknown>> };
    expect(validate(d)).toBe(false);
    expect(JSON.stringify(validate.errors)).toContain('generated_at');
  });
});
