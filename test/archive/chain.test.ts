// src/archive/chain.ts on its own: reading chain.jsonl, which run a line belongs to, the
// digests a manifest records, and how manifests are appended — on copies of the frozen archive the
// collector wrote (fixtures/archive/golden: 5 runs, no chain yet), each test making its own chain the
// way the collector does (appendRunManifests). No archive is collected in a hook: under the archive's
// mutation config (stryker.archive.config.mjs) code run in a beforeAll makes every mutant it reaches
// "static" (run against every test, ~10 s each), which made a run of chain.ts take two hours.
// test/archive/chain-link.test.ts and test/collector/ops/chain.test.ts have collected archives and
// verify's messages.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { adoptChain, appendRunManifests, archiveDigests, lineRunId, linesDigest, readChain, rowSeriesFolders, runDigest, runsByRun } from '../../src/archive/chain.ts';
import { chainHash, type ChainManifest } from '../../src/lib/index.ts';
import { cleanUp, GOLDEN, goldenCopy } from '../helpers/golden-archive.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const tmp = scratchDirs();
afterAll(cleanUp);
const base = GOLDEN;
const runIds = readFileSync(join(GOLDEN, 'runs.jsonl'), 'utf8').trimEnd().split('\n').map((l) => (JSON.parse(l) as { run_id: string }).run_id);
const AT0 = '2026-05-01T00:00:00.000Z';
const AT = '2026-06-01T00:00:00.000Z';
const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** A copy of the golden archive; with `chain`, chained as the collector chains a new archive: a genesis, then every run. */
async function copy(chain = true): Promise<string> {
  const dir = await goldenCopy();
  if (chain) await appendRunManifests(dir, runIds[0]!, { signer: null, sealedAt: AT0, durable: false });
  return dir;
}
const text = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
const chainOf = (dir: string) => readChain(dir).manifests.map((m) => m.manifest);
/** The object names a run's rows name in their object fields, read with JSON.parse (not chain.ts's pattern). */
function rowObjects(dir: string, id: string, files: string[]): Set<string> {
  const names = new Set<string>();
  for (const f of files) {
    for (const line of text(dir, f).split('\n').filter((l) => lineRunId(l) === id)) {
      const row = JSON.parse(line) as Record<string, unknown>;
      for (const k of ['body_sha256', 'registry_page_sha256', 'handshake_sha256', 'tools_pages_sha256']) {
        const v = row[k];
        for (const h of Array.isArray(v) ? v : [v]) if (typeof h === 'string') names.add(h);
      }
    }
  }
  return names;
}
const setDigest = (names: Set<string>) => ({ lines: names.size, sha256: sha([...names].sort().map((n) => `${n}\n`).join('')) });

/** The fields a manifest takes from the archive (not when or by whom it was sealed). */
const held = (m: ChainManifest) => ({ run_id: m.run_id, day: m.day, runs: m.runs, roster: m.roster, rows: m.rows, objects: m.objects });

describe('lineRunId(line)', () => {
  it('reads the run id from the start of a line the collector wrote', () => {
    expect(lineRunId('{"run_id":"2026-01-01T031500Z","day":"2026-01-01"}')).toBe('2026-01-01T031500Z');
    expect(lineRunId('{"run_id":"r","x":"y"}')).toBe('r');
  });

  it('falls back to JSON for a line that does not start that way, or whose id has an escape', () => {
    expect(lineRunId('{"day":"d","run_id":"later"}')).toBe('later');
    expect(lineRunId('{ "run_id": "spaced" }')).toBe('spaced');
    expect(lineRunId('{"run_id":"a\\"b","x":1}')).toBe('a"b');
    expect(lineRunId('{"run_id":"a\\u0041"}')).toBe('aA');
  });

  it('near misses: no run id, not a string, not JSON, an empty id', () => {
    expect(lineRunId('{"day":"d"}')).toBeNull();
    expect(lineRunId('{"run_id":7}')).toBeNull();
    expect(lineRunId('[1,2]')).toBeNull();
    expect(lineRunId('null')).toBeNull();
    expect(lineRunId('{"run_id":"unterminated')).toBeNull();
    expect(lineRunId('not json')).toBeNull();
    expect(lineRunId('')).toBeNull();
    expect(lineRunId('{"run_id":"","x":1}')).toBe('');
  });

  it('a line cut short after its run id (a torn tail before repair) still names its run, whatever the cut-off rest holds', () => {
    // The digest of a day file counts such a line for its run either way; only the id's own characters
    // decide whether JSON has to read it. A backslash later in the line is not an escape in the id.
    expect(lineRunId('{"run_id":"r1","name":"io.x/y')).toBe('r1');
    expect(lineRunId('{"run_id":"r1","name":"a\\"b","desc":"cut')).toBe('r1');
    expect(lineRunId('{"run_id":"r1","note":"C:\\dir\\')).toBe('r1');
  });
});

describe('rowSeriesFolders(dir)', () => {
  it('the row folders, sorted: observations/ and observations-<series>/, not files or other folders', () => {
    const dir = tmp('mcps-chain-folders-');
    expect(rowSeriesFolders(join(dir, 'absent'))).toEqual([]);
    for (const d of ['observations-v2', 'observations', 'objects', 'observations-x.y', 'xobservations']) mkdirSync(join(dir, d));
    writeFileSync(join(dir, 'observations-file'), '');
    expect(rowSeriesFolders(dir)).toEqual(['observations', 'observations-v2', 'observations-x.y']);
  });
});

describe('runsByRun(dir)', () => {
  it('groups runs.jsonl per run in order, with the first line\'s day and roster file', () => {
    const runs = runsByRun(base);
    expect([...runs.keys()]).toEqual(runIds);
    expect(runIds).toHaveLength(5);
    for (const [id, r] of runs) {
      expect(r.lines).toHaveLength(1);
      expect(lineRunId(r.lines[0]!)).toBe(id);
      expect(r.ref).toEqual({ run_id: id, day: id.slice(0, 10), roster_file: `${id.slice(0, 10)}.json` });
    }
  });

  it('keeps an unreadable line of a run in its lines; a run without a day has no reference; no file, no runs', () => {
    const dir = tmp('mcps-chain-runs-');
    expect(runsByRun(dir).size).toBe(0);
    writeFileSync(join(dir, 'runs.jsonl'), ['{"run_id":"a","oops', '{"run_id":"a","day":"2026-01-02","roster_file":7}', '{"run_id":"b"}', 'junk', '{"run_id":"c","day":"2026-01-03","roster_file":"x.json"}', '{"run_id":"c","day":"2026-01-04","roster_file":"y.json"}', ''].join('\n'));
    const runs = runsByRun(dir);
    expect([...runs.keys()]).toEqual(['a', 'b', 'c']);
    expect(runs.get('a')).toEqual({ lines: ['{"run_id":"a","oops', '{"run_id":"a","day":"2026-01-02","roster_file":7}'], ref: { run_id: 'a', day: '2026-01-02', roster_file: null } });
    expect(runs.get('b')).toEqual({ lines: ['{"run_id":"b"}'], ref: null });
    // The first line with a day names the run's day and roster (a later series' line does not move it).
    expect(runs.get('c')!.ref).toEqual({ run_id: 'c', day: '2026-01-03', roster_file: 'x.json' });
    expect(runs.get('c')!.lines).toHaveLength(2);
  });
});

describe('linesDigest(lines)', () => {
  it('SHA-256 over each line and its LF, with the count', () => {
    expect(linesDigest([])).toEqual({ lines: 0, sha256: sha('') });
    expect(linesDigest(['a', 'b'])).toEqual({ lines: 2, sha256: sha('a\nb\n') });
    expect(linesDigest(['ab'])).not.toEqual(linesDigest(['a', 'b']));
  });
});

describe('readChain(dir)', () => {
  it('no chain.jsonl: nothing, and no problem', () => {
    expect(readChain(base)).toEqual({ manifests: [], problems: [] });
  });

  it('skips blank lines and reports a line that is not a manifest by its 1-based number', async () => {
    const dir = await copy();
    const original = chainOf(dir);
    const lines = text(dir, 'chain.jsonl').trimEnd().split('\n');
    writeFileSync(join(dir, 'chain.jsonl'), [lines[0], '', '  ', lines[1], '{"chain":"nope"}', lines[2]].join('\n') + '\n');
    const { manifests, problems } = readChain(dir);
    expect(manifests.map((m) => m.n)).toEqual([1, 4, 6]);
    expect(manifests.map((m) => m.manifest)).toEqual(original.slice(0, 3));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: 'chain.jsonl', line: 5 });
    expect(problems[0]!.message.length).toBeGreaterThan(0);
  });
});

describe('the digests of a run', () => {
  it('the exact bytes of its rows, its lines of runs.jsonl, its roster, and the objects its rows and roster name', async () => {
    const all = await archiveDigests(base);
    expect([...all.keys()]).toEqual(runIds);
    for (const id of runIds) expect(await runDigest(base, id)).toEqual({ ...all.get(id)!, day: id.slice(0, 10) });
    const id = runIds[1]!;
    const day = id.slice(0, 10);
    const d = all.get(id)!;
    const own = text(base, `observations/${day}.jsonl`).split('\n').filter((l) => lineRunId(l) === id);
    expect(own.length).toBeGreaterThan(1);
    expect(d.rows).toEqual([{ file: `observations/${day}.jsonl`, lines: own.length, sha256: sha(own.map((l) => `${l}\n`).join('')) }]);
    expect(d.runs).toEqual(linesDigest(runsByRun(base).get(id)!.lines));
    const roster = readFileSync(join(base, 'rosters', `${day}.json`));
    expect(d.roster).toEqual({ file: `${day}.json`, sha256: sha(roster) });
    const names = new Set<string>();
    for (const line of own) {
      const row = JSON.parse(line) as Record<string, unknown>;
      for (const f of ['body_sha256', 'registry_page_sha256', 'handshake_sha256', 'tools_pages_sha256']) {
        const v = row[f];
        for (const h of Array.isArray(v) ? v : [v]) if (typeof h === 'string') names.add(h);
      }
    }
    const rowNames = names.size;
    for (const p of (JSON.parse(roster.toString('utf8')) as { pages: { sha256: string }[] }).pages) names.add(p.sha256);
    expect(rowNames).toBeGreaterThan(1);
    expect(d.objects).toEqual({ lines: names.size, sha256: sha([...names].sort().map((n) => `${n}\n`).join('')) });
  });

  it('a roster page no row names is still among the run\'s objects', async () => {
    const dir = await copy(false);
    const id = runIds[0]!;
    const file = join(dir, 'rosters', `${id.slice(0, 10)}.json`);
    const roster = JSON.parse(text(dir, `rosters/${id.slice(0, 10)}.json`)) as { pages: { sha256: string }[] };
    const extra = 'f'.repeat(64);
    roster.pages.push({ ...roster.pages[0]!, sha256: extra });
    writeFileSync(file, JSON.stringify(roster));
    const before = (await archiveDigests(base)).get(id)!.objects.lines;
    expect((await runDigest(dir, id))!.objects.lines).toBe(before + 1);
  });

  it('a run\'s rows in a second series folder count as rows of their own file, sorted by name', async () => {
    const dir = await copy(false);
    const id = runIds[0]!;
    const day = `${id.slice(0, 10)}.jsonl`;
    // The same collector-written lines, laid out as a second series would be (observations-v2/<day>).
    mkdirSync(join(dir, 'observations-v2'));
    cpSync(join(dir, 'observations', day), join(dir, 'observations-v2', day));
    const one = (await archiveDigests(base)).get(id)!.rows[0]!;
    for (const d of [(await archiveDigests(dir)).get(id)!, (await runDigest(dir, id))!]) {
      expect(d.rows).toEqual([{ ...one, file: `observations-v2/${day}` }, one]);
    }
  });

  it('a compacted day (gzip) gives the same digests, under the day file\'s plain name', async () => {
    const dir = await copy(false);
    const before = await archiveDigests(dir);
    const day = `observations/${runIds[2]!.slice(0, 10)}.jsonl`;
    writeFileSync(join(dir, `${day}.gz`), gzipSync(readFileSync(join(dir, day))));
    unlinkSync(join(dir, day));
    expect(await archiveDigests(dir)).toEqual(before);
    expect(await runDigest(dir, runIds[2]!)).toEqual({ ...before.get(runIds[2]!)!, day: runIds[2]!.slice(0, 10) });
  });

  it('a row of another run in a day file counts for that run, not for the day\'s', async () => {
    const dir = await copy(false);
    const [r0, r1] = runIds;
    const d1 = `observations/${r1!.slice(0, 10)}.jsonl`;
    const stray = text(dir, `observations/${r0!.slice(0, 10)}.jsonl`).split('\n')[0]!;
    writeFileSync(join(dir, d1), text(dir, d1) + stray + '\n');
    const all = await archiveDigests(dir);
    const clean = await archiveDigests(base);
    expect(all.get(r1!)).toEqual(clean.get(r1!));
    const rows0 = all.get(r0!)!.rows;
    expect(rows0).toEqual([...clean.get(r0!)!.rows, { file: d1, lines: 1, sha256: sha(`${stray}\n`) }]);
    // Its objects are counted on its own day only.
    expect(all.get(r0!)!.objects).toEqual(clean.get(r0!)!.objects);
    expect((await runDigest(dir, r1!))!.rows).toEqual(all.get(r1!)!.rows);
    // runDigest (the collector, at the end of a run) reads the run's own day only.
    expect((await runDigest(dir, r0!))!.rows).toEqual(clean.get(r0!)!.rows);
  });

  it('a row of a run in a day file before its own day: the run keeps its roster and objects (read on its own day)', async () => {
    const dir = await copy(false);
    const [r0, r1] = runIds;
    const d0 = `observations/${r0!.slice(0, 10)}.jsonl`;
    const stray = text(dir, `observations/${r1!.slice(0, 10)}.jsonl`).split('\n')[0]!;
    writeFileSync(join(dir, d0), text(dir, d0) + stray + '\n');
    const all = await archiveDigests(dir);
    const clean = await archiveDigests(base);
    expect(all.get(r0!)).toEqual(clean.get(r0!));
    const d = all.get(r1!)!;
    expect(d.roster).not.toBeNull();
    expect({ runs: d.runs, roster: d.roster, objects: d.objects }).toEqual({ runs: clean.get(r1!)!.runs, roster: clean.get(r1!)!.roster, objects: clean.get(r1!)!.objects });
    expect(d.rows).toEqual([...clean.get(r1!)!.rows, { file: d0, lines: 1, sha256: sha(`${stray}\n`) }].sort((a, b) => (a.file < b.file ? -1 : 1)));
  });

  it('a run\'s rows over days and series folders are listed by file name, whatever order they were read in', async () => {
    const dir = await copy(false);
    const [r0, r1] = runIds;
    const day0 = r0!.slice(0, 10);
    const day1 = r1!.slice(0, 10);
    const stray = text(dir, `observations/${day0}.jsonl`).split('\n')[0]!;
    // Read first: observations/<day0>; then, on day1, observations-v2/ and observations-x/ (both sort before "observations/").
    for (const folder of ['observations-v2', 'observations-x']) {
      mkdirSync(join(dir, folder));
      writeFileSync(join(dir, folder, `${day1}.jsonl`), `${stray}\n`);
    }
    const rows = (await archiveDigests(dir)).get(r0!)!.rows.map((r) => r.file);
    expect(rows).toEqual([`observations-v2/${day1}.jsonl`, `observations-x/${day1}.jsonl`, `observations/${day0}.jsonl`]);
    // Within one day too: three folders, rows sorted by file name.
    const one = await copy(false);
    for (const folder of ['observations-v2', 'observations-x']) {
      mkdirSync(join(one, folder));
      cpSync(join(one, 'observations', `${day0}.jsonl`), join(one, folder, `${day0}.jsonl`));
    }
    for (const d of [(await archiveDigests(one)).get(r0!)!, (await runDigest(one, r0!))!]) expect(d.rows.map((r) => r.file)).toEqual([`observations-v2/${day0}.jsonl`, `observations-x/${day0}.jsonl`, `observations/${day0}.jsonl`]);
  });

  it('lines that name no run (blank, torn, not JSON) belong to no run', async () => {
    const dir = await copy(false);
    const day = `observations/${runIds[0]!.slice(0, 10)}.jsonl`;
    writeFileSync(join(dir, day), `\n${text(dir, day)}not json\n{"day":"x"}\n{"run_id":"2025-12`);
    const all = await archiveDigests(dir);
    expect([...all.keys()]).toEqual(runIds);
    expect(all).toEqual(await archiveDigests(base));
  });

  it('a run without a roster file has no roster and only its rows\' objects', async () => {
    const dir = await copy(false);
    const id = runIds[0]!;
    writeFileSync(join(dir, 'runs.jsonl'), text(dir, 'runs.jsonl').replace(`"roster_file":"${id.slice(0, 10)}.json"`, '"roster_file":null'));
    const d = (await runDigest(dir, id))!;
    expect(d.roster).toBeNull();
    expect(d.objects).toEqual(setDigest(rowObjects(dir, id, [`observations/${id.slice(0, 10)}.jsonl`])));
  });

  it('roster pages without a hash, or a roster without pages, add no object', async () => {
    const dir = await copy(false);
    const id = runIds[0]!;
    const own = setDigest(rowObjects(dir, id, [`observations/${id.slice(0, 10)}.jsonl`]));
    const file = join(dir, 'rosters', `${id.slice(0, 10)}.json`);
    writeFileSync(file, JSON.stringify({ pages: [{ index: 0 }, { sha256: 7 }] }));
    expect((await runDigest(dir, id))!.objects).toEqual(own);
    writeFileSync(file, JSON.stringify({ servers: [] }));
    expect((await runDigest(dir, id))!.objects).toEqual(own);
  });

  it('rows of a run that has no run row get rows only: no run lines, no roster, no objects', async () => {
    const dir = await copy(false);
    const last = runIds.at(-1)!;
    writeFileSync(join(dir, 'runs.jsonl'), text(dir, 'runs.jsonl').trimEnd().split('\n').slice(0, -1).join('\n') + '\n');
    const all = await archiveDigests(dir);
    expect([...all.keys()]).toEqual(runIds);
    const d = all.get(last)!;
    expect(d.rows).toEqual((await archiveDigests(base)).get(last)!.rows);
    expect(d).toMatchObject({ runs: linesDigest([]), roster: null, objects: linesDigest([]) });
    expect(await runDigest(dir, last)).toBeNull();
  });

  it('a run row whose day has no row file still gets its run lines, roster and objects', async () => {
    const dir = await copy(false);
    const id = runIds[3]!;
    unlinkSync(join(dir, `observations/${id.slice(0, 10)}.jsonl`));
    const all = await archiveDigests(dir);
    // Its day is read in day order with the others (the runs come out in runs.jsonl's order).
    expect([...all.keys()]).toEqual(runIds);
    const d = all.get(id)!;
    expect(d.rows).toEqual([]);
    expect(d.runs).toEqual((await archiveDigests(base)).get(id)!.runs);
    expect(d.roster).toEqual((await archiveDigests(base)).get(id)!.roster);
    expect(d.objects.lines).toBeGreaterThan(0);
  });

  it('a roster that is gone, or not a roster file name, hashes to no SHA-256 (never a match), and such a run cannot be sealed', async () => {
    const dir = await copy(false);
    const last = runIds.at(-1)!;
    rmSync(join(dir, 'rosters', `${last.slice(0, 10)}.json`));
    const d = (await runDigest(dir, last))!;
    expect(d.roster!.file).toBe(`${last.slice(0, 10)}.json`);
    expect(d.roster!.sha256).toBe('missing');
    expect(d.objects).toEqual(setDigest(rowObjects(dir, last, [`observations/${last.slice(0, 10)}.jsonl`])));
    await expect(appendRunManifests(dir, runIds[0]!, { signer: null, sealedAt: AT })).rejects.toThrow(`run ${last}: its roster ${last.slice(0, 10)}.json is missing, so it cannot be sealed (run npm run verify)`);
    // A roster_file that is not a plain file name (a path) is never read.
    const other = await copy(false);
    writeFileSync(join(other, 'runs.jsonl'), text(other, 'runs.jsonl').replace(`"roster_file":"${runIds[0]!.slice(0, 10)}.json"`, `"roster_file":"../rosters/${runIds[0]!.slice(0, 10)}.json"`));
    expect((await runDigest(other, runIds[0]!))!.roster).toEqual({ file: `../rosters/${runIds[0]!.slice(0, 10)}.json`, sha256: d.roster!.sha256 });
  });

  it('a roster that is not JSON is hashed as it is and adds no pages; a damaged gzip reads as missing', async () => {
    const dir = await copy(false);
    const id = runIds[0]!;
    const good = (await runDigest(base, id))!;
    writeFileSync(join(dir, 'rosters', `${id.slice(0, 10)}.json`), 'not json');
    const d = (await runDigest(dir, id))!;
    expect(d.roster!.sha256).toBe(sha('not json'));
    expect(d.objects.lines).toBeLessThanOrEqual(good.objects.lines);
    rmSync(join(dir, 'rosters', `${id.slice(0, 10)}.json`));
    writeFileSync(join(dir, 'rosters', `${id.slice(0, 10)}.json.gz`), 'not gzip');
    expect((await runDigest(dir, id))!.roster!.sha256).not.toMatch(/^[0-9a-f]{64}$/);
  });

  it('a run that is not in runs.jsonl has no digest to seal', async () => {
    expect(await runDigest(base, 'no-such-run')).toBeNull();
  });
});

describe('appendRunManifests(dir, runId, opts)', () => {
  it('a new archive: a genesis, then one run manifest per run, each naming the one before', async () => {
    const dir = await copy();
    const chain = chainOf(dir);
    expect(chain.map((m) => [m.seq, m.kind, m.run_id, m.sealed_at, m.signature])).toEqual([[0, 'genesis', null, AT0, null], ...runIds.map((id, i) => [i + 1, 'run', id, AT0, null])]);
    for (let i = 1; i < chain.length; i++) expect(chain[i]!.prev).toBe(chainHash(chain[i - 1]!));
    const all = await archiveDigests(base);
    for (const m of chain.slice(1)) expect(held(m)).toEqual({ run_id: m.run_id, day: m.run_id!.slice(0, 10), runs: all.get(m.run_id!)!.runs, roster: all.get(m.run_id!)!.roster, rows: all.get(m.run_id!)!.rows, objects: all.get(m.run_id!)!.objects });
    expect(chain[1]).toMatchObject({ unchained_runs: null, note: null });
  });

  it('nothing new after the chain\'s last run: writes nothing', async () => {
    const dir = await copy();
    const before = text(dir, 'chain.jsonl');
    expect(await appendRunManifests(dir, runIds.at(-1)!, { signer: null, sealedAt: AT })).toEqual([]);
    expect(text(dir, 'chain.jsonl')).toBe(before);
  });

  it('seals every run after the last chained one (a manifest lost to a crash, and the run just recorded)', async () => {
    const dir = await copy();
    const original = chainOf(dir);
    writeFileSync(join(dir, 'chain.jsonl'), text(dir, 'chain.jsonl').trimEnd().split('\n').slice(0, 3).join('\n') + '\n');
    const written = await appendRunManifests(dir, 'not-a-run', { signer: null, sealedAt: AT });
    expect(written.map((m) => [m.seq, m.kind, m.sealed_at])).toEqual([
      [3, 'run', AT],
      [4, 'run', AT],
      [5, 'run', AT],
    ]);
    expect(written.map(held)).toEqual(original.slice(3).map(held));
    expect(written[0]!.prev).toBe(chainHash(original[2]!));
    expect(written[1]!.prev).toBe(chainHash(written[0]!));
    expect(chainOf(dir)).toEqual([...original.slice(0, 3), ...written]);
  });

  it('a run whose manifest was taken out of the middle of the chain is not sealed again after the last one (verify reports it)', async () => {
    const dir = await copy();
    const lines = text(dir, 'chain.jsonl').trimEnd().split('\n');
    writeFileSync(join(dir, 'chain.jsonl'), [...lines.slice(0, 2), ...lines.slice(3)].join('\n') + '\n');
    const before = text(dir, 'chain.jsonl');
    expect(await appendRunManifests(dir, 'not-a-run', { signer: null, sealedAt: AT })).toEqual([]);
    expect(text(dir, 'chain.jsonl')).toBe(before);
  });

  it('a chain of a genesis alone: every run is sealed after it', async () => {
    const dir = await copy();
    const original = chainOf(dir);
    writeFileSync(join(dir, 'chain.jsonl'), text(dir, 'chain.jsonl').split('\n')[0] + '\n');
    const written = await appendRunManifests(dir, runIds[2]!, { signer: null, sealedAt: AT });
    expect(written.map(held)).toEqual(original.slice(1).map(held));
  });

  it('a run without a day in runs.jsonl is skipped, the others sealed', async () => {
    const dir = await copy();
    writeFileSync(join(dir, 'chain.jsonl'), text(dir, 'chain.jsonl').split('\n')[0] + '\n');
    writeFileSync(join(dir, 'runs.jsonl'), text(dir, 'runs.jsonl') + '{"run_id":"dayless"}\n');
    const written = await appendRunManifests(dir, runIds[0]!, { signer: null, sealedAt: AT });
    expect(written.map((m) => m.run_id)).toEqual(runIds);
  });

  it('refuses to append to a chain with a line that is not a manifest, naming the line', async () => {
    const dir = await copy();
    writeFileSync(join(dir, 'chain.jsonl'), text(dir, 'chain.jsonl') + '{"broken":true}\n');
    await expect(appendRunManifests(dir, runIds[0]!, { signer: null, sealedAt: AT })).rejects.toThrow(/^chain\.jsonl:7: .+ \(run npm run verify\)$/);
  });

  describe('an archive without a chain gets a genesis first, saying what it does not cover', () => {
    const start = async (runId: string) => appendRunManifests(await copy(false), runId, { signer: null, sealedAt: AT });

    it('from its first run: nothing uncovered', async () => {
      const written = await start(runIds[0]!);
      expect(written[0]).toEqual({ chain: written[0]!.chain, seq: 0, kind: 'genesis', prev: null, sealed_at: AT, run_id: null, day: null, runs: null, roster: null, rows: [], objects: null, unchained_runs: 0, note: 'The chain starts with the archive\'s first run.', signature: null });
      expect(written.slice(1).map((m) => m.run_id)).toEqual(runIds);
    });

    it('from its second run: the one before it (singular), and only the runs from this one on are sealed', async () => {
      const written = await start(runIds[1]!);
      expect(written[0]).toMatchObject({ kind: 'genesis', unchained_runs: 1, note: `No chain before run ${runIds[1]}: the 1 run recorded before it are not covered.` });
      expect(written.slice(1).map((m) => m.run_id)).toEqual(runIds.slice(1));
      expect(written.slice(1).map((m) => m.seq)).toEqual([1, 2, 3, 4]);
    });

    it('from its fifth run: the four before it', async () => {
      const written = await start(runIds[4]!);
      expect(written[0]).toMatchObject({ unchained_runs: 4, note: `No chain before run ${runIds[4]}: the 4 runs recorded before it are not covered.` });
      expect(written.slice(1).map((m) => m.run_id)).toEqual([runIds[4]]);
    });

    it('a run id that is not in runs.jsonl starts the chain at the first run', async () => {
      const written = await start('not-a-run');
      expect(written[0]).toMatchObject({ unchained_runs: 0, note: 'The chain starts with the archive\'s first run.' });
      expect(written.slice(1).map((m) => m.run_id)).toEqual(runIds);
    });
  });
});

describe('adoptChain(dir, opts)', () => {
  it('a genesis that says when it was adopted and how many runs, then one adopted manifest per run', async () => {
    const dir = await copy(false);
    const sealed = chainOf(await copy());
    const written = await adoptChain(dir, { signer: null, sealedAt: '2026-02-01T12:00:00.000Z', durable: false });
    expect(written[0]).toMatchObject({
      kind: 'genesis',
      seq: 0,
      unchained_runs: 0,
      note: 'Adopted on 2026-02-01: the 5 manifests after this one were written on 2026-02-01 for runs recorded before it. They show that those runs have not changed since 2026-02-01, not that they were unchanged before.',
    });
    expect(written.slice(1).map((m) => [m.kind, m.seq, m.sealed_at])).toEqual(runIds.map((_, i) => ['adopted', i + 1, '2026-02-01T12:00:00.000Z']));
    expect(written.slice(1).map(held)).toEqual(sealed.slice(1).map(held));
    for (let i = 1; i < written.length; i++) expect(written[i]!.prev).toBe(chainHash(written[i - 1]!));
    expect(chainOf(dir)).toEqual(written);
  });

  it('one run: "manifest", singular; a run without a day is adopted with day null', async () => {
    const dir = await copy(false);
    const first = runsByRun(base).get(runIds[0]!)!.lines[0]!;
    writeFileSync(join(dir, 'runs.jsonl'), `${first}\n`);
    const written = await adoptChain(dir, { signer: null, sealedAt: '2026-02-01T12:00:00.000Z' });
    expect(written[0]!.note).toMatch(/^Adopted on 2026-02-01: the 1 manifest after this one were written/);
    expect(written).toHaveLength(2);
    const rowsOnly = await copy(false);
    writeFileSync(join(rowsOnly, 'runs.jsonl'), `${first}\n{"run_id":"${runIds[1]}"}\n{"run_id":"ghost"}\n`);
    const adopted = await adoptChain(rowsOnly, { signer: null, sealedAt: AT });
    expect(adopted.map((m) => [m.run_id, m.day])).toEqual([
      [null, null],
      [runIds[0], runIds[0]!.slice(0, 10)],
      [runIds[1], null],
    ]);
  });

  it('refused when a chain exists, even an empty chain.jsonl (history is never rewritten)', async () => {
    const dir = await copy();
    await expect(adoptChain(dir, { signer: null, sealedAt: AT })).rejects.toThrow('chain.jsonl exists: an adopted chain can only start an archive that has none');
    writeFileSync(join(dir, 'chain.jsonl'), '');
    await expect(adoptChain(dir, { signer: null, sealedAt: AT })).rejects.toThrow(/exists/);
    expect(existsSync(join(dir, 'chain.jsonl'))).toBe(true);
    expect(text(dir, 'chain.jsonl')).toBe('');
  });
});
