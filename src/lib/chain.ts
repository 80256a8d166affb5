// The archive's hash chain (methodology v1, "Verifiable history"): one manifest per collector run,
// appended to chain.jsonl, each naming the hash of the one before it. A manifest pins, by SHA-256,
// the exact bytes of every row line the run wrote (whatever series folder it wrote them to), its
// lines of runs.jsonl, its roster file and the set of raw objects its rows and roster point at. A
// manifest's hash is the SHA-256 of its RFC 8785 (JCS) form without its signature, so any JCS library
// recomputes it; the signature is Ed25519 (RFC 8032, node:crypto) over `CHAIN_MESSAGE_PREFIX + hash`,
// so `openssl pkeyutl -verify -rawin` checks a head with nothing but its hash.
//
// What it proves: rows, runs and rosters covered by a signed manifest have not changed since that
// manifest was written (by whoever holds the key). What it does not: that they were true, or that
// rows written before the chain started ("no chain before run X") or manifests written after the
// fact ("adopted") were unchanged before the date they were sealed — they say so themselves.
//
// Pure: the bytes come in as arguments (src/archive/chain.ts reads them), keys as PEM text.
import { createPrivateKey, createPublicKey, sign as edSign, verify as edVerify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { rfc8785Json, SHA256_HEX, sha256Hex } from './canonical.ts';

/** The format name every manifest carries. */
export const CHAIN_FORMAT = 'mcp-schema/chain/v1' as const;
/** What is signed: this prefix and the manifest's hash in hex (domain separation from any other use of the key). */
export const CHAIN_MESSAGE_PREFIX = 'mcp-schema chain v1\n';
/**
 * Row fields that name raw objects under objects/, in either series (the manifest's object set is read
 * from these): a name, or an array of names (v2's tools_pages_sha256).
 */
export const OBJECT_FIELDS = ['body_sha256', 'registry_page_sha256', 'handshake_sha256', 'tools_pages_sha256'] as const;
/** Key ids whose label is this are demo keys: they prove nothing about who wrote an archive. */
export const DEMO_KEY_LABEL = 'DEMO';

const sha256 = z.string().regex(SHA256_HEX);
const digest = z.object({ lines: z.number().int().nonnegative(), sha256 }).strict();

export const ChainSignature = z
  .object({
    /** `<label>-ed25519-<first 16 hex of the SHA-256 of the public key's SPKI DER>`. */
    key_id: z.string().regex(/^[A-Za-z0-9._-]{1,64}-ed25519-[0-9a-f]{16}$/),
    alg: z.literal('ed25519'),
    /** Base64 of the 64-byte signature. */
    value: z.string().regex(/^[A-Za-z0-9+/]{86}==$/),
  })
  .strict();
export type ChainSignature = z.infer<typeof ChainSignature>;

export const ChainManifest = z
  .object({
    chain: z.literal(CHAIN_FORMAT),
    /** 0 for the genesis manifest, then one more per line. */
    seq: z.number().int().nonnegative(),
    /** genesis: where the chain starts; run: written by the run itself; adopted: written after the fact for a past run. */
    kind: z.enum(['genesis', 'run', 'adopted']),
    /** chainHash of the manifest before it; null for genesis only. */
    prev: sha256.nullable(),
    /** When the manifest was written: the run's own clock for a run, the adoption's for an adopted one. */
    sealed_at: z.string().datetime({ offset: true }),
    run_id: z.string().min(1).max(64).nullable(),
    day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).nullable(),
    /** The run's lines of runs.jsonl (one per series it recorded). */
    runs: digest.nullable(),
    roster: z.object({ file: z.string().max(128), sha256 }).strict().nullable(),
    /** Per row file (logical name, `<series folder>/<day>.jsonl`, also when compacted to .gz): the run's lines in file order. */
    rows: z.array(digest.extend({ file: z.string().max(256) }).strict()),
    /** The distinct objects the run's rows and roster point at, sorted, one hex name and LF each. */
    objects: digest.nullable(),
    /** Genesis: runs recorded before the chain began that it does not cover. */
    unchained_runs: z.number().int().nonnegative().nullable(),
    note: z.string().max(2048).nullable(),
    signature: ChainSignature.nullable(),
  })
  .strict();
export type ChainManifest = z.infer<typeof ChainManifest>;

/** What an archive holds for one run, as the manifest records it (computed by src/archive/chain.ts). */
export interface RunDigest {
  runs: { lines: number; sha256: string };
  roster: { file: string; sha256: string } | null;
  rows: { file: string; lines: number; sha256: string }[];
  objects: { lines: number; sha256: string };
}

/**
 * The bytes a manifest's `objects` digest hashes: the distinct object names (lower-case hex SHA-256),
 * sorted, each followed by one LF (0x0A), nothing else — no header, no trailing separator beyond the
 * last LF; an empty set is the empty string. `objects.lines` is their count, `objects.sha256` the
 * SHA-256 of these bytes (UTF-8, which for hex is ASCII).
 */
export function objectSetText(names: Iterable<string>): string {
  return [...new Set(names)].sort().map((n) => `${n}\n`).join('');
}

/** A signing key: its id and the private key (node:crypto). */
export interface ChainSigner {
  keyId: string;
  privateKey: KeyObject;
}

/** The manifest's hash: SHA-256 of the RFC 8785 form of every field but the signature. */
export function chainHash(m: ChainManifest): string {
  const { signature: _, ...body } = m;
  return sha256Hex(rfc8785Json(body));
}

/** The bytes an Ed25519 signature of a manifest covers. */
export function chainMessage(hash: string): Buffer {
  return Buffer.from(CHAIN_MESSAGE_PREFIX + hash, 'utf8');
}

/** One line of chain.jsonl (fields in schema order, newline-terminated). */
export function chainLine(m: ChainManifest): string {
  return JSON.stringify(ChainManifest.parse(m)) + '\n';
}

/** A manifest for `fields`, chained after `prev` (null: this is the genesis) and signed when a signer is given. */
export function sealManifest(
  prev: ChainManifest | null,
  fields: Pick<ChainManifest, 'kind' | 'sealed_at' | 'run_id' | 'day' | 'runs' | 'roster' | 'rows' | 'objects' | 'unchained_runs' | 'note'>,
  signer: ChainSigner | null,
): ChainManifest {
  const m: ChainManifest = {
    chain: CHAIN_FORMAT,
    seq: prev ? prev.seq + 1 : 0,
    kind: fields.kind,
    prev: prev ? chainHash(prev) : null,
    sealed_at: fields.sealed_at,
    run_id: fields.run_id,
    day: fields.day,
    runs: fields.runs,
    roster: fields.roster,
    rows: fields.rows,
    objects: fields.objects,
    unchained_runs: fields.unchained_runs,
    note: fields.note,
    signature: null,
  };
  if (!signer) return m;
  return { ...m, signature: { key_id: signer.keyId, alg: 'ed25519', value: edSign(null, chainMessage(chainHash(m)), signer.privateKey).toString('base64') } };
}

/** The id of a public key: `<label>-ed25519-<16 hex of sha256(SPKI DER)>`. */
export function keyIdOf(publicKey: KeyObject, label: string): string {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(label)) throw new Error(`key label ${JSON.stringify(label.slice(0, 40))} must be 1-64 of A-Z a-z 0-9 . _ -`);
  return `${label}-ed25519-${sha256Hex(publicKey.export({ type: 'spki', format: 'der' })).slice(0, 16)}`;
}

/** A signer from a PKCS#8 PEM Ed25519 private key; its id carries `label` (DEMO_KEY_LABEL for demo keys). */
export function signerFromPem(pem: string, label: string): ChainSigner {
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`signing key is ${privateKey.asymmetricKeyType ?? 'not asymmetric'}, not ed25519`);
  return { keyId: keyIdOf(createPublicKey(privateKey), label), privateKey };
}

/** A public key read from SPKI PEM, with the id it would sign under for each label. */
export function publicKeyFromPem(pem: string): KeyObject {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`public key is ${key.asymmetricKeyType ?? 'not asymmetric'}, not ed25519`);
  return key;
}

/** Whether a key id names a demo key. */
export function isDemoKey(keyId: string): boolean {
  return keyId.startsWith(`${DEMO_KEY_LABEL}-`);
}

/** Ed25519 signature check of raw bytes (editions sign their SHA256SUMS bytes as they are). */
export function verifyBytes(bytes: Uint8Array, signature: Uint8Array, publicKey: KeyObject): boolean {
  try {
    return edVerify(null, bytes, publicKey, signature);
  } catch {
    return false;
  }
}

/** Ed25519 signature of raw bytes. */
export function signBytes(bytes: Uint8Array, signer: ChainSigner): Buffer {
  return edSign(null, bytes, signer.privateKey);
}

export type LinkProblem = { kind: 'chain-link' | 'chain-signature' | 'chain-digest'; message: string };

/**
 * Everything wrong with one manifest, in order: its place in the chain (seq, prev), its signature,
 * and whether the archive still holds what it recorded. `expected` is what the archive holds for its
 * run now (null: the run is gone). `keys` resolves a key id to its public key (null: unknown key).
 */
export function checkManifest(
  m: ChainManifest,
  prev: ChainManifest | null,
  expected: RunDigest | null,
  keys: (keyId: string) => KeyObject | null,
): LinkProblem[] {
  const problems: LinkProblem[] = [];
  const who = m.run_id ? `run ${m.run_id} (manifest ${m.seq})` : `genesis (manifest ${m.seq})`;
  if (!prev) {
    if (m.kind !== 'genesis' || m.seq !== 0 || m.prev !== null) problems.push({ kind: 'chain-link', message: `${who}: the chain does not start with a genesis manifest` });
  } else {
    if (m.kind === 'genesis') problems.push({ kind: 'chain-link', message: `${who}: a second genesis manifest` });
    if (m.seq !== prev.seq + 1) problems.push({ kind: 'chain-link', message: `${who}: follows manifest ${prev.seq}, so a manifest was removed or reordered` });
    if (m.prev !== chainHash(prev)) problems.push({ kind: 'chain-link', message: `${who}: names ${short(m.prev)} as the manifest before it, but the one before it hashes to ${short(chainHash(prev))} (a manifest was changed, removed or reordered)` });
  }
  if (m.signature) {
    const key = keys(m.signature.key_id);
    if (!key) problems.push({ kind: 'chain-signature', message: `${who}: signed by key ${m.signature.key_id}, which is not among the keys given` });
    else if (!verifyBytes(chainMessage(chainHash(m)), Buffer.from(m.signature.value, 'base64'), key)) problems.push({ kind: 'chain-signature', message: `${who}: the signature by ${m.signature.key_id} does not verify (the manifest or its signature was changed)` });
  }
  if (m.kind === 'genesis') return problems;
  if (!expected) {
    problems.push({ kind: 'chain-digest', message: `${who}: the run is in the chain but no longer in the archive (removed from runs.jsonl)` });
    return problems;
  }
  const differ = (what: string, was: { sha256: string; lines?: number } | null, now: { sha256: string; lines?: number } | null) => {
    if (was?.sha256 === now?.sha256) return;
    const count = (d: { lines?: number } | null) => (d?.lines === undefined ? '' : ` (${d.lines} lines)`);
    problems.push({ kind: 'chain-digest', message: `${who}: ${what} hash to ${short(now?.sha256 ?? null)}${count(now)} now, the manifest says ${short(was?.sha256 ?? null)}${count(was)}` });
  };
  differ('its lines of runs.jsonl', m.runs, expected.runs);
  if (m.roster?.file !== expected.roster?.file) problems.push({ kind: 'chain-digest', message: `${who}: its roster is ${expected.roster?.file ?? 'none'} now, the manifest says ${m.roster?.file ?? 'none'}` });
  else differ(`roster ${m.roster?.file ?? ''}`, m.roster, expected.roster);
  const files = new Set([...m.rows.map((r) => r.file), ...expected.rows.map((r) => r.file)]);
  for (const file of [...files].sort()) differ(`its rows in ${file}`, m.rows.find((r) => r.file === file) ?? null, expected.rows.find((r) => r.file === file) ?? null);
  differ('the objects its rows and roster point at', m.objects, expected.objects);
  return problems;
}

function short(hash: string | null): string {
  return hash ? `${hash.slice(0, 12)}…` : 'nothing';
}
