// Methodology v2's rows in every format: per month and whole, CSV (each list one cell of
// JSON text) and Parquet (lists of strings as Parquet lists) beside the JSON Lines, read back by
// DuckDB and compared value by value with the JSON Lines rows parsed here with JSON.parse; listed in
// SHA256SUMS and datapackage.json (fields, their CSV and Parquet forms, the dialect), in the
// whole-archive mode, in the monthly parts mode and with a file host. The archive is the collector's
// (both series, across a month's end), plus one hand-made row that is a near miss for every format:
// an empty list, a null list, a list holding a comma and quotes, and text with commas, quotes,
// a semicolon and a line break.
import { createHash } from 'node:crypto';
import { appendFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObservationV2 } from '../../src/lib/index.ts';
import { forgetArchive, loadArchive, type Archive } from '../../src/loader/load-archive.ts';
import { writeBundles, type WrittenBundles } from '../../src/outputs/bundles.ts';
import { plannedBundles } from '../../src/outputs/catalogue.ts';
import { OBS_V2_COLUMNS } from '../../src/outputs/members.ts';
import type { Publication } from '../../src/outputs/publication.ts';
import { collectArchive } from '../helpers/archive.ts';
import { TEST_PUBLICATION as pub } from '../helpers/publication.ts';

type Row = Record<string, unknown>;
const LISTS = ['supported_versions', 'capabilities', 'tools_pages_sha256', 'tools_pages_content_types', 'auth_schemes', 'caching_missing'];
const NEAR_MISS = 'io.example/near-miss, "quoted"';

let dir: string;
let a: Archive;
let v2: Row[];
let out: string;
let written: WrittenBundles;
let db: DuckDBInstance;
let con: DuckDBConnection;
const dirs: string[] = [];

beforeAll(async () => {
  dir = await collectArchive({ seed: 'v2-formats', size: 24, days: 2, firstDay: 16, methodology: 'v1,v2' });
  // The near miss: a copy of an error row of the last day, its lists and text made awkward.
  const folder = path.join(dir, 'observations-v2');
  const last = readdirSync(folder).filter((f) => f.endsWith('.jsonl')).sort().at(-1)!;
  const lines = readFileSync(path.join(folder, last), 'utf8').split('\n').filter(Boolean);
  const error = JSON.parse(lines.find((l) => JSON.parse(l).outcome === 'error')!) as Row;
  const near = { ...error, target: NEAR_MISS, detail: 'first, "second"; third\r\nfourth line', supported_versions: [], capabilities: null, auth_schemes: ['bearer', 'odd, "scheme"'] };
  expect(ObservationV2.safeParse(near).success).toBe(true);
  appendFileSync(path.join(folder, last), `${JSON.stringify(near)}\n`);
  forgetArchive(dir);
  a = await loadArchive(dir);
  v2 = readdirSync(folder)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .flatMap((f) => readFileSync(path.join(folder, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row));
  out = await mkdtemp(path.join(os.tmpdir(), 'mcp-schema-v2-formats-'));
  dirs.push(out);
  written = await writeBundles(a, out, { pub, cacheDir: path.join(out, 'cache') });
  db = await DuckDBInstance.create(':memory:', { threads: '1' });
  con = await db.connect();
}, 240_000);

afterAll(async () => {
  con?.closeSync();
  db?.closeSync();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const data = (name: string) => path.join(out, 'data', name);
const rowsOf = async (sql: string) => (await con.runAndReadAll(sql)).getRowObjectsJS();
const months = () => [...new Set(v2.map((r) => String(r.day).slice(0, 7)))].sort();
const jsonlOf = (name: string) => gunzipSync(readFileSync(data(name))).toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row);
/** A DuckDB value as the JSON Lines holds it: BIGINT as a number, a LIST as an array. */
const plain = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : Array.isArray(v) ? v.map(plain) : v);

describe('methodology v2 rows as CSV and Parquet', () => {
  it('the archive has the near miss and rows over two months', () => {
    expect(months()).toEqual(['2025-12', '2026-01']);
    expect(v2.filter((r) => r.target === NEAR_MISS)).toHaveLength(1);
    expect(v2.some((r) => r.outcome === 'ok' && Array.isArray(r.tools_pages_sha256))).toBe(true);
  });

  it('are written per month and whole, beside the JSON Lines, with the JSON Lines rows', async () => {
    const names = written.site.map((f) => f.name);
    for (const m of months()) expect(names).toEqual(expect.arrayContaining([`observations-v2-${m}.jsonl.gz`, `observations-v2-${m}.csv.gz`, `observations-v2-${m}.parquet`]));
    expect(names).toEqual(expect.arrayContaining(['observations-v2.jsonl.gz', 'observations-v2.csv.gz']));
    expect(jsonlOf('observations-v2.jsonl.gz')).toEqual(v2);
    // What the page plans is what was written (the page renders before the files exist).
    expect(plannedBundles(a, pub).map((b) => b.name).filter((n) => n.startsWith('observations-v2')).sort()).toEqual(names.filter((n) => n.startsWith('observations-v2')).sort());
  });

  it('CSV, read by DuckDB: the contract\'s columns, one row per JSON Lines row, every value equal (a list is its JSON text)', async () => {
    // Rows of both kinds are here: modern ok rows with the caching fields of 2026-12-02, and rows without them.
    expect(v2.some((r) => typeof r.list_cache_scope === 'string') && v2.some((r) => r.list_cache_scope === undefined)).toBe(true);
    for (const file of ['observations-v2.csv.gz', ...months().map((m) => `observations-v2-${m}.csv.gz`)]) {
      const header = gunzipSync(readFileSync(data(file))).toString('utf8').split('\r\n')[0]!;
      expect(header.split(',')).toEqual(OBS_V2_COLUMNS);
      const expected = file === 'observations-v2.csv.gz' ? v2 : v2.filter((r) => String(r.day).startsWith(file.slice('observations-v2-'.length, -'.csv.gz'.length)));
      const rows = await rowsOf(`SELECT * FROM read_csv('${data(file)}', header = true, all_varchar = true, quote = '"', escape = '"', delim = ',', new_line = '\\r\\n')`);
      expect(rows.length, file).toBe(expected.length);
      rows.forEach((r, i) => {
        const want = expected[i]!;
        expect(Object.keys(r)).toEqual(OBS_V2_COLUMNS);
        for (const c of OBS_V2_COLUMNS) {
          const cell = r[c] as string | null;
          // A field a row does not have (added to the contract after it was written) is an empty cell, as null is.
          const v = want[c] ?? null;
          if (LISTS.includes(c)) expect(cell === null ? null : JSON.parse(cell), `${file} row ${i + 1} ${c}`).toEqual(v);
          else if (v === null || v === '') expect(cell, `${file} row ${i + 1} ${c}`).toBeNull();
          else expect(cell, `${file} row ${i + 1} ${c}`).toBe(String(v));
        }
      });
    }
    const near = (await rowsOf(`SELECT detail, supported_versions, capabilities, auth_schemes FROM read_csv('${data('observations-v2.csv.gz')}', header = true, all_varchar = true) WHERE target = '${NEAR_MISS.replace(/'/g, "''")}'`))[0]!;
    expect(near).toEqual({ detail: 'first, "second"; third\r\nfourth line', supported_versions: '[]', capabilities: null, auth_schemes: '["bearer","odd, \\"scheme\\""]' });
  });

  it('Parquet, read by DuckDB: lists of strings as Parquet lists, types from the contract, every value equal', async () => {
    for (const m of months()) {
      const file = data(`observations-v2-${m}.parquet`);
      const types = Object.fromEntries((await rowsOf(`DESCRIBE SELECT * FROM read_parquet('${file}')`)).map((r) => [r.column_name, r.column_type]));
      expect(Object.keys(types)).toEqual(OBS_V2_COLUMNS);
      expect(types).toMatchObject({ day: 'DATE', observed_at: 'TIMESTAMP WITH TIME ZONE', requests: 'BIGINT', latency_ms: 'DOUBLE', canary_sent: 'BOOLEAN', status: 'VARCHAR' });
      for (const c of LISTS) expect(types[c], c).toBe('VARCHAR[]');
      const rows = await rowsOf(`SELECT * REPLACE (CAST(day AS VARCHAR) AS day, CAST(epoch_ms(observed_at) AS BIGINT) AS observed_at) FROM read_parquet('${file}')`);
      const expected = v2.filter((r) => String(r.day).startsWith(m));
      expect(rows.length).toBe(expected.length);
      rows.forEach((r, i) => {
        const want = expected[i]!;
        for (const c of OBS_V2_COLUMNS) {
          const got = c === 'observed_at' ? new Date(Number(r[c])).toISOString() : plain(r[c]);
          const v = c === 'observed_at' ? new Date(String(want[c])).toISOString() : (want[c] ?? null);
          expect(got, `${m} row ${i + 1} ${c}`).toEqual(v);
        }
      });
    }
    const near = (await rowsOf(`SELECT detail, supported_versions, capabilities, auth_schemes, len(supported_versions) AS n FROM read_parquet('${data('observations-v2-2026-01.parquet')}') WHERE target = '${NEAR_MISS.replace(/'/g, "''")}'`))[0]!;
    expect(Object.fromEntries(Object.entries(near).map(([k, v]) => [k, plain(v)]))).toEqual({ detail: 'first, "second"; third\r\nfourth line', supported_versions: [], capabilities: null, auth_schemes: ['bearer', 'odd, "scheme"'], n: 0 });
  });

  it('are in SHA256SUMS and in datapackage.json, with every field, its CSV or Parquet form and the CSV dialect', async () => {
    const sums = new Map(readFileSync(data('SHA256SUMS'), 'utf8').trim().split('\n').map((l) => l.split('  ').reverse() as [string, string]));
    const pkg = JSON.parse(await readFile(data('datapackage.json'), 'utf8')) as { notes: string; resources: { name: string; path: string; format: string; rows: number; hash: string; dialect?: unknown; schema: { fields: { name: string; type: string; description: string }[] } }[] };
    const v2Files = written.site.filter((f) => f.resource === 'observations-v2');
    expect(v2Files.length).toBe(3 * months().length + 2);
    for (const f of v2Files) {
      const hash = createHash('sha256').update(readFileSync(data(f.name))).digest('hex');
      expect(sums.get(f.name), f.name).toBe(hash);
      const r = pkg.resources.find((x) => x.path === f.name)!;
      expect(r.hash, f.name).toBe(`sha256:${hash}`);
      expect(r.rows, f.name).toBe(f.name.startsWith('observations-v2.') ? v2.length : v2.filter((x) => f.name.includes(String(x.day).slice(0, 7))).length);
      expect(r.schema.fields.map((x) => x.name)).toEqual(OBS_V2_COLUMNS);
      const format = f.name.endsWith('.parquet') ? 'parquet' : f.name.includes('.csv') ? 'csv' : 'jsonl';
      expect(r.format).toBe(format);
      expect(r.dialect !== undefined, f.name).toBe(format === 'csv');
      for (const field of r.schema.fields.filter((x) => LISTS.includes(x.name))) {
        expect(field.type).toBe('array');
        if (format === 'csv') expect(field.description, field.name).toMatch(/In CSV: JSON text \(a JSON array, \[\] when empty\), an empty cell when null\.$/);
        else if (format === 'parquet') expect(field.description, field.name).toMatch(/In Parquet: a list \(VARCHAR\[\]\), empty when empty, NULL when null\.$/);
        else expect(field.description, field.name).not.toMatch(/In (CSV|Parquet):/);
      }
    }
    expect(new Set(pkg.resources.map((r) => r.name)).size).toBe(pkg.resources.length);
  });

  it('in the monthly parts mode (MCP_SCHEMA_RELEASE=parts): the months\' CSV and Parquet, no whole file; with a file host, named by its URL', async () => {
    const parts = await mkdtemp(path.join(os.tmpdir(), 'mcp-schema-v2-formats-parts-'));
    dirs.push(parts);
    const hosted: Publication = { ...pub, partsOnly: true, fileHost: { dir: path.join(parts, 'files'), url: 'https://files.example.org/' } };
    const w = await writeBundles(a, parts, { pub: hosted, cacheDir: path.join(out, 'cache') });
    const names = w.site.filter((f) => f.resource === 'observations-v2').map((f) => f.name).sort();
    expect(names).toEqual(months().flatMap((m) => [`observations-v2-${m}.csv.gz`, `observations-v2-${m}.jsonl.gz`, `observations-v2-${m}.parquet`]).sort());
    expect(plannedBundles(a, hosted).filter((b) => b.resource === 'observations-v2').map((b) => b.name).sort()).toEqual(names);
    // The same bytes as the whole-archive build's month files (the cache is shared; the files are not).
    for (const n of names) expect(readFileSync(path.join(parts, 'data', n)).equals(readFileSync(data(n))), n).toBe(true);
    const sums = readFileSync(path.join(parts, 'data', 'SHA256SUMS'), 'utf8');
    const pkg = JSON.parse(readFileSync(path.join(parts, 'data', 'datapackage.json'), 'utf8')) as { resources: { path: string }[] };
    for (const n of names) {
      expect(sums).toContain(`  ${n}\n`);
      expect(pkg.resources.map((r) => r.path)).toContain(`https://files.example.org/data/${n}`);
    }
  });
});
