// The hash chain's part of `npm run verify` (methodology v1, "Verifiable history"): every manifest of
// chain.jsonl checked in order against the one before it, its signature and what the archive holds
// for its run now (src/lib/chain.ts checkManifest, digests from src/archive/chain.ts); the runs of
// runs.jsonl against the chain's order; and the first broken link named by its run.
//
// Keys: `trusted` are the project's public keys (the repo's keys/ by default; `--key`); a key id
// labelled DEMO is also looked up in the archive's own keys/ folder (the demo's), and verifies with a
// warning that it proves nothing about who wrote the archive. Unsigned manifests are a warning; a
// signature that does not verify, an unknown key, or an unsigned manifest after one signed by a
// trusted key (a rewritten tail cannot be re-signed without the key) is a problem.
//
// Incremental (verify.ts, from a verified head in verify-state.json): the manifests up to the head
// are pinned by it — verify.ts has checked that chain.jsonl's lines through the head are the bytes it
// verified — so only the manifests after it are checked, and only their runs' digests are computed
// (runDigest, one run's day at a time). Which manifests were signed by a trusted key, the warnings and
// the order of runs.jsonl against the chain are worked out over the whole chain either way: they read
// chain.jsonl and runs.jsonl only, a few KB a day, no row, roster or object.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { archiveDigests, readChain, runDigest, runsByRun } from '../../src/archive/chain.ts';
import { LAYOUT } from '../../src/archive/layout.ts';
import { chainHash, checkManifest, isDemoKey, keyIdOf, publicKeyFromPem, type ChainManifest, type RunDigest } from '../../src/lib/index.ts';

/** One thing verify found: what kind, where (a file, a line), and a message. */
export interface Finding {
  kind: string;
  where: string;
  message: string;
}

export interface ChainReport {
  manifests: number;
  /** Manifests whose link, signature and run digest were checked (all of them in a full verify). */
  checked: number;
  /** The last manifest: its seq, hash, run, signing key and line of chain.jsonl (1-based). */
  head: { seq: number; hash: string; run_id: string | null; key_id: string | null; line: number } | null;
  problems: Finding[];
  warnings: Finding[];
}

/** A public key with the fingerprint its key ids end in. */
export interface TrustedKey {
  file: string;
  key: KeyObject;
  fingerprint: string;
}

/** Public keys from PEM files (SPKI), each with its fingerprint. */
export function loadKeys(files: readonly string[]): TrustedKey[] {
  return files.map((file) => {
    const key = publicKeyFromPem(readFileSync(file, 'utf8'));
    return { file, key, fingerprint: fingerprintOf(keyIdOf(key, 'k')) };
  });
}

export interface ChainOptions {
  /**
   * Lines of chain.jsonl already verified (incremental): the manifests on them are not checked again
   * and their runs' digests are not computed. 0 (default): every manifest is checked.
   */
  verifiedLines?: number;
  /**
   * Only the runs of these days have their digests recomputed (a part of a full verify, which holds
   * only its days' files); the others' manifests are checked for links, order and signatures.
   */
  digestDays?: ReadonlySet<string>;
}

export async function verifyChain(dir: string, trusted: readonly TrustedKey[], options: ChainOptions = {}): Promise<ChainReport> {
  const report: ChainReport = { manifests: 0, checked: 0, head: null, problems: [], warnings: [] };
  const verifiedLines = options.verifiedLines ?? 0;
  const problem = (kind: string, where: string, message: string) => report.problems.push({ kind, where, message });
  const warn = (kind: string, where: string, message: string) => report.warnings.push({ kind, where, message });
  const { manifests, problems } = readChain(dir);
  for (const p of problems) problem('chain-invalid', `${p.file}:${p.line}`, p.message);
  const runs = runsByRun(dir);
  const order = [...runs.keys()];
  if (manifests.length === 0) {
    if (order.length > 0) warn('chain-missing', LAYOUT.chain, `no chain: the ${order.length} runs of this archive are not covered (npm run chain -- --adopt covers them, from today)`);
    return report;
  }
  const demo = demoKeys(dir);
  const keyFor = (keyId: string): KeyObject | null => {
    const fp = fingerprintOf(keyId);
    const pool = isDemoKey(keyId) ? [...trusted, ...demo] : trusted;
    return pool.find((k) => k.fingerprint === fp)?.key ?? null;
  };
  // Full: every run's digest in one pass over the day files. Incremental: only the runs after the
  // head, each from its own day (as the collector sealed it).
  const digestDays = options.digestDays ?? null;
  const all = verifiedLines === 0 && digestDays === null ? await archiveDigests(dir) : null;
  const digestOf = async (id: string): Promise<RunDigest | null> => (all ? (all.get(id) ?? null) : await runDigest(dir, id));
  let prev: ChainManifest | null = null;
  let signedByTrusted: string | null = null;
  let unsigned = 0;
  const demoSigned = new Set<string>();
  const adopted: ChainManifest[] = [];
  for (const { n, manifest: m } of manifests) {
    const where = `${LAYOUT.chain}:${n}`;
    // A manifest on a verified line is pinned by the verified head: nothing about it is reported again.
    const pinned = n <= verifiedLines;
    if (!pinned) {
      report.checked++;
      const outside = digestDays !== null && m.run_id !== null && runs.has(m.run_id) && !digestDays.has(m.day ?? runs.get(m.run_id)?.ref?.day ?? '');
      // A run outside the part: its manifest's own digest stands in, so only links, order and signature are compared.
      const expected = outside && m.runs && m.objects ? { runs: m.runs, roster: m.roster, rows: m.rows, objects: m.objects } : m.run_id && runs.has(m.run_id) ? await digestOf(m.run_id) : null;
      for (const p of checkManifest(m, prev, expected, keyFor)) problem(p.kind, where, p.message);
    }
    const who = m.run_id ? `run ${m.run_id} (manifest ${m.seq})` : `genesis (manifest ${m.seq})`;
    if (!m.signature) {
      unsigned++;
      if (signedByTrusted && !pinned) problem('chain-signature', where, `${who}: unsigned after manifests signed by ${signedByTrusted} (a tail written without the key)`);
    } else if (isDemoKey(m.signature.key_id)) {
      demoSigned.add(m.signature.key_id);
      if (signedByTrusted && !pinned) problem('chain-signature', where, `${who}: signed by demo key ${m.signature.key_id} after manifests signed by ${signedByTrusted}`);
    } else if (keyFor(m.signature.key_id)) signedByTrusted ??= m.signature.key_id;
    if (m.kind === 'genesis' && m.unchained_runs) warn('chain-start', where, m.note ?? `no chain before manifest ${m.seq + 1}: ${m.unchained_runs} runs are not covered`);
    if (m.kind === 'adopted') adopted.push(m);
    prev = m;
  }
  // Every run of runs.jsonl after the unchained ones has a manifest, in the same order.
  const genesis = manifests[0]!.manifest;
  const skip = genesis.kind === 'genesis' ? (genesis.unchained_runs ?? 0) : 0;
  const chainedRuns = manifests.map((l) => l.manifest.run_id).filter((id): id is string => id !== null);
  const recorded = order.slice(skip);
  for (let i = 0; i < Math.max(recorded.length, chainedRuns.length); i++) {
    const want = recorded[i];
    const got = chainedRuns[i];
    if (want === got) continue;
    if (want !== undefined && !chainedRuns.includes(want)) problem('chain-link', LAYOUT.runs, `run ${want}: recorded in runs.jsonl but has no manifest on the chain`);
    else if (got !== undefined && !runs.has(got)) {
      /* reported by checkManifest: in the chain, gone from the archive */
    } else problem('chain-link', LAYOUT.runs, `run ${want ?? got}: runs.jsonl and the chain list the runs in a different order (runs were reordered)`);
    break;
  }
  if (adopted.length > 0) warn('chain-adopted', LAYOUT.chain, `runs ${adopted[0]!.run_id} to ${adopted.at(-1)!.run_id} were adopted on ${adopted[0]!.sealed_at.slice(0, 10)}: their manifests show they have not changed since that day, not before`);
  if (unsigned > 0 && !signedByTrusted) warn('chain-unsigned', LAYOUT.chain, `${unsigned} of ${manifests.length} manifests are unsigned: the chain shows the history is consistent, not who wrote it`);
  for (const k of demoSigned) warn('chain-demo-key', LAYOUT.chain, `signed with the demo key ${k}: it proves only that nothing changed since the demo wrote it`);
  const last = manifests.at(-1)!;
  const head = last.manifest;
  report.manifests = manifests.length;
  report.head = { seq: head.seq, hash: chainHash(head), run_id: head.run_id, key_id: head.signature?.key_id ?? null, line: last.n };
  return report;
}

/** The public keys in the archive's keys/ folder: only DEMO keys are honoured from there (the real key is never part of the data). */
export function demoKeys(dir: string): TrustedKey[] {
  const keys = join(dir, LAYOUT.keys);
  return loadKeys(existsSync(keys) ? readdirSync(keys).filter((f) => f.startsWith('DEMO') && f.endsWith('.pub')).sort().map((f) => join(keys, f)) : []);
}

function fingerprintOf(keyId: string): string {
  return keyId.slice(-16);
}
