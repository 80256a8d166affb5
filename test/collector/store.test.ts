// Store's durability, observed through its file-system seam (src/archive/atomic.ts FsEffects): the
// test hands the store a recording FsEffects over the real node:fs, so the store writes real files
// and the test sees which were fsynced, and in what order (issue 18: "rows and runs fsynced" is a
// README promise no test observed). Not a mock: every call goes through to the disk.
import fs from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../collector/store.ts';
import { nodeFs, type FileLike, type FsEffects } from '../../src/archive/atomic.ts';
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
    await store.putObject(Buffer.from('x'));
    store.appendObservation(row(DAY, 'excluded'));
    store.appendRun(runRowOf(1));
    store.close();
    expect(fx.log.filter((l) => /sync/.test(l))).toEqual([]);
    expect(fx.log.filter((l) => l.startsWith('write'))).toHaveLength(3);
  });
});
