// The loader's build cache (src/loader/cache.ts): a daily rebuild that reuses the day summaries of earlier
// days and the derived changes must equal a build from scratch, a day file that changes must be read
// again, compacted (.jsonl.gz) days read the same as plain ones, and restatement manifests are exposed.
import { appendFileSync, cpSync, existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compactArchive } from '../../collector/ops/compact.ts';
import { restate } from '../../collector/ops/restate.ts';
import { deriveArchive, readRawArchive, type Archive } from '../../src/loader/load-archive.ts';
import { SERIES } from '../../src/lib/index.ts';
import { WORKER_DAYS, workerChunks } from '../../src/loader/workers.ts';
import { membersPrebuild, rosterMemberPath } from '../../src/outputs/members.ts';
import { listRosterFiles } from '../../src/archive/rosters.ts';
import { fixtureArchive, ROOT } from '../site/shared.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const tmp = scratchDirs();
function copyOf(dir: string): string {
  const to = tmp('mcp-schema-cache-archive-');
  cpSync(dir, to, { recursive: true });
  return to;
}

/** Everything a page or bundle reads, without the functions and the cache counters. */
function comparable(a: Archive) {
  return {
    servers: a.servers,
    changes: a.changes,
    bodyFindings: a.bodyFindings,
    sets: a.sets,
    intervals: a.intervals,
    km: a.km,
    halfLife: a.halfLife,
    errorShares: a.errorShares,
    tiles: a.tiles,
    rowCount: a.rowCount,
    days: a.days,
    problems: a.problems,
    asOf: a.asOf,
    runs: a.runs,
  };
}
const scratchBuild = async (dir: string) => deriveArchive(await readRawArchive(dir));
// With day-summary workers, as a site build of more than a week of days has them.
const cachedBuild = async (dir: string, cache: string) => deriveArchive(await readRawArchive(dir, { cache: { dir: cache, sourceRoot: ROOT }, prebuild: { workers: 2 } }));

describe('the build cache', () => {
  let fixture: string;
  beforeAll(async () => {
    fixture = await fixtureArchive();
  }, 300_000);

  it('a rebuild after one more day equals a build from scratch, and reads only the new day', async () => {
    const dir = copyOf(fixture);
    const cache = tmp('mcp-schema-cache-');
    // Yesterday's archive: the last day's file and run are held back.
    const obs = path.join(dir, 'observations');
    const last = readdirSync(obs).sort().at(-1)!;
    renameSync(path.join(obs, last), path.join(dir, 'held-back.jsonl'));
    const runs = readFileSync(path.join(dir, 'runs.jsonl'), 'utf8').split('\n').filter(Boolean);
    writeFileSync(path.join(dir, 'runs.jsonl'), runs.slice(0, -1).map((l) => `${l}\n`).join(''));
    const yesterday = await cachedBuild(dir, cache);
    expect(yesterday.cacheStats.misses).toBe(yesterday.days.length);
    // Today: the day lands, the cache holds every earlier day and every unchanged target's changes.
    renameSync(path.join(dir, 'held-back.jsonl'), path.join(obs, last));
    writeFileSync(path.join(dir, 'runs.jsonl'), runs.map((l) => `${l}\n`).join(''));
    const today = await cachedBuild(dir, cache);
    expect(today.cacheStats).toMatchObject({ hits: today.days.length - 1, misses: 1 });
    expect(today.cacheStats.changeHits).toBeGreaterThan(0);
    expect(comparable(today)).toEqual(comparable(await scratchBuild(dir)));
    // And again, nothing new: every day from the cache, same result.
    const again = await cachedBuild(dir, cache);
    expect(again.cacheStats).toMatchObject({ hits: again.days.length, misses: 0 });
    expect(comparable(again)).toEqual(comparable(today));
  }, 300_000);

  it('summarises days in chunks, a fresh worker per chunk, the same as in one thread (a worker\'s heap bounded by its chunk)', async () => {
    const dir = copyOf(fixture);
    const cache = tmp('mcp-schema-cache-');
    // Three days a worker: with two slots, the fixture's days are several chunks each.
    const raw = await readRawArchive(dir, { cache: { dir: cache, sourceRoot: ROOT }, prebuild: { workers: 2, workerDays: 3 } });
    expect(raw.days.length).toBeGreaterThan(6);
    const chunked = await deriveArchive(raw);
    expect(chunked.cacheStats.misses).toBe(chunked.days.length);
    expect(comparable(chunked)).toEqual(comparable(await scratchBuild(dir)));
    // Each slot took its days three at a time, a worker each (the near miss: one worker a slot, 2).
    // Its days and then its other jobs (without prebuild members here: none).
    const summarised = chunked.cacheStats.misses;
    expect(raw.cacheStats.summaryWorkers).toBe(Math.ceil(Math.ceil(summarised / 2) / 3) + Math.ceil(Math.floor(summarised / 2) / 3));
    expect(raw.cacheStats.summaryWorkers).toBeGreaterThan(2);
  }, 300_000);

  it('runs the other jobs (a roster member each, as the site has them) after the days, in chunks too', async () => {
    const dir = copyOf(fixture);
    const cache = tmp('mcp-schema-cache-');
    const rosters = listRosterFiles(dir);
    expect(rosters.length).toBeGreaterThan(6);
    const raw = await readRawArchive(dir, { cache: { dir: cache, sourceRoot: ROOT }, prebuild: { workers: 2, workerDays: 3, ...membersPrebuild(dir, cache, ROOT) } });
    const days = raw.cacheStats.misses;
    const slot = (k: number, n: number) => Math.ceil((k === 0 ? Math.ceil(n / 2) : Math.floor(n / 2)) / 3);
    expect(raw.cacheStats.summaryWorkers).toBe(slot(0, days) + slot(1, days) + slot(0, rosters.length) + slot(1, rosters.length));
    for (const file of rosters) expect(existsSync((await rosterMemberPath(dir, file, cache))!), file).toBe(true);
  }, 300_000);

  it('cuts a slot\'s days into chunks of at most the size, in order, and an empty slot into one empty chunk', () => {
    expect(workerChunks([1, 2, 3, 4, 5, 6, 7], 3)).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    expect(workerChunks([1, 2, 3], 3)).toEqual([[1, 2, 3]]);
    expect(workerChunks([], 30)).toEqual([[]]);
    expect(() => workerChunks([1], 0)).toThrow('worker chunk size must be at least 1, not 0');
    expect(WORKER_DAYS).toBeGreaterThanOrEqual(8);
  });

  it('reads a day again when its file changes (same name, new content)', async () => {
    const dir = copyOf(fixture);
    const cache = tmp('mcp-schema-cache-');
    await cachedBuild(dir, cache);
    const obs = path.join(dir, 'observations');
    const first = readdirSync(obs).sort()[0]!;
    const lines = readFileSync(path.join(obs, first), 'utf8').split('\n').filter(Boolean);
    // Drop one row and tear the end: a different file under the same name.
    writeFileSync(path.join(obs, first), lines.slice(1).map((l) => `${l}\n`).join(''));
    appendFileSync(path.join(obs, first), lines[0]!.slice(0, 20));
    const after = await cachedBuild(dir, cache);
    expect(after.cacheStats).toMatchObject({ misses: 1 });
    expect(after.problems).toEqual([{ file: `observations/${first}`, line: lines.length, message: 'not json (torn or corrupt line)' }]);
    expect(comparable(after)).toEqual(comparable(await scratchBuild(dir)));
  }, 300_000);

  it('reads compacted days (.jsonl.gz) exactly as the plain files they replace', async () => {
    const plain = copyOf(fixture);
    const packed = copyOf(fixture);
    const s = compactArchive(packed);
    expect(s.compacted.length).toBeGreaterThan(0);
    const a = comparable(await cachedBuild(packed, tmp('mcp-schema-cache-')));
    const b = comparable(await scratchBuild(plain));
    expect({ ...a, problems: [] }).toEqual({ ...b, problems: [] });
  }, 300_000);

  it('exposes validated restatement manifests with the series title from src/lib', async () => {
    const dir = copyOf(fixture);
    await restate(dir, 'v1-contract');
    mkdirBroken(dir);
    const raw = await readRawArchive(dir);
    expect(raw.restatements.map((r) => r.series)).toEqual(['v1-contract']);
    const [r] = raw.restatements;
    expect(r!.title).toBe(SERIES['v1-contract'].title);
    expect(r!.summary).toBe(SERIES['v1-contract'].summary);
    expect(r!.restated.changes).toBeLessThanOrEqual(r!.original.changes);
    expect(raw.problems.some((p) => p.file === path.join('restatements', 'v1', 'manifest.json'))).toBe(true);
  }, 300_000);
});

/** A v1 folder whose manifest does not validate: skipped and listed as a problem. */
function mkdirBroken(dir: string): void {
  const d = path.join(dir, 'restatements', 'v1');
  cpSync(path.join(dir, 'restatements', 'v1-contract'), d, { recursive: true });
  writeFileSync(path.join(d, 'manifest.json'), JSON.stringify({ series: 'v1', title: 'x' }));
}
