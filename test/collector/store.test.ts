// Store's durability, observed through its file-system seam (src/archive/atomic.ts FsEffects): the
// test hands the store a recording FsEffects over the real node:fs, so the store writes real files
// and the test sees which were fsynced, and in what order ("rows and runs fsynced" is a
// README promise no test observed). Not a mock: every call goes through to the disk.
import fs from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { noEndpointRowV2 } from '../../collector/rows-v2.ts';
import { Store } from '../../collector/store.ts';
import { nodeFs, type FileLike, type FsEffects } from '../../src/archive/atomic.ts';
import { pageKey } from '../../src/archive/layout.ts';
import type { ObjectStore } from '../../src/archive/object-store.ts';
import { InvalidArchiveError } from '../../src/archive/problems.ts';
import { Run, sha256Hex, type Roster } from '../../src/lib/index.ts';
import { row } from '../lib/helpers/rows.ts';
import { tmpData } from './world.ts';

/** node:fs with every call logged as `<op> <path relative to dir>`. */
function recording(dir: string): FsEffects & { log: string[] } {
  const log: string[] = [];
  const paths = new Map<number, string>();
  const rel = (p: string) => relative(dir, p).replace(/\.tmp-\d+-[0-9a-f]+$/, '.tmp') || '.';
  const at = (fd: number) => paths.get(fd) ?? `fd${fd}`;
  return {
    log,
    openSync(path, flags) {
      const fd = nodeFs.openSync(path, flags);
      paths.set(fd, rel(path));
      return fd;
    },
    writeSync: (fd, data) => (log.push(`write ${at(fd)}`), nodeFs.writeSync(fd, data)),
    fsyncSync: (fd) => (log.push(`fsync ${at(fd)}`), nodeFs.fsyncSync(fd)),
    fdatasyncSync: (fd) => (log.push(`fdatasync ${at(fd)}`), nodeFs.fdatasyncSync(fd)),
    closeSync: (fd) => (paths.delete(fd), nodeFs.closeSync(fd)),
    renameSync: (from, to) => (log.push(`rename ${rel(from)} ${rel(to)}`), nodeFs.renameSync(from, to)),
    linkSync: (from, to) => (log.push(`link ${rel(from)} ${rel(to)}`), nodeFs.linkSync(from, to)),
    rename: async (from, to) => (log.push(`rename ${rel(from)} ${rel(to)}`), nodeFs.rename(from, to)),
    async open(path, flags): Promise<FileLike> {
      const fh = await nodeFs.open(path, flags);
      const p = rel(path);
      return {
        writeFile: async (bytes) => (log.push(`write ${p}`), fh.writeFile(bytes)),
        sync: async () => (log.push(`fsync ${p}`), fh.sync()),
        close: () => fh.close(),
      };
    },
  };
}

const DAY = '2026-05-02';
const roster: Roster = {
  day: DAY,
  run_id: `${DAY}T031500Z`,
  fetched_at: `${DAY}T03:15:00.000Z`,
  source: 'http://127.0.0.1:9/v0.1/servers',
  complete: true,
  incomplete_reason: null,
  pages: [],
  counts: { pages: 0, entries: 0, targets: 0, with_endpoint: 0 },
  targets: [],
};
const runRowOf = (n: number): Run =>
  Run.parse({
    run_id: `${DAY}-r1`, day: DAY, started_at: `${DAY}T03:15:00Z`, finished_at: `${DAY}T03:20:00Z`, registry: 'http://127.0.0.1:9/v0.1/servers', roster_file: null,
    roster_complete: true, targets: n, eligible: n, attempts: 0, coverage: 0, degraded: true, partial: false, limit: null,
    outcomes: { ok: 0, error: 0, no_endpoint: 0, retired: 0, excluded: 0, not_attempted: n }, error_classes: { timeout: 0, tls: 0, http_4xx: 0, http_5xx: 0, auth: 0, rate_limited: 0, no_endpoint: 0, parse: 0 },
    status: 'finished', message: null, prober_version: 'test', methodology_version: 'v1', scheduling: null,
  });

describe('Store: what is fsynced, and when', () => {
  it('syncs an object before its name exists and its folder after; a roster before it is linked; rows before the run row; the run row itself', async () => {
    const dir = tmpData('mcps-store-');
    const fx = recording(dir);
    const store = Store.open(dir, new Date().toISOString(), { fs: fx });
    const rosterFile = store.writeRoster(roster);
    const sha = await store.putObject(Buffer.from('{"tools":[]}'));
    for (let i = 0; i < 3; i++) store.appendObservation(row(DAY, { notAttempted: 'run_deadline' }, { target: `t${i}`, run: `${DAY}-r1` }));
    store.appendRun(runRowOf(3));
    store.close();

    const obj = `objects/${sha.slice(0, 2)}/${sha}`;
    const day = `observations/${DAY}.jsonl`;
    expect(rosterFile).toBe(`${DAY}.json`);
    expect(fx.log).toEqual([
      `write rosters/.${DAY}.tmp`,
      `fsync rosters/.${DAY}.tmp`,
      `link rosters/.${DAY}.tmp rosters/${DAY}.json`,
      'fsync rosters',
      `write ${obj}.tmp`,
      `fsync ${obj}.tmp`,
      `rename ${obj}.tmp ${obj}`,
      `fsync objects/${sha.slice(0, 2)}`,
      `write ${day}`,
      `write ${day}`,
      `write ${day}`,
      `fdatasync ${day}`, // the rows, before the run row that counts them
      'write runs.jsonl',
      'fsync runs.jsonl',
      `fdatasync ${day}`, // close
    ]);
    expect(sha).toBe(sha256Hex(Buffer.from('{"tools":[]}')));
    expect(fs.readFileSync(join(dir, day), 'utf8').split('\n')).toHaveLength(4);
  });

  it('syncs the day file every 256 rows while a run goes on', () => {
    const dir = tmpData('mcps-store-');
    const fx = recording(dir);
    const store = Store.open(dir, new Date().toISOString(), { fs: fx });
    for (let i = 0; i < 300; i++) store.appendObservation(row(DAY, 'excluded', { target: `t${i}` }));
    const syncs = fx.log.flatMap((l, i) => (l.startsWith('fdatasync') ? [fx.log.slice(0, i).filter((x) => x.startsWith('write')).length] : []));
    expect(syncs).toEqual([256]);
    store.close();
  });

  it('syncs nothing when durability is switched off (the archive generator only)', async () => {
    const dir = tmpData('mcps-store-');
    const fx = recording(dir);
    const store = Store.open(dir, new Date().toISOString(), { fs: fx, durable: false });
    expect(store.durable).toBe(false);
    store.writeRoster(roster);
    await store.putObject(Buffer.from('x'));
    store.appendObservation(row(DAY, 'excluded'));
    store.appendRun(runRowOf(1));
    store.close();
    expect(fx.log.filter((l) => /sync/.test(l))).toEqual([]);
    expect(fx.log.filter((l) => l.startsWith('write'))).toHaveLength(4);
  });
});

// What Store.open repairs before a run appends (a crash's leftovers), and the store's other writes and
// reads, on real folders (each made inside its test: docs/MUTATION.md, "Static mutants").
const open = (dir: string, options: Parameters<typeof Store.open>[2] = {}) => Store.open(dir, new Date().toISOString(), options);
const write = (dir: string, file: string, bytes: string | Buffer) => {
  fs.mkdirSync(join(dir, file, '..'), { recursive: true });
  fs.writeFileSync(join(dir, file), bytes);
};
const read = (dir: string, file: string) => fs.readFileSync(join(dir, file), 'utf8');
const torn = (dir: string) => fs.readdirSync(join(dir, 'quarantine')).filter((f) => f.endsWith('.torn')).sort();

describe('Store.open: torn last lines are cut off and kept in quarantine/', () => {
  it('in runs.jsonl, chain.jsonl and the day files of both series; intact files are not touched', () => {
    const dir = tmpData('mcps-store-');
    write(dir, 'runs.jsonl', '{"a":1}\n{"run_id":"2026-05');
    write(dir, 'chain.jsonl', '{"seq":1}\n{"seq"');
    write(dir, `observations/${DAY}.jsonl`, '{"r":1}\n{"r":2}\n{"r":');
    write(dir, `observations-v2/${DAY}.jsonl`, '{"v2":');
    write(dir, 'observations/2026-05-01.jsonl', '{"r":0}\n');
    const fx = recording(dir);
    open(dir, { fs: fx }).close();
    expect(read(dir, 'runs.jsonl')).toBe('{"a":1}\n');
    expect(read(dir, 'chain.jsonl')).toBe('{"seq":1}\n');
    expect(read(dir, `observations/${DAY}.jsonl`)).toBe('{"r":1}\n{"r":2}\n');
    expect(read(dir, `observations-v2/${DAY}.jsonl`)).toBe(''); // no whole line at all
    expect(read(dir, 'observations/2026-05-01.jsonl')).toBe('{"r":0}\n');
    const names = torn(dir);
    expect(names.map((n) => n.replace(/\.\d+\.torn$/, ''))).toEqual(['chain.jsonl', `observations-v2_${DAY}.jsonl`, `observations_${DAY}.jsonl`, 'runs.jsonl']);
    expect(names.map((n) => read(dir, `quarantine/${n}`))).toEqual(['{"seq"', '{"v2":', '{"r":', '{"run_id":"2026-05']);
    // Each torn tail is durable in quarantine/ before its file is cut, and the cut file is synced.
    const runs = fx.log.filter((l) => l.includes('runs.jsonl'));
    expect(runs).toEqual([`write quarantine/${names[3]}`, `fsync quarantine/${names[3]}`, 'fsync runs.jsonl']);
    expect(fx.log.some((l) => l.includes('2026-05-01'))).toBe(false);
  });

  it('leaves a gzipped day file and a file that is not a day file alone', () => {
    const dir = tmpData('mcps-store-');
    write(dir, `observations/${DAY}.txt`, 'torn');
    open(dir).close();
    expect(read(dir, `observations/${DAY}.txt`)).toBe('torn');
    expect(torn(dir)).toEqual([]);
  });
});

describe('Store.open: leftovers of a killed writer and of a crashed compaction', () => {
  it('removes temp files under objects/, pages/, rosters/ and restatements/, and nothing else', () => {
    const dir = tmpData('mcps-store-');
    const sha = 'ab'.repeat(32);
    write(dir, `objects/ab/${sha}`, 'kept');
    write(dir, `objects/ab/${sha}.tmp-123-deadbeef`, 'half');
    write(dir, `pages/cd/${'cd'.repeat(32)}.tmp-9-00ff00ff`, 'half');
    write(dir, 'objects/README', 'a file beside the shards');
    write(dir, `rosters/${DAY}.json`, '{}');
    write(dir, `rosters/.${DAY}.tmp-5-0badf00d`, 'half');
    write(dir, `rosters/${DAY}.tmp-5-0badf00d`, 'no leading dot: not a roster temp');
    write(dir, 'restatements/.v1.tmp-7-cafecafe/part', 'half');
    open(dir).close();
    const left = (sub: string) => fs.readdirSync(join(dir, sub), { recursive: true }).map(String).sort();
    expect(left('objects')).toEqual(['README', 'ab', `ab/${sha}`]);
    expect(left('pages')).toEqual(['cd']);
    expect(left('rosters')).toEqual([`${DAY}.json`, `${DAY}.tmp-5-0badf00d`]);
    expect(left('restatements')).toEqual([]);
  });

  it('removes a plain day file that is the tail of its .gz (compaction killed between rename and unlink), in both series', () => {
    const dir = tmpData('mcps-store-');
    write(dir, `observations/${DAY}.jsonl.gz`, gzipSync('{"r":1}\n{"r":2}\n'));
    write(dir, `observations/${DAY}.jsonl`, '{"r":2}\n');
    write(dir, `observations-v2/${DAY}.jsonl.gz`, gzipSync('{"v":1}\n'));
    write(dir, `observations-v2/${DAY}.jsonl`, '{"v":1}\n');
    const fx = recording(dir);
    open(dir, { fs: fx }).close();
    expect(fs.readdirSync(join(dir, 'observations'))).toEqual([`${DAY}.jsonl.gz`]);
    expect(fs.readdirSync(join(dir, 'observations-v2'))).toEqual([`${DAY}.jsonl.gz`]);
    expect(fx.log).toEqual(['fsync observations', 'fsync observations-v2']); // the removals made durable
  });

  it.each([
    ['other rows (a late run beside the gz)', '{"r":1}\n{"r":2}\n', '{"r":3}\n'],
    ['an empty plain file', '{"r":1}\n', ''],
    ['a plain file longer than the gz', '{"r":2}\n', '{"r":1}\n{"r":2}\n'],
    ['the head of the gz, not its tail', '{"r":1}\n{"r":2}\n', '{"r":1}\n'],
  ])('keeps a plain day file beside its .gz holding %s', (_what, packed, plain) => {
    const dir = tmpData('mcps-store-');
    write(dir, `observations/${DAY}.jsonl.gz`, gzipSync(packed));
    write(dir, `observations/${DAY}.jsonl`, plain);
    open(dir).close();
    expect(read(dir, `observations/${DAY}.jsonl`)).toBe(plain);
  });

  it('never removes a file that is not a plain day file, even beside a .gz holding the same bytes', () => {
    const dir = tmpData('mcps-store-');
    write(dir, 'observations/README', 'notes\n');
    write(dir, 'observations/README.gz', gzipSync('notes\n'));
    open(dir).close();
    expect(fs.readdirSync(join(dir, 'observations')).sort()).toEqual(['README', 'README.gz']);
  });

  it('removes a roster left plain beside its gzipped copy with the same bytes, and keeps one that differs', () => {
    const dir = tmpData('mcps-store-');
    write(dir, `rosters/${DAY}.json.gz`, gzipSync('{"same":1}\n'));
    write(dir, `rosters/${DAY}.json`, '{"same":1}\n');
    write(dir, 'rosters/2026-05-03.json.gz', gzipSync('{"a":1}\n'));
    write(dir, 'rosters/2026-05-03.json', '{"b":1}\n');
    write(dir, 'rosters/2026-05-04.json.gz', gzipSync('{"only":1}\n'));
    const fx = recording(dir);
    open(dir, { fs: fx }).close();
    expect(fx.log).toEqual(['fsync rosters']);
    expect(fs.readdirSync(join(dir, 'rosters')).sort()).toEqual(['2026-05-02.json.gz', '2026-05-03.json', '2026-05-03.json.gz', '2026-05-04.json.gz']);
  });

  it('a repair that fails releases the lock it took, and the error comes through', () => {
    const dir = tmpData('mcps-store-');
    write(dir, `observations/${DAY}.jsonl.gz`, 'not gzip');
    write(dir, `observations/${DAY}.jsonl`, '{"r":1}\n');
    expect(() => open(dir)).toThrow(/header|gzip|incorrect/i);
    expect(fs.existsSync(join(dir, '.lock'))).toBe(false);
  });
});

describe('Store: rosters, rows and runs', () => {
  it('writes rosters/<day>.json, then <day>.2.json, <day>.3.json, never overwriting, and finds a run’s own', () => {
    const dir = tmpData('mcps-store-');
    const store = open(dir);
    const names = ['r1', 'r2', 'r3'].map((id) => store.writeRoster({ ...roster, run_id: id }));
    store.writeRoster({ ...roster, day: '2026-05-03', run_id: 'r9' });
    expect(names).toEqual([`${DAY}.json`, `${DAY}.2.json`, `${DAY}.3.json`]);
    expect(read(dir, `rosters/${DAY}.2.json`)).toBe(JSON.stringify({ ...roster, run_id: 'r2' }, null, 1) + '\n');
    expect(fs.readdirSync(join(dir, 'rosters')).filter((f) => f.startsWith('.'))).toEqual([]);
    expect(store.findRoster(DAY, 'r2')).toEqual({ file: `${DAY}.2.json`, roster: { ...roster, run_id: 'r2' } });
    expect(store.findRoster(DAY, 'r9')).toBeNull(); // another day's run
    expect(store.findRoster('2026-05-03', 'r9')?.file).toBe('2026-05-03.json');
    expect(store.readRoster(`${DAY}.3.json`).run_id).toBe('r3');
    write(dir, 'rosters/bad.json', '{"day":1}');
    expect(() => store.readRoster('bad.json')).toThrow(/rosters\/bad\.json/);
    store.close();
  });

  it('on a file system without hard links, writeRoster fails with that error at once and leaves no temp file', () => {
    const dir = tmpData('mcps-store-');
    let links = 0;
    const fx: FsEffects = { ...nodeFs, linkSync: () => { links++; throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' }); } };
    const store = open(dir, { fs: fx });
    expect(() => store.writeRoster(roster)).toThrow(/EPERM/);
    expect(links).toBe(1);
    expect(fs.readdirSync(join(dir, 'rosters'))).toEqual([]);
    store.close();
  });

  it('appends v1 and v2 rows each to its own series folder, closing (and syncing) a day file when the day changes', () => {
    const dir = tmpData('mcps-store-');
    const fx = recording(dir);
    const store = open(dir, { fs: fx });
    expect(store.readObservations(DAY)).toEqual([]);
    expect(store.readObservationsV2(DAY)).toEqual([]);
    store.appendObservation(row(DAY, 'excluded', { target: 'a' }));
    store.appendObservation(row('2026-05-03', 'excluded', { target: 'b' }));
    const v2 = noEndpointRowV2({ runId: `${DAY}T031500Z`, day: DAY, observedAt: `${DAY}T03:15:01.000Z` }, { name: 'c', version: '1', status: 'active', endpoint: null, endpoint_problem: 'no_streamable_http', page_sha256: sha256Hex('p'), page_index: 0 });
    store.appendObservationV2(v2);
    store.appendObservationV2({ ...v2, target: 'd' });
    expect(fx.log).toEqual([`write observations/${DAY}.jsonl`, `fdatasync observations/${DAY}.jsonl`, 'write observations/2026-05-03.jsonl', `write observations-v2/${DAY}.jsonl`, `write observations-v2/${DAY}.jsonl`]);
    expect(store.readObservations(DAY).map((r) => r.target)).toEqual(['a']);
    expect(store.readObservations('2026-05-03').map((r) => r.target)).toEqual(['b']);
    expect(store.readObservationsV2(DAY)).toEqual([v2, { ...v2, target: 'd' }]);
    // The next day of the v2 series: its folder exists now, and the day before is closed.
    store.appendObservationV2({ ...v2, day: '2026-05-03', observed_at: '2026-05-03T03:15:01.000Z' });
    expect(store.readObservationsV2('2026-05-03')).toHaveLength(1);
    store.close();
    expect(fx.log.slice(5).sort()).toEqual(['fdatasync observations-v2/2026-05-02.jsonl', 'fdatasync observations-v2/2026-05-03.jsonl', 'fdatasync observations/2026-05-03.jsonl', 'write observations-v2/2026-05-03.jsonl']);
  });

  it('refuses a row that does not validate, writing nothing', () => {
    const dir = tmpData('mcps-store-');
    const store = open(dir);
    expect(() => store.appendObservation({ ...row(DAY, 'excluded'), day: 'yesterday' })).toThrow();
    store.close();
    expect(fs.existsSync(join(dir, `observations/${DAY}.jsonl`))).toBe(false);
  });

  it('reads back the run rows it appended; a line that does not validate throws', () => {
    const dir = tmpData('mcps-store-');
    const store = open(dir);
    store.appendRun(runRowOf(2));
    store.appendRun(runRowOf(3));
    expect(store.readRuns()).toEqual([runRowOf(2), runRowOf(3)]);
    fs.appendFileSync(join(dir, 'runs.jsonl'), '{"run_id":1}\n');
    expect(() => store.readRuns()).toThrow(InvalidArchiveError);
    expect(store.durable).toBe(true);
    store.close();
  });
});

describe('Store: objects and pages', () => {
  /** An object store that records puts (over an in-memory map). */
  const counting = () => {
    const map = new Map<string, Buffer>();
    const puts: string[] = [];
    const store: ObjectStore = {
      description: 'memory',
      put: async (k, b) => void (puts.push(k), map.set(k, Buffer.from(b))),
      get: async (k) => map.get(k) ?? null,
      has: async (k) => map.has(k),
      async *list(prefix) {
        for (const k of map.keys()) if (k.startsWith(prefix)) yield k;
      },
    };
    return { store, puts, map };
  };
  const page = (names: string[]) => Buffer.from(JSON.stringify({ servers: names.map((name) => ({ server: { name, version: '1' } })), metadata: { count: names.length } }));

  it('stores a page as its entries, then its manifest; a page that does not split is one object', async () => {
    const dir = tmpData('mcps-store-');
    const { store: objects, puts } = counting();
    const store = open(dir, { objects });
    expect(store.objects).toBe(objects);
    const raw = page(['a', 'b', 'a']);
    const sha = await store.putPage(raw);
    expect(sha).toBe(sha256Hex(raw));
    expect(puts).toHaveLength(3); // two distinct entries, then the manifest
    expect(puts.slice(0, 2).every((k) => k.startsWith('objects/'))).toBe(true);
    expect(puts[2]).toBe(pageKey(sha));
    const whole = Buffer.from('{"servers":"not a list"}');
    expect(await store.putPage(whole)).toBe(sha256Hex(whole));
    expect(puts[3]).toBe(`objects/${sha256Hex(whole).slice(0, 2)}/${sha256Hex(whole)}`);
    store.close();
  });

  it('after rememberPages(yesterday’s pages), putting the same page again asks the object store nothing', async () => {
    const dir = tmpData('mcps-store-');
    const { store: objects, puts, map } = counting();
    const first = open(dir, { objects });
    const raw = page(['a', 'b']);
    const sha = await first.putPage(raw);
    first.close();
    const shaOther = await (async () => {
      const s = open(dir, { objects });
      const x = await s.putPage(page(['c']));
      s.close();
      return x;
    })();
    map.set(pageKey(shaOther), Buffer.from('{"not":"a manifest"}'));
    puts.length = 0;
    const store = open(dir, { objects });
    // The page itself and its two entries; the broken manifest, a name that is not a sha and an absent page add nothing.
    expect(await store.rememberPages([sha, sha, shaOther, 'not-a-sha', 'ee'.repeat(32)])).toBe(3);
    expect(await store.rememberPages([sha])).toBe(0);
    await store.putPage(raw);
    expect(puts).toEqual([]);
    await store.putPage(page(['c']));
    expect(puts).toHaveLength(2); // its entry and manifest: not remembered
    store.close();
  });

  it('a manifest stored under another page’s name is not trusted', async () => {
    const dir = tmpData('mcps-store-');
    const { store: objects, map, puts } = counting();
    const store = open(dir, { objects });
    const sha = await store.putPage(page(['a']));
    const wrong = 'ff'.repeat(32);
    map.set(pageKey(wrong), map.get(pageKey(sha))!);
    const fresh = open(tmpData('mcps-store-'), { objects });
    expect(await fresh.rememberPages([wrong])).toBe(0);
    puts.length = 0;
    await fresh.putPage(page(['a']));
    expect(puts).toHaveLength(2);
    fresh.close();
    store.close();
  });

  it('skips names that are not object names without asking the store (the folder store refuses such keys)', async () => {
    const store = open(tmpData('mcps-store-'));
    expect(await store.rememberPages(['..', '../../etc/passwd', 'AB'.repeat(32)])).toBe(0);
    store.close();
  });

  it('with a remote bucket, puts go to the bucket and the archive folder keeps a copy', async () => {
    const dir = tmpData('mcps-store-');
    const { store: remote, puts } = counting();
    const store = open(dir, { remote });
    const sha = await store.putObject(Buffer.from('{"x":1}'));
    expect(puts).toEqual([`objects/${sha.slice(0, 2)}/${sha}`]);
    expect(fs.readFileSync(store.objectPath(sha), 'utf8')).toBe('{"x":1}');
    store.close();
  });
});
