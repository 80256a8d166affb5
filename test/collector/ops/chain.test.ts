// The hash chain (chain.jsonl) on archives the collector wrote against the local world, signed with a
// test key, and on copies damaged the ways a rewrite of history would damage them: each must fail
// `verify` with a message that names the run.
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adoptChain, appendRunManifests, archiveDigests, readChain } from '../../../src/archive/chain.ts';
import { chainHash, checkManifest } from '../../../src/lib/index.ts';
import { generateKeyPair, writeKeyFiles } from '../../../collector/ops/keys.ts';
import { loadKeys } from '../../../collector/ops/verify-chain.ts';
import { verifyArchive } from '../../../collector/ops/verify.ts';
import { collectArchive } from '../../helpers/archive.ts';

const key = generateKeyPair('test');
const other = generateKeyPair('test');
let keyFile: string;
let base: string;
let runIds: string[];
const scratch: string[] = [];

beforeAll(async () => {
  const keys = mkdtempSync(join(tmpdir(), 'mcps-chain-keys-'));
  scratch.push(keys);
  keyFile = writeKeyFiles(key, 'test', keys, null).publicFile;
  base = await collectArchive({ seed: 'chain', size: 30, days: 4, signer: key.signer });
  runIds = readFileSync(join(base, 'runs.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { run_id: string }).run_id);
}, 180_000);

afterAll(() => {
  for (const d of [base, ...scratch]) if (d) rmSync(d, { recursive: true, force: true });
});

function copy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcps-chain-'));
  scratch.push(dir);
  cpSync(base, dir, { recursive: true });
  return dir;
}

const verify = (dir: string) => verifyArchive(dir, { keys: loadKeys([keyFile]) });
const chainProblems = async (dir: string) => (await verify(dir)).problems.filter((p) => p.kind.startsWith('chain'));
const lines = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean);

describe('the collector appends a manifest per run', () => {
  it('writes a genesis and one signed manifest per run, each naming the one before', () => {
    const { manifests, problems } = readChain(base);
    expect(problems).toEqual([]);
    expect(manifests.map((m) => m.manifest.kind)).toEqual(['genesis', 'run', 'run', 'run', 'run']);
    expect(manifests.slice(1).map((m) => m.manifest.run_id)).toEqual(runIds);
    for (let i = 1; i < manifests.length; i++) expect(manifests[i]!.manifest.prev).toBe(chainHash(manifests[i - 1]!.manifest));
    expect(manifests[0]!.manifest.unchained_runs).toBe(0);
    expect(manifests.every((m) => m.manifest.signature?.key_id === key.keyId)).toBe(true);
  });

  it('records the exact bytes of the run\'s lines', async () => {
    const m = readChain(base).manifests[1]!.manifest;
    const day = `observations/${m.day}.jsonl`;
    const text = readFileSync(join(base, day), 'utf8');
    const own = text.split('\n').filter((l) => l.includes(`"run_id":"${m.run_id}"`));
    const { createHash } = await import('node:crypto');
    expect(m.rows).toEqual([{ file: day, lines: own.length, sha256: createHash('sha256').update(own.map((l) => `${l}\n`).join('')).digest('hex') }]);
    expect(m.objects!.lines).toBeGreaterThan(1);
  });

  it('passes verify with the key, and names the head', async () => {
    const report = await verify(base);
    expect(report.problems).toEqual([]);
    expect(report.chain!.head!.run_id).toBe(runIds.at(-1));
    expect(report.warnings.filter((w) => w.kind.startsWith('chain'))).toEqual([]);
  });

  it('reads the same digests after compaction gzips the closed days', async () => {
    const dir = copy();
    const before = await archiveDigests(dir);
    const { compactArchive } = await import('../../../collector/ops/compact.ts');
    expect(compactArchive(dir).compacted.length).toBeGreaterThan(0);
    expect(await archiveDigests(dir)).toEqual(before);
    expect(await chainProblems(dir)).toEqual([]);
  });
});

describe('verify fails on a rewritten history, naming the run', () => {
  it('one flipped byte in an old row', async () => {
    const dir = copy();
    const m = readChain(dir).manifests[1]!.manifest;
    const file = join(dir, `observations/${m.day}.jsonl`);
    const text = readFileSync(file, 'utf8');
    // The last digit of a latency's integer part: the row still validates (never a leading zero,
    // which JSON refuses), only the chain can tell.
    const at = text.search(/"latency_ms":\d/) + '"latency_ms":'.length;
    let last = at;
    while (/\d/.test(text[last + 1] ?? '')) last++;
    const flipped = text.slice(0, last) + String((Number(text[last]) + 1) % 10) + text.slice(last + 1);
    expect(flipped.length).toBe(text.length);
    expect(flipped).not.toBe(text);
    writeFileSync(file, flipped);
    const problems = await chainProblems(dir);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]!.message).toContain(`run ${m.run_id}`);
    expect(problems[0]!.message).toContain('its rows in');
    expect((await verify(dir)).problems.filter((p) => !p.kind.startsWith('chain'))).toEqual([]);
  });

  it('a removed run (its manifest taken out of the chain)', async () => {
    const dir = copy();
    const chain = lines(dir, 'chain.jsonl');
    writeFileSync(join(dir, 'chain.jsonl'), [...chain.slice(0, 2), ...chain.slice(3)].map((l) => `${l}\n`).join(''));
    const messages = (await chainProblems(dir)).map((p) => p.message);
    expect(messages[0]).toContain(`run ${runIds[2]}`);
    expect(messages.join('\n')).toContain(`run ${runIds[1]}: recorded in runs.jsonl but has no manifest`);
  });

  it('a removed run (its rows and run line taken out of the archive)', async () => {
    const dir = copy();
    const victim = runIds[1]!;
    writeFileSync(join(dir, 'runs.jsonl'), lines(dir, 'runs.jsonl').filter((l) => !l.includes(victim)).map((l) => `${l}\n`).join(''));
    const day = readChain(dir).manifests[2]!.manifest.day!;
    unlinkSync(join(dir, `observations/${day}.jsonl`));
    const messages = (await chainProblems(dir)).map((p) => p.message);
    expect(messages[0]).toBe(`run ${victim} (manifest 2): the run is in the chain but no longer in the archive (removed from runs.jsonl)`);
  });

  it('a reordered run', async () => {
    const dir = copy();
    const chain = lines(dir, 'chain.jsonl');
    [chain[2], chain[3]] = [chain[3]!, chain[2]!];
    writeFileSync(join(dir, 'chain.jsonl'), chain.map((l) => `${l}\n`).join(''));
    const messages = (await chainProblems(dir)).map((p) => p.message);
    expect(messages[0]).toContain(`run ${runIds[2]} (manifest 3)`);
    expect(messages[0]).toContain('removed or reordered');
  });

  it('a reordered run in runs.jsonl', async () => {
    const dir = copy();
    const runs = lines(dir, 'runs.jsonl');
    [runs[1], runs[2]] = [runs[2]!, runs[1]!];
    writeFileSync(join(dir, 'runs.jsonl'), runs.map((l) => `${l}\n`).join(''));
    const messages = (await chainProblems(dir)).map((p) => p.message);
    expect(messages).toContain(`run ${runIds[2]}: runs.jsonl and the chain list the runs in a different order (runs were reordered)`);
  });

  it('a bad signature', async () => {
    const dir = copy();
    const chain = lines(dir, 'chain.jsonl');
    const m = JSON.parse(chain[3]!) as { signature: { value: string } };
    const sig = Buffer.from(m.signature.value, 'base64');
    sig[10]! ^= 0x01;
    m.signature.value = sig.toString('base64');
    chain[3] = JSON.stringify(m);
    writeFileSync(join(dir, 'chain.jsonl'), chain.map((l) => `${l}\n`).join(''));
    const problems = await chainProblems(dir);
    expect(problems.map((p) => p.message)).toEqual([`run ${runIds[2]} (manifest 3): the signature by ${key.keyId} does not verify (the manifest or its signature was changed)`]);
  });

  it('a chain re-sealed after an edit with another key', async () => {
    const dir = copy();
    rmSync(join(dir, 'chain.jsonl'));
    await adoptChain(dir, { signer: other.signer, sealedAt: '2026-01-01T00:00:00.000Z' });
    const messages = (await chainProblems(dir)).map((p) => p.message);
    expect(messages[0]).toBe(`genesis (manifest 0): signed by key ${other.keyId}, which is not among the keys given`);
  });
});

describe('how a chain starts on an archive that has none', () => {
  let plain: string;
  beforeAll(async () => {
    plain = copy();
    rmSync(join(plain, 'chain.jsonl'));
  });

  it('verify warns that no run is covered, and does not fail', async () => {
    const report = await verify(plain);
    expect(report.problems).toEqual([]);
    expect(report.warnings.map((w) => w.message)).toContain(`no chain: the ${runIds.length} runs of this archive are not covered (npm run chain -- --adopt covers them, from today)`);
  });

  it('--adopt writes adopted manifests that say when, and the next run chains after them', async () => {
    const dir = copy();
    rmSync(join(dir, 'chain.jsonl'));
    const written = await adoptChain(dir, { signer: null, sealedAt: '2026-02-01T12:00:00.000Z' });
    expect(written.map((m) => m.kind)).toEqual(['genesis', ...runIds.map(() => 'adopted')]);
    expect(written[0]!.note).toContain('Adopted on 2026-02-01');
    const report = await verify(dir);
    expect(report.problems).toEqual([]);
    expect(report.warnings.map((w) => w.kind)).toEqual(expect.arrayContaining(['chain-adopted', 'chain-unsigned']));
    await expect(adoptChain(dir, { signer: null, sealedAt: '2026-02-02T00:00:00.000Z' })).rejects.toThrow(/exists/);
    await collectArchive({ seed: 'chain', size: 30, days: 1, firstDay: 4 }, dir, true);
    const chain = readChain(dir).manifests.map((m) => m.manifest);
    expect(chain.at(-1)!.kind).toBe('run');
    expect((await verify(dir)).problems).toEqual([]);
  }, 60_000);

  it('a collector run on an archive without a chain starts one that says which runs it does not cover', async () => {
    const dir = copy();
    rmSync(join(dir, 'chain.jsonl'));
    await collectArchive({ seed: 'chain', size: 30, days: 1, firstDay: 4 }, dir, true);
    const [genesis, first] = readChain(dir).manifests.map((m) => m.manifest);
    expect(genesis!.unchained_runs).toBe(runIds.length);
    const report = await verify(dir);
    expect(report.problems).toEqual([]);
    expect(report.warnings.map((w) => w.message)).toContain(`No chain before run ${first!.run_id}: the ${runIds.length} runs recorded before it are not covered.`);
  }, 60_000);

  it('a manifest lost to a crash after the run row is sealed by the next run', async () => {
    const dir = copy();
    const chain = lines(dir, 'chain.jsonl');
    writeFileSync(join(dir, 'chain.jsonl'), chain.slice(0, -1).map((l) => `${l}\n`).join(''));
    const written = await appendRunManifests(dir, 'not-a-run', { signer: key.signer, sealedAt: '2026-03-01T00:00:00.000Z' });
    expect(written.map((m) => m.run_id)).toEqual([runIds.at(-1)]);
    expect((await chainProblems(dir))).toEqual([]);
  });
});

describe('checkManifest(manifest, prev, expected, keys)', () => {
  it('finds nothing wrong with a manifest and the digest it was sealed from', async () => {
    const chain = readChain(base).manifests.map((m) => m.manifest);
    const digests = await archiveDigests(base);
    const keys = loadKeys([keyFile]);
    for (let i = 1; i < chain.length; i++) expect(checkManifest(chain[i]!, chain[i - 1]!, digests.get(chain[i]!.run_id!)!, () => keys[0]!.key)).toEqual([]);
  });
});
