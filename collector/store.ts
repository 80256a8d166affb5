// The collector's writer of the archive (DESIGN "Data contract"): content-addressed objects written
// once, append-only JSONL rows validated on write, roster files, and the lock. Paths, readers and
// atomic writes come from src/archive/ (the one place that knows the layout). Crash safety under SIGKILL:
//   - objects and rosters go to a temp file, are fsynced, then renamed/linked into place, so a name
//     only ever points at complete bytes;
//   - a row is one write() of one whole line; on open, a torn last line (no trailing newline) of
//     runs.jsonl or of a day file is cut off and kept in quarantine/ — never silently lost. That is
//     the only time an earlier day's file is opened for writing;
//   - one collector at a time: `.lock` names its holder (lock.ts: pid, process start time, boot id,
//     hostname); a lock whose holder is dead, a zombie or a reused pid is recovered.
// Every write and sync that makes the record durable goes through an FsEffects (src/archive/atomic.ts;
// node:fs unless StoreOptions.fs says otherwise), so a test can observe the fsyncs.
import fs from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fsyncPath, nodeFs, tempName, writeDurably, type FsEffects } from '../src/archive/atomic.ts';
import { tornLastLine } from '../src/archive/day-files.ts';
import { chainPath, DAY_FILE, dayFile, isObjectName, LAYOUT, objectKey, objectPath, pageKey, rosterPath, runsPath, SERIES_FOLDER, TEMP_MARK } from '../src/archive/layout.ts';
import { CachedStore } from '../src/archive/cached-store.ts';
import { FsObjectStore, type ObjectStore } from '../src/archive/object-store.ts';
import { dayFileRows, dayFileRowsV2 } from '../src/archive/observations.ts';
import { InvalidArchiveError, valueOrThrow } from '../src/archive/problems.ts';
import { listRosterFiles, readRoster, ROSTER_GZ } from '../src/archive/rosters.ts';
import { readRuns } from '../src/archive/runs.ts';
import { manifestBytes, manifestObjects, Observation, parseManifest, ObservationV2, Roster, RUN_SERIES, runSchemaOf, sha256Hex, splitPage, type AnyRun, type RunSeries } from '../src/lib/index.ts';
import { CliError, EXIT } from './cli-error.ts';
import { holder, linuxProc, lockFor, readLock, type Holder, type LockInfo, type ProcView } from './lock.ts';

export { readLock, type LockInfo } from './lock.ts';

export interface StoreOptions {
  /**
   * Default true. false skips every fsync/fdatasync (rows, objects, rosters, runs): a BENCH-ONLY
   * option for bench/archive-gen.ts, which writes millions of rows into a throwaway folder. Rows are
   * still validated and written the same way; only crash durability is given up.
   */
  durable?: boolean;
  /** The file-system effects of writes and syncs (default node:fs); tests record them. */
  fs?: FsEffects;
  /** What the lock reads of the system (default: /proc, lock.ts). */
  proc?: ProcView;
  /**
   * Where objects and page manifests go (default: the archive folder itself, FsObjectStore). Given,
   * it is used as it is (a bench counting writes); for a bucket, pass `remote` instead.
   */
  objects?: ObjectStore;
  /**
   * An S3-compatible bucket (src/archive/store-config.ts openRemoteStore): objects and page manifests
   * go there first, and the archive folder keeps a cache (CachedStore), written as durably as the rest.
   */
  remote?: ObjectStore | null;
}

/** The day file a series is appending to. */
interface OpenDay {
  fd: number;
  day: string;
}

export class Store {
  /** Per series (v1: observations/, v2: observations-v2/): the open day file rows are appended to. */
  #open = new Map<RunSeries, OpenDay>();
  #unsynced = 0;
  #released = false;

  #durable = true;
  #fx: FsEffects = nodeFs;
  #objects!: ObjectStore;

  private constructor(readonly dir: string) {}

  /** Opens --data: creates the layout, takes the lock, repairs torn tails. Throws CliError. */
  static open(dir: string, startedAt: string, options: StoreOptions = {}): Store {
    try {
      fs.mkdirSync(dir, { recursive: true });
      for (const sub of [LAYOUT.objects, LAYOUT.rosters, LAYOUT.observations, LAYOUT.quarantine]) fs.mkdirSync(join(dir, sub), { recursive: true });
      fs.accessSync(dir, fs.constants.W_OK);
    } catch (e) {
      throw new CliError(`unusable --data ${dir}: ${(e as Error).message}`, EXIT.usage, { cause: e });
    }
    const store = new Store(dir);
    store.#durable = options.durable ?? true;
    store.#fx = options.fs ?? nodeFs;
    const folder = new FsObjectStore(dir, { durable: store.#durable, fx: store.#fx });
    store.#objects = options.objects ?? (options.remote ? new CachedStore(options.remote, folder) : folder);
    store.#lock(startedAt, options.proc ?? linuxProc);
    try {
      store.#repairTornTails();
      store.#sweepTempFiles();
      store.#finishCompaction();
    } catch (e) {
      store.close();
      throw e;
    }
    return store;
  }

  /** Whether writes are fsynced (false only for the bench's throwaway archives). */
  get durable(): boolean {
    return this.#durable;
  }

  get lockPath(): string {
    return join(this.dir, LAYOUT.lock);
  }

  #lock(startedAt: string, proc: ProcView): void {
    const body = JSON.stringify(lockFor(startedAt, proc)) + '\n';
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        fs.writeFileSync(this.lockPath, body, { flag: 'wx' });
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new CliError(`unusable --data ${this.dir}: ${(e as Error).message}`, EXIT.usage, { cause: e });
      }
      const text = readText(this.lockPath);
      if (text === null) continue; // gone meanwhile: try again
      const held = readLock(this.lockPath);
      const state = held ? holderSettled(held, proc) : null;
      if (held && state?.state === 'alive') {
        throw new CliError(`another collector holds ${this.lockPath} (pid ${held.pid}, since ${held.started_at})`, EXIT.locked);
      }
      if (held && state?.state === 'elsewhere') {
        throw new CliError(
          `another collector holds ${this.lockPath} on host ${JSON.stringify(state.host.slice(0, 64))} (pid ${held.pid}, since ${held.started_at}); it cannot be checked from here: remove the file if no collector runs there`,
          EXIT.locked,
        );
      }
      // Stale (holder gone, or unreadable because the writer died mid-write): move it aside atomically.
      // If what was moved is not what was judged stale, another recovering collector took the lock in
      // between: put it back and give way.
      const aside = join(this.dir, LAYOUT.quarantine, `lock-${Date.now()}-${process.pid}.stale`);
      try {
        fs.renameSync(this.lockPath, aside);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        continue;
      }
      if (readText(aside) !== text) {
        try {
          fs.linkSync(aside, this.lockPath);
          fs.rmSync(aside, { force: true });
        } catch {
          // someone else holds it now either way
        }
        throw new CliError(`could not take ${this.lockPath}: another collector is starting`, EXIT.locked);
      }
    }
    throw new CliError(`could not take ${this.lockPath}: another collector is starting`, EXIT.locked);
  }

  /** Truncate a torn last line of runs.jsonl, chain.jsonl and of every day file, keeping the torn bytes in quarantine/. */
  #repairTornTails(): void {
    const files = [runsPath(this.dir), chainPath(this.dir), ...seriesFolders().flatMap((folder) => listDir(join(this.dir, folder)).filter((f) => f.endsWith('.jsonl')).map((f) => join(this.dir, folder, f)))];
    for (const file of files) {
      if (!fs.existsSync(file) || !tornLastLine(file)) continue; // intact: never opened for writing
      const data = fs.readFileSync(file);
      const keep = data.lastIndexOf(0x0a) + 1;
      const torn = data.subarray(keep);
      const name = `${file.slice(this.dir.length + 1).replace(/[/\\]/g, '_')}.${Date.now()}.torn`;
      writeDurably(join(this.dir, LAYOUT.quarantine, name), torn, true, this.#fx);
      fs.truncateSync(file, keep);
      fsyncPath(file, this.#fx);
    }
  }

  /**
   * Remove temp files a killed writer left behind (objects/ and pages/<aa>/<sha>.tmp-*, rosters/.<day>.tmp-*,
   * restatements/.<series>.tmp-*). Holding the lock, nobody else can be writing them, and they were
   * never renamed into place, so no reader ever saw them: an object is written again whole when next
   * needed. Without this sweep one crash would leave `npm run verify` failing for good.
   */
  #sweepTempFiles(): void {
    const isTemp = (name: string) => TEMP_MARK.test(name);
    for (const top of [LAYOUT.objects, LAYOUT.pages]) {
      const objects = join(this.dir, top);
      for (const shard of listDir(objects)) {
        const shardDir = join(objects, shard);
        if (!fs.statSync(shardDir).isDirectory()) continue;
        for (const name of listDir(shardDir)) if (isTemp(name)) fs.rmSync(join(shardDir, name), { force: true });
      }
    }
    for (const sub of [LAYOUT.rosters, LAYOUT.restatements]) {
      for (const name of listDir(join(this.dir, sub))) if (name.startsWith('.') && isTemp(name)) fs.rmSync(join(this.dir, sub, name), { recursive: true, force: true });
    }
  }

  /**
   * `npm run compact` renames <day>.jsonl.gz into place before it removes <day>.jsonl; a crash between
   * the two leaves the same lines twice. When the plain file's whole content is the tail of the gz,
   * it is that leftover: remove it. (A late run's fresh plain file beside a gz holds other rows.)
   */
  #finishCompaction(): void {
    for (const folder of seriesFolders()) this.#finishCompactionIn(join(this.dir, folder));
    // A roster gzipped in place: both forms left by a crash hold the same bytes; the plain one goes.
    const rosters = join(this.dir, LAYOUT.rosters);
    for (const name of listDir(rosters)) {
      if (!name.endsWith(`.json${ROSTER_GZ}`)) continue;
      const plain = join(rosters, name.slice(0, -ROSTER_GZ.length));
      if (!fs.existsSync(plain)) continue;
      if (gunzipSync(fs.readFileSync(join(rosters, name))).equals(fs.readFileSync(plain))) {
        fs.unlinkSync(plain);
        fsyncPath(rosters, this.#fx);
      }
    }
  }

  #finishCompactionIn(obs: string): void {
    for (const name of listDir(obs)) {
      const m = DAY_FILE.exec(name);
      if (!m || m[2] || !fs.existsSync(join(obs, `${name}.gz`))) continue;
      const plain = fs.readFileSync(join(obs, name));
      const packed = gunzipSync(fs.readFileSync(join(obs, `${name}.gz`)));
      if (plain.length > 0 && packed.length >= plain.length && packed.subarray(packed.length - plain.length).equals(plain)) {
        fs.unlinkSync(join(obs, name));
        fsyncPath(obs, this.#fx);
      }
    }
  }

  /**
   * Keys known to be in the store already (rememberPages): a put of one is skipped. With a bucket and a
   * fresh checkout, the cache is empty every day, and asking the bucket about each of ≈ 115,000 listing
   * entries a day would cost ≈ 115,000 requests for the ≈ 1 % that are new.
   */
  #known = new Set<string>();

  /**
   * Note the keys the manifests of these pages name (yesterday's listing): a manifest is written only
   * after its entries, so every entry it names is in the store. Read 8 at a time; a page whose
   * manifest is absent or does not parse adds nothing (its entries are put again, harmlessly).
   */
  async rememberPages(pageShas: readonly string[]): Promise<number> {
    const before = this.#known.size;
    const queue = [...new Set(pageShas)];
    const worker = async () => {
      for (let sha = queue.pop(); sha !== undefined; sha = queue.pop()) {
        if (!isObjectName(sha)) continue;
        const bytes = await this.#objects.get(pageKey(sha));
        const manifest = bytes ? parseManifest(bytes) : null;
        if (manifest === null || manifest.sha256 !== sha) continue;
        this.#known.add(pageKey(sha));
        for (const name of manifestObjects(manifest)) this.#known.add(objectKey(name));
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    return this.#known.size - before;
  }

  /** Where this store's objects and page manifests go. */
  get objects(): ObjectStore {
    return this.#objects;
  }

  /** Store bytes under objects/<aa>/<sha256> (once); returns the sha256. */
  async putObject(bytes: Uint8Array): Promise<string> {
    const sha = sha256Hex(bytes);
    await this.#put(objectKey(sha), bytes);
    return sha;
  }

  /**
   * Store a raw listing page (once); returns its sha256. Packed as its entries (objects) and a manifest
   * under pages/ (src/lib/page-parts.ts): the entries first, so a manifest never names an absent object.
   * A page that does not split exactly is stored whole under objects/, as any other body.
   */
  async putPage(bytes: Uint8Array): Promise<string> {
    const split = splitPage(bytes);
    if (split === null) return this.putObject(bytes);
    for (const entry of split.entries) await this.#put(objectKey(entry.sha256), entry.bytes);
    await this.#put(pageKey(split.manifest.sha256), manifestBytes(split.manifest));
    return split.manifest.sha256;
  }

  /** Same bytes under the same name: a second or concurrent put is harmless (the store skips it); a known key is not even asked about. */
  async #put(key: string, bytes: Uint8Array): Promise<void> {
    if (this.#known.has(key)) return;
    await this.#objects.put(key, bytes);
    this.#known.add(key);
  }

  objectPath(sha: string): string {
    return objectPath(this.dir, sha);
  }

  /** Write rosters/<day>.json, or <day>.2.json, ... when that exists; returns the file name. */
  writeRoster(roster: Roster): string {
    const text = JSON.stringify(Roster.parse(roster), null, 1) + '\n';
    const tmp = tempName(rosterPath(this.dir, `.${roster.day}`));
    writeDurably(tmp, Buffer.from(text), this.#durable, this.#fx);
    try {
      for (let n = 1; n < 10_000; n++) {
        const name = n === 1 ? `${roster.day}.json` : `${roster.day}.${n}.json`;
        try {
          this.#fx.linkSync(tmp, rosterPath(this.dir, name)); // link fails on EEXIST: never overwrites
          if (this.#durable) fsyncPath(join(this.dir, LAYOUT.rosters), this.#fx);
          return name;
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        }
      }
      throw new Error(`too many rosters for ${roster.day}`);
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }

  /** A roster this archive holds; one that does not validate throws (the collector may not go on past bad data). */
  readRoster(file: string): Roster {
    return valueOrThrow(readRoster(this.dir, file), `${LAYOUT.rosters}/${file}`, null);
  }

  /** The roster file an earlier attempt of this run wrote (a resumed run reuses it), or null. */
  findRoster(day: string, runId: string): { file: string; roster: Roster } | null {
    for (const file of listRosterFiles(this.dir)) {
      if (!file.startsWith(`${day}.`)) continue;
      const roster = this.readRoster(file);
      if (roster.run_id === runId) return { file, roster };
    }
    return null;
  }

  /** Every run row so far, of every series (a run recording both has two); a line that does not validate throws. */
  readRuns(): AnyRun[] {
    const { runs, problems } = readRuns(this.dir);
    if (problems.length > 0) throw new InvalidArchiveError(problems[0]!);
    return runs;
  }

  /** The rows of a day's open file (where a run appends); a row that does not validate throws. */
  readObservations(day: string): Observation[] {
    const file = join(this.dir, dayFile(day));
    return fs.existsSync(file) ? dayFileRows(dayFile(day), fs.readFileSync(file, 'utf8')) : [];
  }

  /** The rows of a day's open v2 file (observations-v2/<day>.jsonl); a row that does not validate throws. */
  readObservationsV2(day: string): ObservationV2[] {
    const name = dayFile(day, false, SERIES_FOLDER.v2);
    const file = join(this.dir, name);
    return fs.existsSync(file) ? dayFileRowsV2(name, fs.readFileSync(file, 'utf8')) : [];
  }

  /** Append one validated row to observations/<day>.jsonl (one write of one whole line). */
  appendObservation(row: Observation): void {
    const valid = Observation.parse(row);
    this.#append('v1', valid.day, JSON.stringify(valid) + '\n');
  }

  /** Append one validated row of the v2 series to observations-v2/<day>.jsonl (one write of one whole line). */
  appendObservationV2(row: ObservationV2): void {
    const valid = ObservationV2.parse(row);
    this.#append('v2', valid.day, JSON.stringify(valid) + '\n');
  }

  #append(series: RunSeries, day: string, line: string): void {
    let open = this.#open.get(series);
    if (open?.day !== day) {
      this.#closeDay(series);
      const folder = join(this.dir, SERIES_FOLDER[series]);
      if (series !== 'v1') fs.mkdirSync(folder, { recursive: true });
      open = { fd: this.#fx.openSync(join(folder, `${day}.jsonl`), 'a'), day };
      this.#open.set(series, open);
    }
    this.#fx.writeSync(open.fd, line);
    if (++this.#unsynced >= 256 && this.#durable) this.sync();
  }

  /** Append a run row of either series (validated by its own schema: Run, or RunV2). */
  appendRun(row: AnyRun): void {
    const line = JSON.stringify(runSchemaOf(row).parse(row)) + '\n';
    this.sync();
    const fd = this.#fx.openSync(runsPath(this.dir), 'a');
    try {
      this.#fx.writeSync(fd, line);
      if (this.#durable) this.#fx.fsyncSync(fd);
    } finally {
      this.#fx.closeSync(fd);
    }
  }

  sync(): void {
    if (this.#durable) for (const { fd } of this.#open.values()) this.#fx.fdatasyncSync(fd);
    this.#unsynced = 0;
  }

  #closeDay(series: RunSeries): void {
    const open = this.#open.get(series);
    if (!open) return;
    this.#open.delete(series);
    if (this.#durable) this.#fx.fdatasyncSync(open.fd);
    this.#fx.closeSync(open.fd);
  }

  /** Flush, close and release the lock (idempotent; safe in an exit handler). */
  close(): void {
    if (this.#released) return;
    this.#released = true;
    try {
      for (const series of [...this.#open.keys()]) this.#closeDay(series);
    } finally {
      const held = readLock(this.lockPath);
      if (held?.pid === process.pid) fs.rmSync(this.lockPath, { force: true });
    }
  }
}

/**
 * holder(), given a moment to settle: a process just sent SIGKILL still runs (state R or D) for a few
 * milliseconds while the kernel tears it down, so a collector started right after the kill would be
 * refused. A holder that looks alive is looked at again for up to LOCK_SETTLE_MS; a live one is still
 * alive then, and the only cost is that a refusal comes that much later.
 */
function holderSettled(lock: LockInfo, proc: ProcView): Holder {
  let h = holder(lock, proc);
  const until = performance.now() + LOCK_SETTLE_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (h.state === 'alive' && performance.now() < until) {
    Atomics.wait(pause, 0, 0, 25); // a synchronous sleep: Store.open is synchronous
    h = holder(lock, proc);
  }
  return h;
}

const LOCK_SETTLE_MS = 2_000;

/** Every series' folder of day files (observations/, observations-v2/). */
function seriesFolders(): string[] {
  return RUN_SERIES.map((s) => SERIES_FOLDER[s]);
}

function readText(path: string): string | null {
  try {
    return fs.readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function listDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort();
  } catch {
    return [];
  }
}
