// npm run verify on a real archive — written by the collector against the local world over a few
// simulated days — and on copies of it damaged in the ways a crash or a bad disk damages files.
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyArchive } from '../../../collector/ops/verify.ts';
import { chainPath, objectPath } from '../../../src/archive/layout.ts';
import { collectArchive } from '../../helpers/archive.ts';

let base: string;
const scratch: string[] = [];

beforeAll(async () => {
  base = await collectArchive({ seed: 'verify', size: 60, days: 3 });
});

afterAll(() => {
  for (const d of [base, ...scratch]) if (d) rmSync(d, { recursive: true, force: true });
});

function damagedCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcps-verify-damaged-'));
  scratch.push(dir);
  cpSync(base, dir, { recursive: true });
  return dir;
}

function someObject(dir: string): string {
  const shard = readdirSync(join(dir, 'objects')).sort()[0]!;
  return join(dir, 'objects', shard, readdirSync(join(dir, 'objects', shard)).sort()[0]!);
}

/** An object a row names itself (not an entry of a packed listing page, whose loss makes its page corrupt instead). */
function rowObject(dir: string): string {
  for (const line of readFileSync(firstDayFile(dir), 'utf8').split('\n').filter(Boolean)) {
    const sha = (JSON.parse(line) as { body_sha256: string | null }).body_sha256;
    if (sha && existsSync(objectPath(dir, sha))) return objectPath(dir, sha);
  }
  throw new Error('no row names a stored body');
}

function firstDayFile(dir: string): string {
  return join(dir, 'observations', readdirSync(join(dir, 'observations')).sort()[0]!);
}

const kinds = async (dir: string) => (await verifyArchive(dir)).problems.map((p) => p.kind);

describe('verifyArchive(dir)', () => {
  it('passes a collector-written archive of three runs', async () => {
    const report = await verifyArchive(base);
    expect(report.problems).toEqual([]);
    expect(report.runs).toBe(3);
    expect(report.dayFiles).toBe(3);
    expect(report.rows).toBeGreaterThanOrEqual(3 * 50);
    expect(report.objects).toBeGreaterThan(3);
  });

  it('accepts run rows written before not_attempted existed, and fails on not_attempted counts the rows do not hold', async () => {
    const dir = damagedCopy();
    const runsFile = join(dir, 'runs.jsonl');
    const runs = readFileSync(runsFile, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    expect(runs.every((r) => r.outcomes.not_attempted === 0 && r.scheduling?.scheduler === 'lpt')).toBe(true);
    // Such rows predate the hash chain too: an archive of that time has none (verify warns, it does not fail).
    rmSync(chainPath(dir));
    // As a collector before the host-aware schedule wrote them: no not_attempted count, no scheduling.
    const old = runs.map(({ scheduling: _s, ...r }) => ({ ...r, outcomes: Object.fromEntries(Object.entries(r.outcomes).filter(([k]) => k !== 'not_attempted')) }));
    writeFileSync(runsFile, old.map((r) => JSON.stringify(r)).join('\n') + '\n');
    expect(await kinds(dir)).toEqual([]);
    const wrong = runs.map((r, i) => (i === 0 ? { ...r, scheduling: { ...r.scheduling, not_attempted: { host_unresponsive: 2, run_deadline: 0 } } } : r));
    writeFileSync(runsFile, wrong.map((r) => JSON.stringify(r)).join('\n') + '\n');
    expect(await kinds(dir)).toEqual(['run-counts']);
    const said = runs.map((r, i) => (i === 0 ? { ...r, outcomes: { ...r.outcomes, not_attempted: 1 } } : r));
    writeFileSync(runsFile, said.map((r) => JSON.stringify(r)).join('\n') + '\n');
    expect(await kinds(dir)).toEqual(['run-counts']);
  });

  it('fails on a flipped byte in an object', async () => {
    const dir = damagedCopy();
    const path = someObject(dir);
    const bytes = readFileSync(path);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    writeFileSync(path, bytes);
    expect(await kinds(dir)).toContain('object-corrupt');
  });

  it('fails on a duplicated row', async () => {
    const dir = damagedCopy();
    const file = firstDayFile(dir);
    const first = readFileSync(file, 'utf8').split('\n')[0]!;
    appendFileSync(file, `${first}\n`);
    const found = await kinds(dir);
    expect(found).toContain('row-duplicate');
    // The run row no longer agrees with its rows either.
    expect(found).toContain('run-counts');
  });

  it('fails on a torn last line', async () => {
    const dir = damagedCopy();
    const file = firstDayFile(dir);
    appendFileSync(file, '{"run_id":"2025-12-15T031500Z","day":"2025-12-');
    expect(await kinds(dir)).toEqual(expect.arrayContaining(['torn-line', 'row-invalid']));
  });

  it('fails on a missing object', async () => {
    const dir = damagedCopy();
    unlinkSync(rowObject(dir));
    expect(await kinds(dir)).toContain('object-missing');
  });

  it('fails on a temp file left in objects/', async () => {
    const dir = damagedCopy();
    const shard = readdirSync(join(dir, 'objects')).sort()[0]!;
    writeFileSync(join(dir, 'objects', shard, `${shard}deadbeef.tmp-123`), 'partial');
    expect(await kinds(dir)).toContain('orphan');
  });
});
