// The Parquet bundles, read back by DuckDB: every file has the row count of its CSV or JSON Lines
// twin and the same values (an observation row rebuilt from Parquet writes the very CSV line of the
// CSV bundle), the same input gives the same bytes, the types come from the contracts, and a simulated
// build's files say so in their name and their key-value metadata.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArchive, type Archive } from '../../src/loader/load-archive.ts';
import { writeBundles, type WrittenBundles } from '../../src/outputs/bundles.ts';
import { INTERVAL_FIELDS } from '../../src/outputs/catalogue.ts';
import { csvLine, OBS_COLUMNS } from '../../src/outputs/members.ts';
import { GOLDEN } from '../helpers/golden-archive.ts';
import { SIMULATED_PUBLICATION, TEST_PUBLICATION as pub } from '../helpers/publication.ts';

let a: Archive;
let out: string;
let again: string;
let written: WrittenBundles;
let con: DuckDBConnection;
let db: DuckDBInstance;
const dirs: string[] = [];

beforeAll(async () => {
  a = await loadArchive(GOLDEN);
  out = await mkdtemp(path.join(os.tmpdir(), 'mcp-schema-parquet-'));
  again = await mkdtemp(path.join(os.tmpdir(), 'mcp-schema-parquet-again-'));
  dirs.push(out, again);
  written = await writeBundles(a, out, { pub, cacheDir: path.join(out, 'cache') });
  await writeBundles(a, again, { pub, cacheDir: path.join(again, 'cache') });
  db = await DuckDBInstance.create(':memory:', { threads: '1' });
  con = await db.connect();
}, 180_000);

afterAll(async () => {
  con?.closeSync();
  db?.closeSync();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const data = (name: string) => path.join(out, 'data', name);
const rowsOf = async (sql: string) => (await con.runAndReadAll(sql)).getRowObjectsJS();

describe('the Parquet bundles', () => {
  it('are listed with their rows, bytes and SHA-256 in SHA256SUMS and datapackage.json', async () => {
    const names = written.site.filter((f) => f.name.endsWith('.parquet')).map((f) => f.name);
    expect(names).toEqual(expect.arrayContaining(['observations-2025-12.parquet', 'roster-targets-2025-12.parquet', 'changes-2025-12.parquet', 'findings-2025-12.parquet', 'runs.parquet', 'contract-intervals.parquet']));
    const sums = (await readFile(data('SHA256SUMS'), 'utf8')).trim().split('\n').map((l) => l.split('  ').reverse());
    const pkg = JSON.parse(await readFile(data('datapackage.json'), 'utf8')) as { resources: { path: string; format: string; hash: string; rows: number }[] };
    for (const name of names) {
      const hash = createHash('sha256').update(await readFile(data(name))).digest('hex');
      expect(Object.fromEntries(sums)[name]).toBe(hash);
      const r = pkg.resources.find((x) => x.path === name)!;
      expect(r.format).toBe('parquet');
      expect(r.hash).toBe(`sha256:${hash}`);
    }
  });

  it('have the same bytes when written again from the same archive (fresh cache)', async () => {
    for (const f of (await readdir(path.join(out, 'data'))).filter((n) => n.endsWith('.parquet'))) {
      expect((await readFile(path.join(again, 'data', f))).equals(await readFile(data(f))), f).toBe(true);
    }
  });

  it('observations: the CSV bundle\'s row count and values, row for row', async () => {
    const csv = gunzipSync(await readFile(data('observations-2025-12.csv.gz'))).toString('utf8').split('\r\n').slice(1, -1);
    const rows = await rowsOf(`SELECT * REPLACE (CAST(day AS VARCHAR) AS day, CAST(epoch_ms(observed_at) AS BIGINT) AS observed_at) FROM read_parquet('${data('observations-2025-12.parquet')}')`);
    expect(rows.length).toBe(csv.length);
    expect(rows.length).toBe(a.rowCount);
    rows.forEach((r, i) => {
      const row = Object.fromEntries(OBS_COLUMNS.map((c) => {
        const v = r[c];
        if (c === 'observed_at') return [c, new Date(Number(v)).toISOString()];
        return [c, typeof v === 'bigint' ? Number(v) : v];
      }));
      expect(csvLine(OBS_COLUMNS.map((c) => row[c])), `row ${i + 1}`).toBe(`${csv[i]}\r\n`);
    });
  });

  it('observations: types from the zod contract (a day is a DATE, an instant a TIMESTAMP WITH TIME ZONE, counts BIGINT)', async () => {
    const types = Object.fromEntries((await rowsOf(`DESCRIBE SELECT * FROM read_parquet('${data('observations-2025-12.parquet')}')`)).map((r) => [r.column_name, r.column_type]));
    expect(Object.keys(types)).toEqual(OBS_COLUMNS);
    expect(types).toMatchObject({ day: 'DATE', observed_at: 'TIMESTAMP WITH TIME ZONE', tool_count: 'BIGINT', latency_ms: 'DOUBLE', session: 'BOOLEAN', outcome: 'VARCHAR' });
  });

  it('contract intervals: the CSV\'s rows and values', async () => {
    const csv = (await readFile(data('contract-intervals.csv'), 'utf8')).split('\r\n').slice(1, -1);
    const rows = await rowsOf(`SELECT * REPLACE (CAST(start_day AS VARCHAR) AS start_day, CAST(end_day AS VARCHAR) AS end_day) FROM read_parquet('${data('contract-intervals.parquet')}')`);
    expect(rows.map((r) => csvLine(INTERVAL_FIELDS.map((f) => (typeof r[f.name] === 'bigint' ? Number(r[f.name]) : r[f.name]))))).toEqual(csv.map((l) => `${l}\r\n`));
  });

  it('runs, changes, findings and roster targets: the row counts of their JSON Lines twins', async () => {
    const count = async (f: string) => Number((await rowsOf(`SELECT count(*) AS n FROM read_parquet('${data(f)}')`))[0]!.n);
    expect(await count('runs.parquet')).toBe((await readFile(data('runs.jsonl'), 'utf8')).trim().split('\n').length);
    const changes = gunzipSync(await readFile(data('changes.jsonl.gz'))).toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as { findings: unknown[]; target: string });
    expect(await count('changes-2025-12.parquet')).toBe(changes.length);
    expect(await count('findings-2025-12.parquet')).toBe(changes.reduce((n, c) => n + c.findings.length, 0));
    const rosters = gunzipSync(await readFile(data('rosters.jsonl.gz'))).toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as { targets: unknown[] });
    expect(await count('roster-targets-2025-12.parquet')).toBe(rosters.reduce((n, r) => n + r.targets.length, 0));
    const targets = (await rowsOf(`SELECT target FROM read_parquet('${data('changes-2025-12.parquet')}')`)).map((r) => r.target);
    expect(targets).toEqual(changes.map((c) => c.target));
    const runs = await rowsOf(`SELECT outcomes.ok AS ok FROM read_parquet('${data('runs.parquet')}')`);
    expect(runs.map((r) => Number(r.ok))).toEqual(a.runs.map((r) => r.outcomes.ok));
  });

  it('in a simulated build: SIMULATED in every name and in the key-value metadata', async () => {
    const sim = await mkdtemp(path.join(os.tmpdir(), 'mcp-schema-parquet-sim-'));
    dirs.push(sim);
    const w = await writeBundles(a, sim, { pub: SIMULATED_PUBLICATION, cacheDir: path.join(sim, 'cache') });
    const parquet = w.site.filter((f) => f.name.endsWith('.parquet'));
    expect(parquet.length).toBe(written.site.filter((f) => f.name.endsWith('.parquet')).length);
    for (const f of parquet) {
      expect(f.name).toMatch(/-SIMULATED\.parquet$/);
      const kv = await rowsOf(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${path.join(sim, 'data', f.name)}')`);
      expect(kv).toContainEqual({ k: 'simulated', v: 'true' });
    }
  });
});
