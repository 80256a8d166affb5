// `npm run months` (scripts/month-parts.ts) on a collector-made archive: a closed month's part
// is written as exactly the assets of its release, is the same bytes when written again, is cut into
// pieces at a forced limit, and `verify` finds what was changed in it — a piece, an object, a packed
// page's entry, a row (with SHA256SUMS rewritten to match, so only the chain can tell), a run taken
// out — while an untouched part verifies against its chain and against the archive's.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import * as tar from 'tar';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { compactArchive } from '../../collector/ops/compact.ts';
import { loadKeys } from '../../collector/ops/verify-chain.ts';
import { objectKey, objectPath, pageKey, pagePath } from '../../src/archive/layout.ts';
import { readRosterBytes, listRosterFiles } from '../../src/archive/rosters.ts';
import { manifestBytes, manifestObjects, parseManifest, splitPage, VALIDATION_RECORD_FORMAT, type ValidationRecord } from '../../src/lib/index.ts';
import { writeValidationRecord } from '../../src/archive/validations.ts';
import { parseSums, partNames, sumsText, type PartDescriptor } from '../../src/outputs/month-parts.ts';
import { archiveMonths, COMMANDS, HELP, main, OPTIONS, readDescriptors, verifyParts, writeMonthPart, writePartsManifest } from '../../scripts/month-parts.ts';
import { fixtureArchive } from '../site/shared.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const tmp = scratchDirs();
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const MONTH = '2025-12';
const TODAY = '2026-01-01';
const NAMES = partNames(MONTH, true);
const verify = (targets: string[], chain?: string) => verifyParts(targets, { keys: loadKeys([]), ...(chain ? { chain: { dir: chain, name: chain } } : {}) });

/** Unpack a part's .tar.gz into a new folder; returns the part's own folder inside it. */
async function unpack(file: string): Promise<string> {
  const into = tmp('mcp-schema-part-unpacked-');
  await tar.x({ file, cwd: into });
  return path.join(into, NAMES.base);
}

/** A part's own SHA256SUMS rewritten for what its files are now (what someone hiding a change would do). */
function resum(folder: string): void {
  const listed = parseSums(readFileSync(path.join(folder, 'SHA256SUMS'), 'utf8'), 'SHA256SUMS');
  writeFileSync(path.join(folder, 'SHA256SUMS'), sumsText([...listed.keys()].map((name) => ({ name, sha256: sha(path.join(folder, name)) }))));
}

describe('npm run months', () => {
  let archive: string;
  let assets: string;
  let d: PartDescriptor;
  /** The roster page packed as its entries and a manifest (pages/), as the collector stores pages now. */
  let packed: { page: string; entry: string };

  beforeAll(async () => {
    archive = tmp('mcp-schema-months-archive-');
    cpSync(await fixtureArchive(), archive, { recursive: true });
    compactArchive(archive, { finished: true });
    // A roster page packed (its entries and a manifest under pages/), as the collector stores pages: the
    // first page of the first roster is packed here when the collector stored it whole.
    const roster = JSON.parse(readRosterBytes(archive, listRosterFiles(archive)[0]!)!.toString('utf8')) as { pages: { sha256: string }[] };
    const page = roster.pages[0]!.sha256;
    if (existsSync(objectPath(archive, page))) {
      const split = splitPage(readFileSync(objectPath(archive, page)))!;
      expect(split).not.toBeNull();
      const put = (file: string, bytes: Uint8Array) => {
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, bytes);
      };
      for (const e of split.entries) put(objectPath(archive, e.sha256), e.bytes);
      unlinkSync(objectPath(archive, page));
      put(pagePath(archive, page), manifestBytes(split.manifest));
    }
    const manifest = parseManifest(readFileSync(pagePath(archive, page)))!;
    packed = { page, entry: manifestObjects(manifest)[0]! };
    assets = path.join(tmp('mcp-schema-months-out-'), MONTH);
    d = await writeMonthPart(archive, MONTH, { out: assets, simulated: true, today: TODAY });
  }, 300_000);

  it('knows which months are closed: past, and every day file compacted', () => {
    expect(archiveMonths(archive, TODAY)).toEqual([{ month: MONTH, closed: true, reason: null }]);
    expect(archiveMonths(archive, '2025-12-31')[0]).toMatchObject({ closed: false, reason: 'its last day (2025-12-31) is not past (today is 2025-12-31)' });
  });

  it('refuses a month that is not closed, and a folder that is not empty', async () => {
    await expect(writeMonthPart(archive, MONTH, { out: path.join(tmp('mcp-schema-months-x-'), 'p'), simulated: true, today: '2025-12-31' })).rejects.toThrow(/2025-12 is not closed: its last day/);
    await expect(writeMonthPart(archive, MONTH, { out: assets, simulated: true, today: TODAY })).rejects.toThrow(/is not empty/);
    await expect(writeMonthPart(archive, '2026-01', { out: path.join(tmp('mcp-schema-months-x-'), 'p'), simulated: true, today: '2026-03-01' })).rejects.toThrow(/no day and no run/);
  });

  it("writes exactly the release's assets: the .tar.gz, its descriptor and SHA256SUMS, each named for the month", () => {
    expect(readdirSync(assets).sort()).toEqual([NAMES.sums, NAMES.descriptor, NAMES.tar].sort());
    expect(d).toMatchObject({ month: MONTH, tag: 'data-2025-12', simulated: true, folder: NAMES.base, file: { name: NAMES.tar }, pieces: [{ name: NAMES.tar }] });
    expect(d.file!.sha256).toBe(sha(path.join(assets, NAMES.tar)));
    expect(readFileSync(path.join(assets, NAMES.sums), 'utf8')).toBe(sumsText([{ name: NAMES.tar, sha256: d.file!.sha256 }, { name: NAMES.descriptor, sha256: sha(path.join(assets, NAMES.descriptor)) }]));
    const runs = readFileSync(path.join(archive, 'runs.jsonl'), 'utf8').split('\n').filter(Boolean);
    expect(d.runs.reduce((n, r) => n + r.lines, 0)).toBe(runs.length);
    expect(d.runs.every((r) => r.manifest !== null)).toBe(true);
    expect(d.day_files.every((f) => f.endsWith('.jsonl.gz'))).toBe(true);
    expect(d.day_files.some((f) => f.startsWith('observations-v2/'))).toBe(true);
  });

  it('holds the record as an archive folder: day files byte for byte, the packed page with its entries', async () => {
    const folder = await unpack(path.join(assets, NAMES.tar));
    for (const f of d.day_files) expect(sha(path.join(folder, f))).toBe(sha(path.join(archive, f)));
    expect(readFileSync(path.join(folder, pageKey(packed.page)))).toEqual(readFileSync(pagePath(archive, packed.page)));
    expect(readFileSync(path.join(folder, objectKey(packed.entry)))).toEqual(readFileSync(objectPath(archive, packed.entry)));
  });

  it('is the same bytes when written again (portable tar headers, a fixed mtime)', async () => {
    const again = path.join(tmp('mcp-schema-months-again-'), MONTH);
    const d2 = await writeMonthPart(archive, MONTH, { out: again, simulated: true, today: TODAY });
    expect(d2).toEqual(d);
  });

  it('verifies: against its own chain, and against the archive\'s', async () => {
    const r = await verify([assets]);
    expect(r.problems).toEqual([]);
    expect(r.parts).toEqual([expect.objectContaining({ month: MONTH, runs: d.runs.length, objects: d.objects })]);
    expect(r.warnings.some((w) => /demo key/.test(w))).toBe(true);
    expect((await verify([assets], archive)).problems).toEqual([]);
    // The .tar.gz alone, and the unpacked folder, too.
    expect((await verify([path.join(assets, NAMES.tar)])).problems).toEqual([]);
    expect((await verify([await unpack(path.join(assets, NAMES.tar))])).problems).toEqual([]);
  });

  it('carries the validation records scored in the month, and verify holds each to its name and to part.json', async () => {
    const withGate = tmp('mcp-schema-months-gate-');
    cpSync(archive, withGate, { recursive: true });
    const record = (day: string): ValidationRecord => ({
      format: VALIDATION_RECORD_FORMAT, scored_at: `${day}T09:00:00Z`, day, run_id: d.runs[0]!.run_id, run_day: d.runs[0]!.day, prober_version: 'p', seed: 20261012, n: 1, rule: 'rule',
      worksheet_sha256: 'a'.repeat(64), threshold: 0.9, agreement: { count: 1, n: 1, share: 1, lower: 0.2, upper: 1 }, kappa: null, expected: 1, passed: true,
      endpoints: [{ target: 't', endpoint: 'https://x.example/mcp', recorded: 'ok', reviewer: 'ok', note: null }], disagreements: [],
    });
    const inMonth = writeValidationRecord(withGate, record(`${MONTH}-20`)).file;
    writeValidationRecord(withGate, record('2026-01-02')); // another month's: not in this part
    const out = path.join(tmp('mcp-schema-months-gate-out-'), MONTH);
    const dg = await writeMonthPart(withGate, MONTH, { out, simulated: true, today: TODAY });
    expect(dg.validations).toEqual([inMonth]);
    const folder = await unpack(path.join(out, NAMES.tar));
    expect(readFileSync(path.join(folder, inMonth))).toEqual(readFileSync(path.join(withGate, inMonth)));
    expect((await verify([out])).problems).toEqual([]);
    // Near misses: an edited record no longer hashes to its name; one taken out is missed by part.json.
    const edited = await unpack(path.join(out, NAMES.tar));
    writeFileSync(path.join(edited, inMonth), readFileSync(path.join(edited, inMonth), 'utf8').replace('"passed": true', '"passed": false'));
    resum(edited);
    expect((await verify([edited])).problems).toEqual(expect.arrayContaining([expect.stringMatching(/not to its name/)]));
    const taken = await unpack(path.join(out, NAMES.tar));
    unlinkSync(path.join(taken, inMonth));
    writeFileSync(path.join(taken, 'SHA256SUMS'), readFileSync(path.join(taken, 'SHA256SUMS'), 'utf8').split('\n').filter((l) => !l.endsWith(inMonth)).join('\n'));
    expect((await verify([taken])).problems).toEqual([expect.stringMatching(/part\.json lists validation records .* the part holds \[\]/)]);
    // A month without a record makes the part it made before records existed: no validations key.
    expect('validations' in d).toBe(false);
  });

  it('is cut into numbered pieces at a forced limit, none over it, that join to the same file and verify', async () => {
    const limit = Math.ceil(d.file!.bytes / 3);
    const out = path.join(tmp('mcp-schema-months-split-'), MONTH);
    const s = await writeMonthPart(archive, MONTH, { out, simulated: true, today: TODAY, maxPieceBytes: limit });
    expect(s.pieces!.map((p) => p.name)).toEqual([`${NAMES.tar}.001`, `${NAMES.tar}.002`, `${NAMES.tar}.003`]);
    expect(readdirSync(out).sort()).toEqual([NAMES.sums, NAMES.descriptor, ...s.pieces!.map((p) => p.name)].sort());
    for (const p of s.pieces!) expect(readFileSync(path.join(out, p.name)).length).toBeLessThanOrEqual(limit);
    expect(Buffer.concat(s.pieces!.map((p) => readFileSync(path.join(out, p.name))))).toEqual(readFileSync(path.join(assets, NAMES.tar)));
    expect(s.file).toEqual(d.file);
    expect((await verify([out])).problems).toEqual([]);
    // A piece changed, or one missing: found.
    const second = path.join(out, s.pieces![1]!.name);
    const bytes = readFileSync(second);
    bytes[0]! ^= 1;
    writeFileSync(second, bytes);
    const changed = await verify([out]);
    expect(changed.problems).toContain(`${second}: its SHA-256 is not the one SHA256SUMS lists`);
    expect(changed.problems.some((p) => p.startsWith(`${MONTH}: ${s.pieces![1]!.name} is ${limit} bytes hashing to`))).toBe(true);
    unlinkSync(second);
    expect((await verify([out])).problems).toContain(`${MONTH}: piece ${s.pieces![1]!.name} is missing`);
  });

  it('finds a changed object, a changed entry of a packed page and an object taken out', async () => {
    const folder = await unpack(path.join(assets, NAMES.tar));
    const body = readFileSync(path.join(archive, d.day_files[0]!));
    const named = /"body_sha256":"([0-9a-f]{64})"/.exec(gunzipSync(body).toString('utf8'))![1]!;
    const f = path.join(folder, objectKey(named));
    const bytes = readFileSync(f);
    bytes[bytes.length >> 1]! ^= 0x20;
    writeFileSync(f, bytes);
    const entry = path.join(folder, objectKey(packed.entry));
    writeFileSync(entry, Buffer.concat([readFileSync(entry), Buffer.from(' ')]));
    const r = await verify([folder]);
    expect(r.problems.some((p) => p.includes(`${objectKey(named)}: bytes hash to`))).toBe(true);
    expect(r.problems.some((p) => p.includes(`${objectKey(packed.entry)}: bytes hash to`))).toBe(true);
    expect(r.problems.some((p) => p.includes(`${pageKey(packed.page)}: `) && /missing|does not join/.test(p))).toBe(true);
    unlinkSync(f);
    expect((await verify([folder])).problems.some((p) => p.includes(`names object ${named.slice(0, 12)}…, which the part does not hold`))).toBe(true);
  });

  it('finds a changed row even when SHA256SUMS was rewritten to match: the chain holds the rows', async () => {
    const folder = await unpack(path.join(assets, NAMES.tar));
    const file = d.day_files.find((f) => f.startsWith('observations/'))!;
    const lines = gunzipSync(readFileSync(path.join(folder, file))).toString('utf8').split('\n');
    const i = lines.findIndex((l) => l.includes('"outcome":"ok"'));
    lines[i] = lines[i]!.replace('"outcome":"ok"', '"outcome":"error"');
    writeFileSync(path.join(folder, file), gzipSync(lines.join('\n')));
    resum(folder);
    const r = await verify([folder]);
    expect(r.problems.filter((p) => p.includes('SHA256SUMS'))).toEqual([]);
    expect(r.problems.some((p) => new RegExp(`its rows in ${file.replace('.gz', '').replace(/\./g, '\\.')} hash to .* now, the manifest says`).test(p))).toBe(true);
  });

  it('finds a run taken out of the part (its rows, its run lines and part.json with it): the chain still names it', async () => {
    const folder = await unpack(path.join(assets, NAMES.tar));
    const gone = d.runs.at(-1)!.run_id;
    const keep = (text: string) => text.split('\n').filter((l) => !l.includes(`"run_id":"${gone}"`)).join('\n');
    writeFileSync(path.join(folder, 'runs.jsonl'), keep(readFileSync(path.join(folder, 'runs.jsonl'), 'utf8')));
    for (const f of d.day_files) writeFileSync(path.join(folder, f), gzipSync(keep(gunzipSync(readFileSync(path.join(folder, f))).toString('utf8'))));
    const part = JSON.parse(readFileSync(path.join(folder, 'part.json'), 'utf8')) as PartDescriptor;
    writeFileSync(path.join(folder, 'part.json'), `${JSON.stringify({ ...part, runs: part.runs.filter((r) => r.run_id !== gone) }, null, 2)}\n`);
    resum(folder);
    const r = await verify([folder]);
    expect(r.problems.some((p) => p.includes(`run ${gone}`) && p.includes('no longer in the archive'))).toBe(true);
  });

  it('the site manifest lists the part with the URL, size and SHA-256 of each file, and its SHA256SUMS checks them', () => {
    const parts = readDescriptors(path.dirname(assets));
    const out = tmp('mcp-schema-months-site-');
    writePartsManifest(parts, out, { releaseUrl: 'https://github.com/o/r/releases/download/{tag}/{name}', siteUrl: 'https://site.example/data/', notInParts: [], simulated: true });
    const m = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { simulated: boolean; parts: { month: string; file: { url: string; bytes: number; sha256: string } }[] };
    expect(m.simulated).toBe(true);
    expect(m.parts).toEqual([expect.objectContaining({ month: MONTH, file: { name: NAMES.tar, bytes: d.file!.bytes, sha256: d.file!.sha256, url: `https://github.com/o/r/releases/download/data-2025-12/${NAMES.tar}` } })]);
    const sums = parseSums(readFileSync(path.join(out, 'SHA256SUMS'), 'utf8'), 'SHA256SUMS');
    for (const name of [NAMES.tar, NAMES.descriptor]) expect(sums.get(name)).toBe(sha(path.join(assets, name)));
    expect(sums.get('manifest.json')).toBe(sha(path.join(out, 'manifest.json')));
    expect(() => writePartsManifest(parts, out, { releaseUrl: 'https://x/', siteUrl: '', notInParts: [], simulated: true })).toThrow(/\{tag\} and \{name\}/);
  });

  it('--help names every option and command the CLI takes, and nothing else', async () => {
    const named = new Set([...HELP.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1]!));
    expect([...named].sort()).toEqual(Object.keys(OPTIONS).sort());
    for (const c of COMMANDS) expect(HELP).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await main(['--help'])).toBe(0);
      expect(await main(['closed', '--data', archive, '--today', TODAY])).toBe(0);
      expect(out.mock.calls.at(-1)![0]).toBe(`${MONTH}\n`);
      expect(await main(['verify', assets, '--key', path.join(archive, 'keys', readdirSync(path.join(archive, 'keys'))[0]!)])).toBe(0);
    } finally {
      out.mockRestore();
    }
    const err: string[] = [];
    const io = { stdout: () => {}, stderr: (t: string) => void err.push(t), env: {} };
    expect(await main(['pack'], io)).toBe(2);
    expect(err.at(-1)).toBe('months: the command must be one of closed, write, verify, manifest, got "pack" (see --help)\n');
    expect(await main(['closed', '--nope'], io)).toBe(2);
    expect(err.at(-1)).toMatch(/^months: Unknown option '--nope' \(see --help\)\n$/);
    expect(await main(['write', '--month', '2026-1', '--out', '/tmp/x'], io)).toBe(2);
    expect(err.at(-1)).toBe('months: --month must be a month, YYYY-MM, got "2026-1"\n');
  });
});
