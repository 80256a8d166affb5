// src/archive/chain.ts on its own (issue 27): reading chain.jsonl, which run a line belongs to, the
// digests a manifest records, and how manifests are appended — on a small archive the real collector
// wrote (both series, so rows of a run sit in two folders) and on copies of it. Fast enough for the
// archive's mutation config (stryker.archive.config.mjs); test/collector/ops/chain.test.ts has the
// signed archive and verify's messages.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { adoptChain, appendRunManifests, archiveDigests, lineRunId, linesDigest, readChain, rowSeriesFolders, runDigest, runsByRun } from '../../src/archive/chain.ts';
import { chainHash, type ChainManifest } from '../../src/lib/index.ts';
import { collectArchive } from '../helpers/archive.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const tmp = scratchDirs();
let base: string;
let runIds: string[];
let original: ChainManifest[];
const AT = '2026-06-01T00:00:00.000Z';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

beforeAll(async () => {
  base = await collectArchive({ seed: 'chain-unit', size: 6, days: 3, methodology: 'v1,v2' }, tmp('mcps-chain-unit-base-'), false);
  runIds = [...runsByRun(base).keys()];
  original = readChain(base).manifests.map((m) => m.manifest);
}, 120_000);

function copy(): string {
  const dir = tmp('mcps-chain-unit-');
  cpSync(base, dir, { recursive: true });
  return dir;
}
const text = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
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
    expect(runIds).toHaveLength(3);
    for (const [id, r] of runs) {
      expect(r.lines).toHaveLength(2); // one line per series
      expect(r.lines.every((l) => lineRunId(l) === id)).toBe(true);
      expect(r.ref).toEqual({ run_id: id, day: id.slice(0, 10), roster_file: `${id.slice(0, 10)}.json` });
    }
  });

  it('keeps an unreadable line of a run in its lines; a run without a day has no reference; no file, no runs', () => {
    const dir = tmp('mcps-chain-runs-');
    expect(runsByRun(dir).size).toBe(0);
    writeFileSync(join(dir, 'runs.jsonl'), ['{"run_id":"a","oops', '{"run_id":"a","day":"2026-01-02","roster_file":7}', '{"run_id":"b"}', 'junk', '{"run_id":"c","day":"2026-01-03","roster_file":"x.json"}', ''].join('\n'));
    const runs = runsByRun(dir);
    expect([...runs.keys()]).toEqual(['a', 'b', 'c']);
    expect(runs.get('a')).toEqual({ lines: ['{"run_id":"a","oops', '{"run_id":"a","day":"2026-01-02","roster_file":7}'], ref: { run_id: 'a', day: '2026-01-02', roster_file: null } });
    expect(runs.get('b')).toEqual({ lines: ['{"run_id":"b"}'], ref: null });
    expect(runs.get('c')!.ref).toEqual({ run_id: 'c', day: '2026-01-03', roster_file: 'x.json' });
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
    expect(readChain(tmp('mcps-chain-none-'))).toEqual({ manifests: [], problems: [] });
  });

  it('skips blank lines and reports a line that is not a manifest by its 1-based number', () => {
    const dir = copy();
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
  it('what the collector sealed is what the archive holds: rows of both series, its run lines, roster and objects', async () => {
    const all = await archiveDigests(base);
    expect([...all.keys()]).toEqual(runIds);
    for (const m of original.slice(1)) {
      const d = all.get(m.run_id!)!;
      expect({ runs: d.runs, roster: d.roster, rows: d.rows, objects: d.objects }).toEqual({ runs: m.runs, roster: m.roster, rows: m.rows, objects: m.objects });
      expect(await runDigest(base, m.run_id!)).toEqual({ ...d, day: m.day });
    }
    const first = all.get(runIds[0]!)!;
    const day = runIds[0]!.slice(0, 10);
    expect(first.rows.map((r) => r.file)).toEqual([`observations-v2/${day}.jsonl`, `observations/${day}.jsonl`].sort());
    const own = text(base, `observations/${day}.jsonl`).split('\n').filter((l) => lineRunId(l) === runIds[0]);
    expect(first.rows.find((r) => r.file === `observations/${day}.jsonl`)).toEqual({ file: `observations/${day}.jsonl`, lines: own.length, sha256: sha(own.map((l) => `${l}\n`).join('')) });
    expect(first.runs).toEqual(linesDigest(runsByRun(base).get(runIds[0]!)!.lines));
    const roster = readFileSync(join(base, 'rosters', `${day}.json`));
    expect(first.roster).toEqual({ file: `${day}.json`, sha256: createHash('sha256').update(roster).digest('hex') });
    // The objects: every hash the run's rows name in an object field, and its roster's pages.
    const names = new Set<string>();
    for (const folder of ['observations', 'observations-v2']) {
      for (const line of text(base, `${folder}/${day}.jsonl`).split('\n').filter((l) => lineRunId(l) === runIds[0])) {
        const row = JSON.parse(line) as Record<string, unknown>;
        for (const f of ['body_sha256', 'registry_page_sha256', 'handshake_sha256', 'tools_pages_sha256']) {
          const v = row[f];
          for (const h of Array.isArray(v) ? v : [v]) if (typeof h === 'string') names.add(h);
        }
      }
    }
    for (const p of (JSON.parse(roster.toString('utf8')) as { pages: { sha256: string }[] }).pages) names.add(p.sha256);
    expect(first.objects).toEqual({ lines: names.size, sha256: sha([...names].sort().map((n) => `${n}\n`).join('')) });
  });

  it('a row of another run in a day file counts for that run, not for the day\'s', async () => {
    const dir = copy();
    const [r0, r1] = runIds;
    const d1 = `observations/${r1!.slice(0, 10)}.jsonl`;
    const stray = text(dir, `observations/${r0!.slice(0, 10)}.jsonl`).split('\n')[0]!;
    writeFileSync(join(dir, d1), text(dir, d1) + stray + '\n');
    const all = await archiveDigests(dir);
    expect(all.get(r1!)!.rows).toEqual((await archiveDigests(base)).get(r1!)!.rows);
    const rows0 = all.get(r0!)!.rows;
    expect(rows0.map((r) => r.file)).toEqual([`observations-v2/${r0!.slice(0, 10)}.jsonl`, `observations/${r0!.slice(0, 10)}.jsonl`, d1].sort());
    expect(rows0.find((r) => r.file === d1)).toEqual({ file: d1, lines: 1, sha256: sha(`${stray}\n`) });
    expect((await runDigest(dir, r1!))!.rows).toEqual(all.get(r1!)!.rows);
  });

  it('a roster that is gone hashes to no SHA-256 (never a match), and such a run cannot be sealed', async () => {
    const dir = copy();
    const last = runIds.at(-1)!;
    rmSync(join(dir, 'rosters', `${last.slice(0, 10)}.json`));
    const d = (await runDigest(dir, last))!;
    expect(d.roster!.file).toBe(`${last.slice(0, 10)}.json`);
    expect(d.roster!.sha256).not.toMatch(/^[0-9a-f]{64}$/);
    writeFileSync(join(dir, 'chain.jsonl'), text(dir, 'chain.jsonl').trimEnd().split('\n').slice(0, -1).join('\n') + '\n');
    await expect(appendRunManifests(dir, last, { signer: null, sealedAt: AT })).rejects.toThrow(`run ${last}: its roster ${last.slice(0, 10)}.json is missing, so it cannot be sealed`);
  });

  it('a run that is not in runs.jsonl has no digest to seal', async () => {
    expect(await runDigest(base, 'no-such-run')).toBeNull();
  });
});

describe('appendRunManifests(dir, runId, opts)', () => {
  it('nothing new after the chain\'s last run: writes nothing', async () => {
    const dir = copy();
    expect(await appendRunManifests(dir, runIds.at(-1)!, { signer: null, sealedAt: AT })).toEqual([]);
    expect(text(dir, 'chain.jsonl')).toBe(text(base, 'chain.jsonl'));
  });

  it('seals every run after the last chained one (a manifest lost to a crash, and the run just recorded)', async () => {
    const dir = copy();
    writeFileSync(join(dir, 'chain.jsonl'), text(dir, 'chain.jsonl').trimEnd().split('\n').slice(0, 2).join('\n') + '\n');
    const written = await appendRunManifests(dir, 'not-a-run', { signer: null, sealedAt: AT, durable: false });
    expect(written.map((m) => [m.seq, m.kind, m.sealed_at])).toEqual([
      [2, 'run', AT],
      [3, 'run', AT],
    ]);
    expect(written.map(held)).toEqual(original.slice(2).map(held));
    expect(written[0]!.prev).toBe(chainHash(original[1]!));
    expect(written[1]!.prev).toBe(chainHash(written[0]!));
    expect(readChain(dir).manifests.map((m) => m.manifest)).toEqual([...original.slice(0, 2), ...written]);
  });

  it('a chain of a genesis alone: every run is sealed after it', async () => {
    const dir = copy();
    writeFileSync(join(dir, 'chain.jsonl'), text(dir, 'chain.jsonl').split('\n')[0] + '\n');
    const written = await appendRunManifests(dir, runIds[0]!, { signer: null, sealedAt: AT });
    expect(written.map(held)).toEqual(original.slice(1).map(held));
  });

  it('a run without a day in runs.jsonl is skipped, the others sealed', async () => {
    const dir = copy();
    writeFileSync(join(dir, 'chain.jsonl'), text(dir, 'chain.jsonl').split('\n')[0] + '\n');
    writeFileSync(join(dir, 'runs.jsonl'), text(dir, 'runs.jsonl') + '{"run_id":"dayless"}\n');
    const written = await appendRunManifests(dir, runIds[0]!, { signer: null, sealedAt: AT });
    expect(written.map((m) => m.run_id)).toEqual(runIds);
  });

  it('refuses to append to a chain with a line that is not a manifest, naming the line', async () => {
    const dir = copy();
    writeFileSync(join(dir, 'chain.jsonl'), text(dir, 'chain.jsonl') + '{"broken":true}\n');
    await expect(appendRunManifests(dir, runIds[0]!, { signer: null, sealedAt: AT })).rejects.toThrow(/^chain\.jsonl:5: .+ \(run npm run verify\)$/);
  });

  describe('an archive without a chain gets a genesis first, saying what it does not cover', () => {
    const start = async (runId: string) => {
      const dir = copy();
      rmSync(join(dir, 'chain.jsonl'));
      return appendRunManifests(dir, runId, { signer: null, sealedAt: AT });
    };

    it('from its first run: nothing uncovered', async () => {
      const written = await start(runIds[0]!);
      expect(written[0]).toMatchObject({ kind: 'genesis', seq: 0, prev: null, unchained_runs: 0, note: 'The chain starts with the archive\'s first run.', run_id: null, rows: [] });
      expect(written.slice(1).map(held)).toEqual(original.slice(1).map(held));
    });

    it('from its second run: the one before it (singular), and only the runs from this one on are sealed', async () => {
      const written = await start(runIds[1]!);
      expect(written[0]).toMatchObject({ kind: 'genesis', unchained_runs: 1, note: `No chain before run ${runIds[1]}: the 1 run recorded before it are not covered.` });
      expect(written.slice(1).map((m) => m.run_id)).toEqual(runIds.slice(1));
      expect(written.slice(1).map((m) => m.seq)).toEqual([1, 2]);
    });

    it('from its third run: the two before it', async () => {
      const written = await start(runIds[2]!);
      expect(written[0]).toMatchObject({ unchained_runs: 2, note: `No chain before run ${runIds[2]}: the 2 runs recorded before it are not covered.` });
      expect(written.slice(1).map((m) => m.run_id)).toEqual([runIds[2]]);
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
    const dir = copy();
    rmSync(join(dir, 'chain.jsonl'));
    const written = await adoptChain(dir, { signer: null, sealedAt: '2026-02-01T12:00:00.000Z' });
    expect(written[0]).toMatchObject({
      kind: 'genesis',
      unchained_runs: 0,
      note: 'Adopted on 2026-02-01: the 3 manifests after this one were written on 2026-02-01 for runs recorded before it. They show that those runs have not changed since 2026-02-01, not that they were unchanged before.',
    });
    expect(written.slice(1).map((m) => m.kind)).toEqual(['adopted', 'adopted', 'adopted']);
    expect(written.slice(1).map(held)).toEqual(original.slice(1).map(held));
    expect(readChain(dir).manifests.map((m) => m.manifest)).toEqual(written);
  });

  it('one run: "manifest", singular; a run without a day is adopted with day null', async () => {
    const dir = tmp('mcps-chain-adopt-one-');
    cpSync(base, dir, { recursive: true });
    rmSync(join(dir, 'chain.jsonl'));
    writeFileSync(join(dir, 'runs.jsonl'), runsByRun(base).get(runIds[0]!)!.lines.map((l) => `${l}\n`).join(''));
    const written = await adoptChain(dir, { signer: null, sealedAt: '2026-02-01T12:00:00.000Z' });
    expect(written[0]!.note).toMatch(/^Adopted on 2026-02-01: the 1 manifest after this one were written/);
    expect(written).toHaveLength(2);
  });

  it('refused when a chain exists, even an empty chain.jsonl (history is never rewritten)', async () => {
    const dir = copy();
    await expect(adoptChain(dir, { signer: null, sealedAt: AT })).rejects.toThrow('chain.jsonl exists: an adopted chain can only start an archive that has none');
    writeFileSync(join(dir, 'chain.jsonl'), '');
    await expect(adoptChain(dir, { signer: null, sealedAt: AT })).rejects.toThrow(/exists/);
    expect(existsSync(join(dir, 'chain.jsonl'))).toBe(true);
    expect(text(dir, 'chain.jsonl')).toBe('');
  });
});
