// Goldens of every public format the outputs write (test/output/), from a frozen collector-made archive
// (fixtures/archive/golden, see its PROVENANCE): datapackage.json, CITATION.cff, the drift feed as RSS
// and JSON Feed, /api/servers/<slug>.json, and the header of each CSV (more descriptors, with the
// tools and set files, in descriptors.test.ts). The input is fixed bytes, so
// the only normalisation is of gzip output (bytes and SHA-256 of .gz files depend on the zlib build).
// A change to any of these formats shows up here as a -changed file to review.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArchive, type Archive } from '../../src/loader/load-archive.ts';
import { slugFor } from '../../src/lib/slug.ts';
import { writeBundles } from '../../src/outputs/bundles.ts';
import { driftChannel, jsonFeed, rssFeed } from '../../src/outputs/feeds.ts';
import { serverApiJson, writeServerFiles } from '../../src/outputs/server-files.ts';
import { HOSTILE_NAME } from '../helpers/archive.ts';
import { GOLDEN } from '../helpers/golden-archive.ts';
import { expectGolden } from '../helpers/golden.ts';
import { TEST_PUBLICATION as pub, TEST_REGISTRY_SCHEMAS } from '../helpers/publication.ts';

const ARCHIVE = GOLDEN;

let a: Archive;
let out: string;
beforeAll(async () => {
  a = await loadArchive(ARCHIVE);
  out = await mkdtemp(path.join(os.tmpdir(), 'mcp-schema-formats-'));
  const written = await writeServerFiles(a, out, pub, TEST_REGISTRY_SCHEMAS);
  await writeBundles(a, out, { pub, cacheDir: path.join(out, 'cache'), written: written.bundles });
}, 120_000);
afterAll(async () => {
  if (out) await rm(out, { recursive: true, force: true });
});

const data = (name: string) => readFile(path.join(out, 'data', name));

describe('the public formats, against their goldens', () => {
  it('the archive holds what the goldens are about: changes, errors, hostile names, no problems', () => {
    expect(a.problems).toEqual([]);
    expect(a.changes.length).toBeGreaterThan(0);
    expect(a.servers.some((s) => s.status === 'error')).toBe(true);
    expect(a.bySlug.has(slugFor(HOSTILE_NAME))).toBe(true);
  });

  it('datapackage.json (gzip bytes and hashes normalised)', async () => {
    const pkg = JSON.parse((await data('datapackage.json')).toString('utf8')) as { resources: Record<string, unknown>[] };
    for (const r of pkg.resources) {
      // gzip bytes depend on the zlib build; Parquet's are pinned by the DuckDB version (test/outputs/parquet.test.ts
      // checks they repeat) but kept out of this golden, which is about the format.
      if (r.compression === 'gz') {
        r.bytes = '<gzip bytes>';
        r.hash = 'sha256:<gzip sha256>';
      } else if (r.format === 'parquet') {
        r.bytes = '<parquet bytes>';
        r.hash = 'sha256:<parquet sha256>';
      }
    }
    await expectGolden('datapackage.json', `${JSON.stringify(pkg, null, 2)}\n`);
  });

  it('datapackage.json describes each key of a runs line and of a rosters line as a field of its own', async () => {
    const pkg = JSON.parse((await data('datapackage.json')).toString('utf8')) as { resources: { path: string; schema: { fields: { name: string }[] } }[] };
    const fields = (file: string) => pkg.resources.find((r) => r.path === file)!.schema.fields.map((f) => f.name);
    const runs = (await data('runs.jsonl')).toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as object);
    const rosters = gunzipSync(await data('rosters.jsonl.gz')).toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as object);
    expect(runs.length).toBeGreaterThan(0);
    expect(rosters.length).toBeGreaterThan(0);
    // scheduling is the one key added after v1 shipped: lines written before it lack it.
    for (const r of runs) expect(Object.keys(r)).toEqual(fields('runs.jsonl').filter((f) => f !== 'scheduling' || 'scheduling' in r));
    for (const r of rosters) expect(Object.keys(r)).toEqual(fields('rosters.jsonl.gz'));
    expect(fields('runs.jsonl')).toHaveLength(21);
    expect(fields('runs.jsonl').at(-1)).toBe('scheduling');
    expect(fields('rosters.jsonl.gz')).toHaveLength(9);
  });

  it('CITATION.cff', async () => {
    await expectGolden('CITATION.cff', (await data('CITATION.cff')).toString('utf8'));
  });

  it('the CSV headers (observations, contract intervals, survival)', async () => {
    const first = (b: Buffer) => b.toString('utf8').split(/\r?\n/)[0];
    const headers = [
      `observations.csv.gz: ${first(gunzipSync(await data('observations.csv.gz')))}`,
      `contract-intervals.csv: ${first(await data('contract-intervals.csv'))}`,
      `survival.csv: ${first(await data('survival.csv'))}`,
    ];
    await expectGolden('csv-headers.txt', `${headers.join('\n')}\n`);
  });

  it('the drift feed, RSS 2.0', async () => {
    await expectGolden('drift.xml', await rssFeed(a.changes, driftChannel(a.empty), pub));
  });

  it('the drift feed, JSON Feed 1.1', async () => {
    await expectGolden('drift.json', jsonFeed(a.changes, driftChannel(a.empty), pub));
  });

  it('/api/servers/<slug>.json of a server that changed (hostile text) and of one that fails', async () => {
    const hostile = a.bySlug.get(slugFor(HOSTILE_NAME))!;
    const failing = a.servers.find((s) => s.status === 'error')!;
    // Compact JSON on the site; indented here, to review.
    const pretty = (json: string) => `${JSON.stringify(JSON.parse(json), null, 2)}\n`;
    await expectGolden('api-server-with-changes.json', pretty(await serverApiJson(a, hostile, pub, TEST_REGISTRY_SCHEMAS)));
    await expectGolden('api-server-failing.json', pretty(await serverApiJson(a, failing, pub, TEST_REGISTRY_SCHEMAS)));
  });
});
