// Monthly editions, cut from a collector-made archive that crosses a month boundary (2025-12-15 →
// 2026-01-02), signed with a test key: what an edition holds, that it is cut once and stays
// byte-identical as later days are added, that its data are the rows up to its run, and that a
// revision is published beside it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readChain } from '../../src/archive/chain.ts';
import { readEditions } from '../../src/archive/editions.ts';
import { cutEdition, type CutOptions } from '../../src/editions/cut-edition.ts';
import { chainHash, verifyBytes } from '../../src/lib/index.ts';
import { readPngText } from '../../src/charts/png-text.ts';
import { generateKeyPair, writeKeyFiles } from '../../collector/ops/keys.ts';
import { loadKeys } from '../../collector/ops/verify-chain.ts';
import { verifyArchive } from '../../collector/ops/verify.ts';
import { collectArchive } from '../helpers/archive.ts';
import { TEST_PUBLICATION } from '../helpers/publication.ts';

const key = generateKeyPair('test');
let archive: string;
let keyFile: string;
const scratch: string[] = [];
const opts = (o: Partial<CutOptions> = {}): CutOptions => ({ month: '2025-12', pub: TEST_PUBLICATION, signer: key.signer, cache: null, release: null, now: new Date('2026-01-02T12:00:00Z'), ...o });

/** Every file of a folder with its SHA-256, by relative path. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const p = path.join(e.parentPath, e.name);
    out[path.relative(dir, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
  }
  return out;
}

beforeAll(async () => {
  archive = await collectArchive({ seed: 'editions', size: 24, days: 18, signer: key.signer });
  const keys = mkdtempSync(path.join(tmpdir(), 'mcps-ed-keys-'));
  scratch.push(keys);
  keyFile = writeKeyFiles(key, 'test', keys, null).publicFile;
}, 300_000);

afterAll(() => {
  for (const d of [archive, ...scratch]) if (d) rmSync(d, { recursive: true, force: true });
});

describe('cutEdition(dir, options)', () => {
  let before: Record<string, Record<string, string>>;

  it('cuts December from its first full run, after the fact, and January from January 1st', async () => {
    const dec = await cutEdition(archive, opts());
    const jan = await cutEdition(archive, opts({ month: '2026-01' }));
    expect(dec).toMatchObject({ status: 'cut', id: '2025-12' });
    expect(jan).toMatchObject({ status: 'cut', id: '2026-01' });
    const { editions, problems } = readEditions(archive);
    expect(problems).toEqual([]);
    expect(editions.map((e) => [e.id, e.edition.data_as_of_day])).toEqual([['2025-12', '2025-12-15'], ['2026-01', '2026-01-01']]);
    before = Object.fromEntries(editions.map((e) => [e.id, tree(e.dir)]));
  }, 120_000);

  it('holds the tiles, the chart (SVG, PNG, CSV, zip), the error classes, citations, README, page, SHA256SUMS and its signature', () => {
    const files = Object.keys(before['2025-12']!).sort();
    expect(files).toEqual(expect.arrayContaining(['tiles.json', 'schema-survival.svg', 'schema-survival.png', 'schema-survival.csv', 'schema-survival.zip', 'error-classes.csv', 'CITATION.cff', 'citation.txt', 'citation.bib', 'README.md', 'index.html', 'edition.json', 'SHA256SUMS', 'SHA256SUMS.sig']));
    const dir = path.join(archive, 'editions', '2025-12');
    const sums = readFileSync(path.join(dir, 'SHA256SUMS'));
    for (const line of sums.toString().trim().split('\n')) {
      const [hash, name] = line.split('  ');
      expect(before['2025-12']![name!], name).toBe(hash);
    }
    expect(Object.keys(before['2025-12']!).filter((f) => !f.startsWith('SHA256SUMS')).length).toBe(sums.toString().trim().split('\n').length);
    expect(verifyBytes(sums, readFileSync(path.join(dir, 'SHA256SUMS.sig')), loadKeys([keyFile])[0]!.key)).toBe(true);
    const url = 'https://mcp-schema.example.org/editions/2025-12/';
    expect(readFileSync(path.join(dir, 'citation.txt'), 'utf8')).toContain(`edition 2025-12, data as of 2025-12-15. Methodology v1. ${url}`);
    expect(readFileSync(path.join(dir, 'CITATION.cff'), 'utf8')).toContain(`url: "${url}"`);
    expect(readPngText(readFileSync(path.join(dir, 'schema-survival.png'))).get('Source')).toBe(url);
    expect(readFileSync(path.join(dir, 'schema-survival.svg'), 'utf8')).toContain(`Source: mcp-schema, edition 2025-12 — ${url}`);
  });

  it('checks with openssl the way the README says', () => {
    const dir = path.join(archive, 'editions', '2026-01');
    let out: string;
    try {
      out = execFileSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', keyFile, '-rawin', '-in', path.join(dir, 'SHA256SUMS'), '-sigfile', path.join(dir, 'SHA256SUMS.sig')], { encoding: 'utf8' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // no openssl on this machine: verifyBytes above is the check
      throw e;
    }
    expect(out).toMatch(/Signature Verified Successfully/);
    expect(execFileSync('sha256sum', ['-c', '--strict', 'SHA256SUMS'], { cwd: dir, encoding: 'utf8' })).not.toMatch(/FAILED/);
  });

  it('carries the data as of its run: rows of runs up to it, verbatim, and the chain manifest that pins them', () => {
    const e = readEditions(archive).editions.find((x) => x.id === '2025-12')!.edition;
    expect(e.bundles.map((b) => b.name)).toEqual(['observations-2025-12-to-2025-12-15.jsonl.gz', 'runs.jsonl', 'changes.jsonl.gz', 'contract-intervals.csv']);
    const obs = gunzipSync(readFileSync(path.join(archive, 'editions', '2025-12', 'bundles', e.bundles[0]!.name))).toString();
    const day = readFileSync(path.join(archive, 'observations', '2025-12-15.jsonl'), 'utf8');
    expect(obs).toBe(day);
    const manifest = readChain(archive).manifests.map((m) => m.manifest).find((m) => m.run_id === e.cut_from_run)!;
    expect(e.chain_head).toEqual({ seq: manifest.seq, sha256: chainHash(manifest), run_id: e.cut_from_run, key_id: key.keyId });
  });

  it('names closed months once: January publishes December whole and keeps its own month up to January 1st', () => {
    const jan = readEditions(archive).editions.find((x) => x.id === '2026-01')!.edition;
    const obs = jan.bundles.filter((b) => b.resource === 'observations');
    expect(obs.map((b) => [b.name, b.covers, b.edition])).toEqual([
      ['observations-2025-12.jsonl.gz', 'month 2025-12', '2026-01'],
      ['observations-2026-01-to-2026-01-01.jsonl.gz', '2026-01 up to run 2026-01-01T031500Z', '2026-01'],
    ]);
    const december = gunzipSync(readFileSync(path.join(archive, 'editions', '2026-01', 'bundles', 'observations-2025-12.jsonl.gz'))).toString();
    const days = readdirSync(path.join(archive, 'observations')).filter((f) => f.startsWith('2025-12')).sort();
    expect(december).toBe(days.map((f) => readFileSync(path.join(archive, 'observations', f), 'utf8')).join(''));
  });

  it('is idempotent, and stays byte-identical after later days are added and cutting runs again', async () => {
    expect(await cutEdition(archive, opts())).toEqual({ status: 'exists', id: '2025-12' });
    await collectArchive({ seed: 'editions', size: 24, days: 2, firstDay: 18, signer: key.signer }, archive, true);
    expect(await cutEdition(archive, opts({ month: '2026-01', now: new Date('2026-01-04T12:00:00Z') }))).toEqual({ status: 'exists', id: '2026-01' });
    for (const e of readEditions(archive).editions) expect(tree(e.dir), e.id).toEqual(before[e.id]);
    const report = await verifyArchive(archive, { keys: loadKeys([keyFile]) });
    expect(report.problems).toEqual([]);
  }, 120_000);

  it('waits for the month\'s first full run', async () => {
    expect(await cutEdition(archive, opts({ month: '2026-02' }))).toEqual({ status: 'no-full-run', month: '2026-02' });
  });

  it('publishes a restatement as a revision beside the original, which stays', async () => {
    const r = await cutEdition(archive, opts({ revise: { note: 'Restated under v1-contract (content/changelog/2026-11-30-restatement-v1-contract.md).' } }));
    expect(r).toMatchObject({ status: 'cut', id: '2025-12-r1' });
    const rev = readEditions(archive).editions.find((x) => x.id === '2025-12-r1')!.edition;
    expect(rev).toMatchObject({ revision: 1, revises: '2025-12', cut_from_run: '2025-12-15T031500Z' });
    expect(tree(path.join(archive, 'editions', '2025-12'))).toEqual(before['2025-12']);
    expect(readFileSync(path.join(archive, 'editions', '2025-12-r1', 'index.html'), 'utf8')).toContain('This is a revision of <a href="../2025-12/">edition 2025-12</a>');
  }, 120_000);
});

describe('verify on editions', () => {
  it('fails on a changed file of an edition, naming the edition and the file', async () => {
    const copy = mkdtempSync(path.join(tmpdir(), 'mcps-ed-damaged-'));
    scratch.push(copy);
    execFileSync('cp', ['-a', `${archive}/.`, copy]);
    const tiles = path.join(copy, 'editions', '2025-12', 'tiles.json');
    writeFileSync(tiles, readFileSync(tiles, 'utf8').replace('"contracts"', '"Contracts"'));
    const problems = (await verifyArchive(copy, { keys: loadKeys([keyFile]) })).problems;
    expect(problems.map((p) => p.message)).toContain('edition 2025-12: tiles.json does not match SHA256SUMS');
    expect(existsSync(tiles)).toBe(true);
  }, 60_000);
});
