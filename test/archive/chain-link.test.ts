// The chain's link to the manifest before it, on an UNSIGNED archive — the real archive
// runs unsigned until its operator creates a key, and then the link is the only thing that shows a
// manifest rewritten in the middle of the chain: a rewrite that edits a run's rows and re-seals that
// run's manifest to match (same seq, same prev, every hash of its own consistent) passes every check
// on the rewritten manifest itself; only the next manifest, which names the hash of the original,
// gives it away.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readChain, runDigest } from '../../src/archive/chain.ts';
import { chainHash, chainLine, type ChainManifest } from '../../src/lib/index.ts';
import { verifyArchive } from '../../collector/ops/verify.ts';
import { collectArchive } from '../helpers/archive.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const tmp = scratchDirs();
let base: string;

beforeAll(async () => {
  base = await collectArchive({ seed: 'chain-link', size: 6, days: 4 }, tmp('mcps-chain-link-base-'), false);
}, 120_000);

function copy(): string {
  const dir = tmp('mcps-chain-link-');
  cpSync(base, dir, { recursive: true });
  return dir;
}

const chainProblems = async (dir: string) => (await verifyArchive(dir, { keys: [] })).problems.filter((p) => p.kind.startsWith('chain'));
const chainLines = (dir: string) => readFileSync(join(dir, 'chain.jsonl'), 'utf8').split('\n').filter(Boolean);

/** Change one digit of a latency in `run`'s first row of `file` (the row still validates). */
function editRow(dir: string, file: string, run: string): void {
  const path = join(dir, file);
  const lines = readFileSync(path, 'utf8').split('\n');
  const i = lines.findIndex((l) => l.startsWith(`{"run_id":"${run}"`) && /"latency_ms":\d/.test(l));
  expect(i).toBeGreaterThanOrEqual(0);
  const line = lines[i]!;
  let at = line.search(/"latency_ms":\d/) + '"latency_ms":'.length;
  while (/\d/.test(line[at + 1] ?? '')) at++;
  lines[i] = line.slice(0, at) + String((Number(line[at]) + 1) % 10) + line.slice(at + 1);
  writeFileSync(path, lines.join('\n'));
}

/** The manifest at `index` re-sealed over what the archive holds for its run now: same seq, same prev, no signature. */
async function reseal(dir: string, index: number): Promise<ChainManifest> {
  const lines = chainLines(dir);
  const m = JSON.parse(lines[index]!) as ChainManifest;
  const d = (await runDigest(dir, m.run_id!))!;
  const edited: ChainManifest = { ...m, runs: d.runs, roster: d.roster, rows: d.rows, objects: d.objects };
  lines[index] = chainLine(edited).trimEnd();
  writeFileSync(join(dir, 'chain.jsonl'), lines.map((l) => `${l}\n`).join(''));
  return edited;
}

describe('an unsigned chain: a manifest rewritten in the middle, its rows edited to match', () => {
  it('the archive is unsigned and verifies clean before the edit', async () => {
    const chain = readChain(base).manifests.map((m) => m.manifest);
    expect(chain.map((m) => m.kind)).toEqual(['genesis', 'run', 'run', 'run', 'run']);
    expect(chain.every((m) => m.signature === null)).toBe(true);
    expect(await chainProblems(base)).toEqual([]);
  });

  it('near miss: the rows edited alone are caught by the run\'s own digest, on that run', async () => {
    const dir = copy();
    const m = readChain(dir).manifests[2]!.manifest;
    editRow(dir, `observations/${m.day}.jsonl`, m.run_id!);
    const problems = await chainProblems(dir);
    expect(problems.map((p) => p.kind)).toEqual(['chain-digest']);
    expect(problems[0]!.message).toContain(`run ${m.run_id} (manifest 2): its rows in observations/${m.day}.jsonl hash to`);
  });

  it('is reported by the next manifest\'s link, naming both hashes, and by nothing else', async () => {
    const dir = copy();
    const before = readChain(dir).manifests.map((x) => x.manifest);
    const m = before[2]!;
    editRow(dir, `observations/${m.day}.jsonl`, m.run_id!);
    const edited = await reseal(dir, 2);
    expect(edited.rows).not.toEqual(m.rows);
    expect(edited.seq).toBe(m.seq);
    expect(edited.prev).toBe(chainHash(before[1]!));
    const problems = await chainProblems(dir);
    expect(problems).toEqual([
      {
        kind: 'chain-link',
        where: expect.any(String),
        message: `run ${before[3]!.run_id} (manifest 3): names ${chainHash(m).slice(0, 12)}… as the manifest before it, but the one before it hashes to ${chainHash(edited).slice(0, 12)}… (a manifest was changed, removed or reordered)`,
      },
    ]);
  });

  it('near miss: re-sealing the same rows changes nothing, so the link holds and verify stays clean', async () => {
    const dir = copy();
    await reseal(dir, 2);
    expect(chainLines(dir)).toEqual(chainLines(base));
    expect(await chainProblems(dir)).toEqual([]);
  });
});
