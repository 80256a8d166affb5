// What tools no one here wrote read in the /data/ files: datapackage.json by the Data
// Package spec's rules, the hash chain by a verifier written from the documentation alone (not from
// src/archive/chain.ts), and observation rows with one shape in every format. The archive is made by
// the collector over a month boundary with both series, its chain signed, then bundled twice: as a
// real build and as a simulated one (names carry -SIMULATED).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair } from '../../collector/ops/keys.ts';
import { DEMO_KEY_LABEL } from '../../src/lib/index.ts';
import { forgetArchive, loadArchive, type Archive } from '../../src/loader/load-archive.ts';
import type { ChangeView } from '../../src/loader/views.ts';
import { writeBundles } from '../../src/outputs/bundles.ts';
import { FINDING_FIELDS, findingRecords, resourceName } from '../../src/outputs/catalogue.ts';
import { writeServerFiles } from '../../src/outputs/server-files.ts';
import type { Publication } from '../../src/outputs/publication.ts';
import { collectArchive } from '../helpers/archive.ts';
import { SIMULATED_PUBLICATION, TEST_PUBLICATION, TEST_REGISTRY_SCHEMAS } from '../helpers/publication.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const tmp = scratchDirs();
interface Resource { name: string; path: string; format: string; rows: number | null; schema: { fields: { name: string; description: string }[] } }
interface Package { name: string; resources: Resource[] }

let archive: string;
let a: Archive;
const builds: Record<'real' | 'simulated', { out: string; pkg: Package }> = {} as never;

async function bundle(pub: Publication): Promise<{ out: string; pkg: Package }> {
  const out = tmp('mcp-schema-consumers-out-');
  await mkdir(out, { recursive: true });
  const written = await writeServerFiles(a, out, pub, TEST_REGISTRY_SCHEMAS);
  await writeBundles(a, out, { pub, cacheDir: path.join(out, 'cache'), written: written.bundles });
  return { out, pkg: JSON.parse(readFileSync(path.join(out, 'data', 'datapackage.json'), 'utf8')) as Package };
}

beforeAll(async () => {
  const key = generateKeyPair(DEMO_KEY_LABEL);
  // Dec 31 and Jan 1: two months, so every month has a JSON Lines, a CSV and a Parquet file.
  archive = await collectArchive({ seed: 'consumers', size: 16, days: 2, firstDay: 16, methodology: 'v1,v2', signer: key.signer }, tmp('mcp-schema-consumers-'));
  forgetArchive(archive);
  a = await loadArchive(archive);
  builds.real = await bundle(TEST_PUBLICATION);
  builds.simulated = await bundle(SIMULATED_PUBLICATION);
}, 300_000);

describe('datapackage.json, by the Data Package spec', () => {
  it.each(['real', 'simulated'] as const)('%s build: every resource name is unique, lower-case a-z 0-9 . _ - with no run of dashes, and reaches its own file', (build) => {
    const { pkg } = builds[build];
    const names = pkg.resources.map((r) => r.name);
    expect(names.length).toBeGreaterThan(10);
    // The spec: "MUST be unique amongst all resources", and the pattern ^([-a-z0-9._/])+$.
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[-a-z0-9._/]+$/);
    for (const n of names) expect(n, n).not.toMatch(/--/);
    // A library's getResource(name) returns the first resource of that name: each must be its own.
    for (const r of pkg.resources) expect(pkg.resources.find((x) => x.name === r.name)!.path).toBe(r.path);
    // The JSON Lines and CSV of one month are two resources.
    const month = a.months[0]!;
    const sim = build === 'simulated' ? '-SIMULATED' : '';
    const byPath = (p: string) => pkg.resources.find((r) => r.path === p)?.name;
    expect([byPath(`observations-${month}${sim}.jsonl.gz`), byPath(`observations-${month}${sim}.csv.gz`), byPath(`observations-${month}${sim}.parquet`)]).toEqual([`observations-${month}`, `observations-${month}-csv`, `observations-${month}-parquet`]);
  });

  it.each(['real', 'simulated'] as const)('%s build: every published data file is a resource, the hash chain included', (build) => {
    const { out, pkg } = builds[build];
    const listed = readFileSync(path.join(out, 'data', 'SHA256SUMS'), 'utf8').trimEnd().split('\n').map((l) => l.split(/\s+\*?/)[1]!);
    const data = listed.filter((f) => /\.(jsonl|csv|parquet)(\.gz)?$/.test(f));
    expect(data.some((f) => f.startsWith('chain'))).toBe(true);
    expect(data.filter((f) => !pkg.resources.some((r) => r.path === f))).toEqual([]);
    const chain = pkg.resources.find((r) => r.name === 'chain')!;
    expect(chain.path).toBe(build === 'simulated' ? 'chain-SIMULATED.jsonl' : 'chain.jsonl');
    expect(chain.rows).toBe(readFileSync(path.join(out, 'data', chain.path), 'utf8').trimEnd().split('\n').length);
    expect(chain.schema.fields.map((f) => f.name)).toContain('objects');
  });

  it('names files by one rule (resourceName)', () => {
    expect(resourceName('observations-2025-12-SIMULATED.jsonl.gz')).toBe('observations-2025-12');
    expect(resourceName('observations-2025-12.csv.gz')).toBe('observations-2025-12-csv');
    expect(resourceName('survival-SIMULATED.csv')).toBe('survival-csv');
    expect(resourceName('runs-v2.jsonl')).toBe('runs-v2');
    expect(resourceName('chain-SIMULATED.jsonl')).toBe('chain');
    expect(() => resourceName('SHA256SUMS')).toThrow();
  });
});

/**
 * A verifier written from the documentation (src/lib/README.md "objectSetText", DESIGN "Verifiable
 * history", the /data/ page and the chain resource's field notes): a run's object set is the distinct
 * lower-case hex names in its rows' body_sha256, registry_page_sha256, handshake_sha256 and each of
 * tools_pages_sha256, and in its roster's pages[].sha256; sorted; each followed by one LF.
 */
function documentedObjectSet(dir: string, m: { run_id: string; rows: { file: string }[]; roster: { file: string } | null }): string[] {
  const names = new Set<string>();
  const hex = (v: unknown) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
  for (const { file } of m.rows) {
    const abs = path.join(dir, file);
    const text = existsSync(abs) ? readFileSync(abs, 'utf8') : gunzipSync(readFileSync(`${abs}.gz`)).toString('utf8');
    for (const line of text.split('\n').filter(Boolean)) {
      const row = JSON.parse(line) as Record<string, unknown>;
      if (row.run_id !== m.run_id) continue;
      for (const f of ['body_sha256', 'registry_page_sha256', 'handshake_sha256']) if (hex(row[f])) names.add(row[f] as string);
      if (Array.isArray(row.tools_pages_sha256)) for (const v of row.tools_pages_sha256) if (hex(v)) names.add(v as string);
    }
  }
  if (m.roster) {
    const abs = path.join(dir, 'rosters', m.roster.file);
    const text = existsSync(abs) ? readFileSync(abs, 'utf8') : gunzipSync(readFileSync(`${abs}.gz`)).toString('utf8');
    for (const p of (JSON.parse(text) as { pages: { sha256: string }[] }).pages) names.add(p.sha256);
  }
  return [...names].sort();
}

describe('the hash chain, verified from its documentation', () => {
  it("recomputes every run manifest's object set (sorted lower-case hex, each followed by LF) from the published chain file", () => {
    const { out, pkg } = builds.simulated;
    const chainFile = pkg.resources.find((r) => r.name === 'chain')!.path;
    const manifests = readFileSync(path.join(out, 'data', chainFile), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { kind: string; run_id: string; rows: { file: string }[]; roster: { file: string } | null; objects: { lines: number; sha256: string } });
    const runs = manifests.filter((m) => m.kind === 'run');
    expect(runs.length).toBe(2);
    for (const m of runs) {
      const names = documentedObjectSet(archive, m);
      expect(names.length).toBeGreaterThan(2);
      const bytes = names.map((n) => `${n}\n`).join('');
      expect(m.objects).toEqual({ lines: names.length, sha256: createHash('sha256').update(bytes, 'utf8').digest('hex') });
    }
  });

  it('says the encoding where the manifest is documented, with the worked example', () => {
    const readme = readFileSync(path.join(import.meta.dirname, '..', '..', 'src', 'lib', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### `objectSetText(names)`'), readme.indexOf('### `chainHash('));
    expect(section).toMatch(/sorted, each followed by\s+one LF/);
    expect(section).toContain('lower-case hex');
    expect(section).toContain('913f9338fb6c17253f3a14816fc08d52522454bfc19a8c99538a197cfb23fb41');
    const field = builds.real.pkg.resources.find((r) => r.name === 'chain')!.schema.fields.find((f) => f.name === 'objects')!;
    expect(field.description).toMatch(/lower-case hex, sorted, each followed by one LF/);
  });
});

describe('observation rows: one shape in every format', () => {
  it('every JSON Lines row has every field of the contract, tools_set_hash included (null when null), in the CSV header\'s order', () => {
    const { out, pkg } = builds.real;
    const fields = pkg.resources.find((r) => r.path === 'observations.jsonl.gz')!.schema.fields.map((f) => f.name);
    const csvHeader = gunzipSync(readFileSync(path.join(out, 'data', 'observations.csv.gz'))).toString('utf8').split('\r\n')[0]!.split(',');
    expect(csvHeader).toEqual(fields);
    const rows = gunzipSync(readFileSync(path.join(out, 'data', 'observations.jsonl.gz'))).toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    // Not ok rows too: errors, no endpoint — the world has some.
    expect(rows.some((r) => r.outcome !== 'ok')).toBe(true);
    for (const r of rows) expect(Object.keys(r), String(r.target)).toEqual(fields);
    expect(rows.filter((r) => r.outcome !== 'ok').every((r) => r.tools_set_hash === null)).toBe(true);
    // The archive's own day files are what the bundle concatenates.
    for (const f of readdirSync(path.join(archive, 'observations'))) for (const l of readFileSync(path.join(archive, 'observations', f), 'utf8').trimEnd().split('\n')) expect(l).toContain('"tools_set_hash":');
  });

  it("findings keep a JSON null apart from an absent value: has_before / has_after, since Parquet reads both back as NULL", () => {
    const finding = (before: unknown, after: unknown) => ({ rule: 'r', axis: 'compatibility', level: 'INFO', tool: 't', path: '/default', fingerprint: 'f', message: 'm', ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) });
    const change = { target: 'x', day: '2026-01-01', runId: 'r', afterSha256: 'a'.repeat(64), findings: [finding(null, 1), finding(undefined, null)] } as unknown as ChangeView;
    const recs = findingRecords(change);
    expect(recs.map((r) => [r.before, r.has_before, r.after, r.has_after])).toEqual([[null, true, 1, true], [null, false, null, true]]);
    expect(FINDING_FIELDS.map((f) => f.name).slice(-2)).toEqual(['has_before', 'has_after']);
    expect(FINDING_FIELDS.find((f) => f.name === 'before')!.description).toContain('has_before');
  });
});
