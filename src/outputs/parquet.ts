// The Parquet bundles: observations, roster targets, changes and findings (one row per
// finding, flattened out of the changes) per month, methodology v2's rows per month (its
// lists of strings as Parquet lists), runs and contract intervals whole — for DuckDB,
// BigQuery or Spark without parsing gigabytes of JSON. Written by DuckDB (@duckdb/node-api, pinned)
// from JSON Lines it reads itself, in bounded memory:
//   - observations of both series from the month's JSON Lines part the bundles wrote (its days' members
//     concatenated: the same rows in the same order, so no day file is read again), with the columns of
//     catalogue.ts ROW_SERIES (the CSV's too), roster targets from the rosters'
//     members, the derived tables from JSON Lines of their catalogue records written here;
//   - the same input gives the same bytes: one thread, insertion order kept (the files' order), an
//     explicit schema (parquet-schema.ts: from the zod contracts), ZSTD, a fixed row-group size, and
//     key-value metadata that names no clock; the pinned DuckDB version is the writer's version;
//   - closed months are cached under the build cache by the content of what they hold, so a daily
//     build writes the current month again and copies the others (with `prune`, the deploy's, a cached
//     month this build did not use is removed).
// Flat names (`observations-2025-12.parquet`), not hive folders (`month=2025-12/`): over HTTP no
// reader can list a folder, so files are named one by one anyway; locally and in object storage a glob
// (`observations-*.parquet`) reads them all, and every file carries its `day` column.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { Roster, RosterTarget, Run } from '../lib/index.ts';
import type { Archive } from '../loader/views.ts';
import { CHANGE_FIELDS, changeRecord, FINDING_FIELDS, findingRecords, INTERVAL_FIELDS, ROW_SERIES, v2Months, type ResourceName, type RowSeries } from './catalogue.ts';
import { columnsLiteral, columnsOf, duckType, fieldType, quoteIdent, quoteString } from './parquet-schema.ts';
import { SIMULATED_NOTE, type Publication } from './publication.ts';

/** Bump when what a Parquet file holds or how it is written changes: cached months are keyed by it. */
export const PARQUET_RULES = 'parquet-1';
/** Rows per row group: fixed, so the bytes do not depend on how DuckDB would choose. */
export const ROW_GROUP_SIZE = 122_880;
/** DuckDB's memory cap while writing: it spills to the cache folder past it. */
export const MEMORY_LIMIT = '512MB';

export interface ParquetFile {
  name: string;
  resource: ResourceName;
  /** Where it was written; null for a file `skip` named (not written). */
  file: string | null;
  rows: number;
}

/** Where the inputs are: a month's rows of each series as gzipped JSON Lines (the month's part, or its days' members, in day order), the roster members of a month. */
export interface ParquetSources {
  dayMembers(month: string): Promise<string[]>;
  v2DayMembers(month: string): Promise<string[]>;
  rosterMembers(month: string): Promise<string[]>;
}

/**
 * Write every Parquet file of the archive. `target(name)` is where a file goes (the site's /data/ or
 * the release folder, with the published name); `cacheDir` holds cached months and DuckDB's spill.
 */
export async function writeParquetBundles(
  a: Archive,
  opts: {
    pub: Pick<Publication, 'simulated'>;
    cacheDir: string;
    sources: ParquetSources;
    target: (name: string) => string;
    /** Files not to write (a sealed month's, on the file host already): listed in order with `file: null`, their sources never asked for. */
    skip?: (name: string) => boolean;
    /** Remove the cached months this build did not use (the deploy's build, whose cache is its own). */
    prune?: boolean;
  },
): Promise<ParquetFile[]> {
  const work = path.join(opts.cacheDir, 'parquet');
  const tmp = path.join(work, `tmp-${process.pid}`);
  mkdirSync(tmp, { recursive: true });
  const db = await DuckDBInstance.create(':memory:', { threads: '1', memory_limit: MEMORY_LIMIT, preserve_insertion_order: 'true', temp_directory: path.join(tmp, 'spill') });
  const con = await db.connect();
  const out: ParquetFile[] = [];
  const kv = kvMetadata(opts.pub);
  // Cached months this build used: the others (months that left the window or were sealed) are removed after.
  const used = new Set<string>();
  try {
    const skipped = (name: string, resource: ResourceName) => {
      if (!opts.skip?.(name)) return false;
      out.push({ name, resource, file: null, rows: 0 });
      return true;
    };
    const write = async (name: string, resource: ResourceName, select: string, cacheKey: string | null) => {
      const dest = opts.target(name);
      mkdirSync(path.dirname(dest), { recursive: true });
      const cached = cacheKey ? path.join(work, `${cacheKey}.parquet`) : null;
      if (cached) used.add(cached);
      if (!cached || !existsSync(cached)) {
        const part = path.join(tmp, `${name}.part`);
        await con.run(copySql(select, part, kv));
        if (cached) renameSync(part, cached);
        else renameSync(part, dest);
      }
      if (cached) copy(cached, dest);
      out.push({ name, resource, file: dest, rows: await count(con, dest) });
    };
    const jsonl = (name: string, lines: Iterable<string>) => {
      const file = path.join(tmp, `${name}.jsonl`);
      const parts: string[] = [];
      for (const l of lines) parts.push(l);
      writeFileSync(file, parts.length ? `${parts.join('\n')}\n` : '');
      return file;
    };

    const obsCols = ROW_SERIES.observations.parquet();
    const rosterCols: [string, string][] = (['day', 'run_id', 'fetched_at', 'complete'] as const).map((k) => [k, duckType(Roster.shape[k])]);
    const targetCols = columnsOf(RosterTarget);
    const changeCols = CHANGE_FIELDS.map((f) => [f.name, fieldType(f)] as [string, string]);
    const findingCols = FINDING_FIELDS.map((f) => [f.name, fieldType(f)] as [string, string]);
    for (const month of a.months) {
      if (!skipped(`observations-${month}.parquet`, 'observations')) {
        const days = await opts.sources.dayMembers(month);
        const dayKeys = a.dayFiles.filter((d) => d.day.startsWith(month)).map((d) => d.key);
        await write(`observations-${month}.parquet`, 'observations', fromJson(days, obsCols), key('observations', dayKeys, obsCols, kv));
      }
      if (!skipped(`roster-targets-${month}.parquet`, 'roster-targets')) {
        const rosters = await opts.sources.rosterMembers(month);
        const targets = `SELECT ${rosterCols.map(([k]) => quoteIdent(k)).join(', ')}, ${targetCols.map(([k]) => `t.${quoteIdent(k)} AS ${quoteIdent(k)}`).join(', ')} FROM (SELECT ${rosterCols.map(([k]) => quoteIdent(k)).join(', ')}, unnest(targets) AS t FROM (${fromJson(rosters, [...rosterCols, ['targets', duckType(Roster.shape.targets)]])}))`;
        await write(`roster-targets-${month}.parquet`, 'roster-targets', rosters.length ? targets : empty([...rosterCols, ...targetCols]), key('roster-targets', rosters, [...rosterCols, ...targetCols], kv));
      }
      // Changes are newest first in the archive view; files read oldest first, as the JSONL log does.
      const changes = () => a.changes.filter((c) => c.day.startsWith(month)).reverse();
      if (!skipped(`changes-${month}.parquet`, 'changes')) await write(`changes-${month}.parquet`, 'changes', fromJson([jsonl(`changes-${month}`, changes().map((c) => JSON.stringify(changeRecord(c))))], changeCols), null);
      if (!skipped(`findings-${month}.parquet`, 'findings')) await write(`findings-${month}.parquet`, 'findings', fromJson([jsonl(`findings-${month}`, changes().flatMap((c) => findingRecords(c).map((r) => JSON.stringify(r))))], findingCols), null);
    }
    // Methodology v2's rows, per month of its own (catalogue.ts parquetNames keeps this order).
    const v2Cols = ROW_SERIES['observations-v2'].parquet();
    for (const month of v2Months(a)) {
      if (skipped(`observations-v2-${month}.parquet`, 'observations-v2')) continue;
      const days = await opts.sources.v2DayMembers(month);
      const dayKeys = (a.v2?.dayFiles ?? []).filter((d) => d.day.startsWith(month)).map((d) => d.key);
      await write(`observations-v2-${month}.parquet`, 'observations-v2', fromJson(days, v2Cols), key('observations-v2', dayKeys, v2Cols, kv));
    }
    if (!skipped('runs.parquet', 'runs')) await write('runs.parquet', 'runs', fromJson([jsonl('runs', a.runs.map((r) => JSON.stringify(r)))], columnsOf(Run)), null);
    if (!skipped('contract-intervals.parquet', 'contract-intervals')) await write('contract-intervals.parquet', 'contract-intervals', fromJson([jsonl('intervals', a.intervals.map((i) => JSON.stringify(i)))], INTERVAL_FIELDS.map((f) => [f.name, fieldType(f)])), null);
    if (opts.prune) for (const name of readdirSync(work)) if (name.endsWith('.parquet') && !used.has(path.join(work, name))) rmSync(path.join(work, name), { force: true });
  } finally {
    con.closeSync();
    db.closeSync();
    rmSync(tmp, { recursive: true, force: true });
  }
  return out;
}

/**
 * The observations step alone (bench/parquet.ts): a writer that turns day files (JSONL, plain or gzip)
 * of a row series (v1's by default) into one Parquet file each call, with the same SQL, columns,
 * settings and metadata as the bundles; returns the rows written.
 */
export async function observationsParquetWriter(tmp: string, pub: Pick<Publication, 'simulated'>, series: RowSeries = 'observations'): Promise<{ write(files: readonly string[], out: string): Promise<number>; close(): void }> {
  mkdirSync(tmp, { recursive: true });
  const db = await DuckDBInstance.create(':memory:', { threads: '1', memory_limit: MEMORY_LIMIT, preserve_insertion_order: 'true', temp_directory: path.join(tmp, 'spill') });
  const con = await db.connect();
  const kv = kvMetadata(pub);
  return {
    async write(files, out) {
      await con.run(copySql(fromJson(files, ROW_SERIES[series].parquet()), out, kv));
      return count(con, out);
    },
    close() {
      con.closeSync();
      db.closeSync();
    },
  };
}

/** The COPY statement every Parquet file is written with. */
function copySql(select: string, out: string, kv: string): string {
  return `COPY (${select}) TO ${quoteString(out)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_SIZE}, KV_METADATA ${kv})`;
}

/** The DuckDB version that writes the files (its bytes are the writer's, so it is part of every cache key). */
export function duckdbVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('@duckdb/node-api/package.json') as { version: string }).version;
}

/** A roster of the full registry is ~9 MB on one line; 64 MiB leaves room without reserving much memory. */
const MAX_LINE = 64 * 1024 * 1024;

/** SELECT every column of newline-delimited JSON files (gzip or plain) with an explicit schema, in file order. */
function fromJson(files: readonly string[], cols: readonly (readonly [string, string])[]): string {
  if (files.length === 0) return empty(cols);
  const list = `[${files.map(quoteString).join(', ')}]`;
  return `SELECT ${cols.map(([k]) => quoteIdent(k)).join(', ')} FROM read_json(${list}, format = 'newline_delimited', columns = ${columnsLiteral(cols)}, maximum_object_size = ${MAX_LINE}, compression = 'auto_detect')`;
}

/** No rows, the right columns: a month with no change still has its (empty) file. */
function empty(cols: readonly (readonly [string, string])[]): string {
  return `SELECT ${cols.map(([k, t]) => `CAST(NULL AS ${t}) AS ${quoteIdent(k)}`).join(', ')} WHERE false`;
}

function kvMetadata(pub: Pick<Publication, 'simulated'>): string {
  const kv: Record<string, string> = { source: 'mcp-schema', licence: 'CC-BY-4.0', writer: `duckdb ${duckdbVersion()}` };
  if (pub.simulated) Object.assign(kv, { simulated: 'true', simulated_note: SIMULATED_NOTE });
  return `{${Object.entries(kv).map(([k, v]) => `${k}: ${quoteString(v)}`).join(', ')}}`;
}

function key(table: string, inputs: readonly string[], cols: readonly (readonly [string, string])[], kv: string): string {
  return createHash('sha256').update(JSON.stringify([PARQUET_RULES, duckdbVersion(), table, cols, kv, inputs])).digest('hex');
}

async function count(con: DuckDBConnection, file: string): Promise<number> {
  const r = await con.runAndReadAll(`SELECT count(*) FROM read_parquet(${quoteString(file)})`);
  return Number(r.getRows()[0]![0]);
}

function copy(from: string, to: string): void {
  rmSync(to, { force: true });
  copyFileSync(from, to);
}
