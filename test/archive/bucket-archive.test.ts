// An archive whose bulk lives only in an S3-compatible bucket: a checkout holds rows,
// rosters, runs and the chain; objects/ and pages/ are in the bucket (a real S3 server on 127.0.0.1,
// test/helpers/s3-server.ts). Read through the store the archive folder caches, every object and every
// packed page resolves to the same bytes, the loader derives the same archive as from the full
// folder, and the site's raw-body copy publishes the same files.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateArchive } from '../../collector/ops/migrate.ts';
import { CachedStore } from '../../src/archive/cached-store.ts';
import { FsObjectStore } from '../../src/archive/object-store.ts';
import { readObject, useObjectStore } from '../../src/archive/objects.ts';
import { listRosterFiles, readRoster } from '../../src/archive/rosters.ts';
import { S3ObjectStore } from '../../src/archive/s3-store.ts';
import { forgetArchive, loadArchive } from '../../src/loader/load-archive.ts';
import { copyLinkedObjects } from '../../src/outputs/linked-objects.ts';
import { collectArchive } from '../helpers/archive.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';

let server: S3TestServer;
let full: string;
let checkout: string;
let remote: S3ObjectStore;
const scratch: string[] = [];
const temp = (p: string) => {
  const d = mkdtempSync(join(tmpdir(), p));
  scratch.push(d);
  return d;
};

beforeAll(async () => {
  server = await startS3Server();
  full = await collectArchive({ seed: 'bucket', size: 30, days: 3 });
  await migrateArchive(full);
  remote = new S3ObjectStore({ endpoint: server.endpoint, bucket: server.bucket, prefix: 'archive', credentials: server.credentials });
  const local = new FsObjectStore(full);
  for (const top of ['objects/', 'pages/']) for await (const key of local.list(top)) await remote.put(key, (await local.get(key))!);
  // The checkout: everything but the bulk.
  checkout = temp('mcps-checkout-');
  cpSync(full, checkout, { recursive: true, filter: (src) => !/[/\\](objects|pages)([/\\]|$)/.test(src.slice(full.length)) });
  useObjectStore(checkout, new CachedStore(remote, new FsObjectStore(checkout)));
}, 120_000);
afterAll(async () => {
  forgetArchive();
  await server?.close();
  for (const d of [full, ...scratch]) if (d) rmSync(d, { recursive: true, force: true });
});

function pageShas(dir: string): string[] {
  return listRosterFiles(dir).flatMap((f) => {
    const r = readRoster(dir, f);
    return r.ok ? r.value.pages.flatMap((p) => (p.sha256 ? [p.sha256] : [])) : [];
  });
}

describe('an archive whose objects live in a bucket', () => {
  it('the checkout has no objects of its own, yet every page reads back as the same bytes', async () => {
    expect(readdirSync(checkout)).not.toContain('objects');
    expect(readdirSync(checkout)).not.toContain('pages');
    const pages = pageShas(checkout);
    expect(pages.length).toBeGreaterThan(0);
    for (const sha of pages) expect((await readObject(checkout, sha))!.equals((await readObject(full, sha))!)).toBe(true);
  });

  it('the loader derives the same archive, and the site publishes the same raw bodies', async () => {
    const a = await loadArchive(full);
    const b = await loadArchive(checkout);
    expect(b.servers.length).toBe(a.servers.length);
    expect(JSON.stringify(b.servers)).toBe(JSON.stringify(a.servers));
    expect(JSON.stringify(b.changes)).toBe(JSON.stringify(a.changes));
    const outA = temp('mcps-site-a-');
    const outB = temp('mcps-site-b-');
    const copiedA = await copyLinkedObjects(a, outA);
    const copiedB = await copyLinkedObjects(b, outB);
    expect(copiedA).toBeGreaterThan(0);
    expect(copiedB).toBe(copiedA);
    const files = (dir: string) => readdirSync(join(dir, 'objects'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length)).sort();
    expect(files(outB)).toEqual(files(outA));
    for (const f of files(outA)) expect(readFileSync(join(outB, f)).equals(readFileSync(join(outA, f)))).toBe(true);
  });

  it('an object the bucket lacks is missing, not invented', async () => {
    expect(await readObject(checkout, 'e'.repeat(64))).toBeNull();
  });
});
