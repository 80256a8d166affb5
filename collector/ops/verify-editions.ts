// The editions' part of `npm run verify`: every edition folder has a valid edition.json, every file
// matches its SHA256SUMS and every file is listed, SHA256SUMS.sig verifies with the key edition.json
// names, and the chain manifest it names is on the chain with that hash. An edition never changes
// after it is cut, so any difference is a problem named by the edition and the file.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readChain } from '../../src/archive/chain.ts';
import { readEditions } from '../../src/archive/editions.ts';
import { LAYOUT } from '../../src/archive/layout.ts';
import { hashFile } from '../../src/archive/objects.ts';
import { chainHash, isDemoKey, verifyBytes } from '../../src/lib/index.ts';
import { demoKeys, type Finding, type TrustedKey } from './verify-chain.ts';

export async function verifyEditions(dir: string, trusted: readonly TrustedKey[]): Promise<{ editions: number; problems: Finding[]; warnings: Finding[] }> {
  const problems: Finding[] = [];
  const warnings: Finding[] = [];
  const { editions, problems: read } = readEditions(dir);
  for (const p of read) problems.push({ kind: 'edition-invalid', where: p.file, message: p.message });
  const chain = new Map(readChain(dir).manifests.map((m) => [m.manifest.seq, m.manifest]));
  for (const { id, dir: edir, edition: e } of editions) {
    const where = `${LAYOUT.editions}/${id}`;
    const problem = (message: string) => problems.push({ kind: 'edition', where, message: `edition ${id}: ${message}` });
    const sumsFile = join(edir, 'SHA256SUMS');
    if (!existsSync(sumsFile)) {
      problem('SHA256SUMS is missing');
      continue;
    }
    const sums = readFileSync(sumsFile);
    const listed = new Map(sums.toString('utf8').split('\n').filter(Boolean).map((l) => [l.slice(66), l.slice(0, 64)]));
    for (const [name, hash] of listed) {
      const file = join(edir, name);
      if (!existsSync(file)) problem(`${name} is listed in SHA256SUMS but missing`);
      else if ((await hashFile(file)) !== hash) problem(`${name} does not match SHA256SUMS`);
    }
    for (const f of readdirSync(edir, { recursive: true, withFileTypes: true })) {
      if (!f.isFile()) continue;
      const name = relative(edir, join(f.parentPath, f.name));
      if (name !== 'SHA256SUMS' && name !== 'SHA256SUMS.sig' && !listed.has(name)) problem(`${name} is not listed in SHA256SUMS (added after the cut)`);
    }
    const sig = join(edir, 'SHA256SUMS.sig');
    if (e.signed_by) {
      const fp = e.signed_by.slice(-16);
      const pool = isDemoKey(e.signed_by) ? [...trusted, ...demoKeys(dir)] : trusted;
      const key = pool.find((k) => k.fingerprint === fp)?.key ?? null;
      if (!existsSync(sig)) problem('SHA256SUMS.sig is missing');
      else if (!key) problem(`signed by key ${e.signed_by}, which is not among the keys given`);
      else if (!verifyBytes(sums, readFileSync(sig), key)) problem(`SHA256SUMS.sig by ${e.signed_by} does not verify`);
    } else warnings.push({ kind: 'edition-unsigned', where, message: `edition ${id} is unsigned` });
    if (e.chain_head) {
      const m = chain.get(e.chain_head.seq);
      if (!m || m.run_id !== e.chain_head.run_id || chainHash(m) !== e.chain_head.sha256) problem(`names chain manifest ${e.chain_head.seq} of run ${e.chain_head.run_id} (${e.chain_head.sha256.slice(0, 12)}…), which the chain does not hold`);
    }
  }
  return { editions: editions.length, problems, warnings };
}
