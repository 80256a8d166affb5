// src/lib/chain.ts: the archive's signed manifest chain (methodology v1, "Verifiable history"). What a
// reader of the archive relies on: a manifest's hash is recomputable with any JCS library, its
// signature checks with nothing but the hash and the public key, and checkManifest names every way a
// chain or the rows it pins can have been altered — each check here with the near miss that passes.
// Keys are made per test (Ed25519 is deterministic, so signatures are reproducible given the key).
import { createHash, generateKeyPairSync, sign as edSign, verify as edVerify, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CHAIN_FORMAT,
  CHAIN_MESSAGE_PREFIX,
  ChainManifest,
  ChainSignature,
  chainHash,
  chainLine,
  chainMessage,
  checkManifest,
  DEMO_KEY_LABEL,
  isDemoKey,
  keyIdOf,
  OBJECT_FIELDS,
  objectSetText,
  publicKeyFromPem,
  type RunDigest,
  sealManifest,
  signBytes,
  signerFromPem,
  verifyBytes,
  type ChainSigner,
} from '../../src/lib/chain.ts';

const sha = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');
const H = (c: string) => c.repeat(64);
const short = (h: string) => `${h.slice(0, 12)}…`;
const AT = '2026-01-02T03:15:00.000Z';

/** A fresh Ed25519 key pair and a signer for it (key id built by hand, not by keyIdOf). */
function keyPair(label = 'ops'): { signer: ChainSigner; publicKey: KeyObject; privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const keyId = `${label}-ed25519-${sha(publicKey.export({ type: 'spki', format: 'der' })).slice(0, 16)}`;
  return {
    signer: { keyId, privateKey },
    publicKey,
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** What the archive holds for run r1 on 2026-01-02. */
function held(): RunDigest {
  return {
    runs: { lines: 2, sha256: H('1') },
    roster: { file: 'rosters/2026-01-02.json', sha256: H('2') },
    rows: [
      { file: 'observations/2026-01-02.jsonl', lines: 5, sha256: H('3') },
      { file: 'v2/2026-01-02.jsonl', lines: 4, sha256: H('4') },
    ],
    objects: { lines: 7, sha256: H('5') },
  };
}

function genesis(signer: ChainSigner | null = null): ChainManifest {
  return sealManifest(null, { kind: 'genesis', sealed_at: '2026-01-01T00:00:00Z', run_id: null, day: null, runs: null, roster: null, rows: [], objects: null, unchained_runs: 3, note: 'n' }, signer);
}

function runManifest(prev: ChainManifest | null, signer: ChainSigner | null = null, d: RunDigest = held(), runId = 'r1'): ChainManifest {
  return sealManifest(prev, { kind: 'run', sealed_at: AT, run_id: runId, day: '2026-01-02', runs: d.runs, roster: d.roster, rows: d.rows, objects: d.objects, unchained_runs: null, note: null }, signer);
}

const noKeys = () => null;

describe('the constants a verifier outside this code needs', () => {
  it('names the format, the signed prefix, the object fields and the demo label', () => {
    expect(CHAIN_FORMAT).toBe('mcp-schema/chain/v1');
    expect(CHAIN_MESSAGE_PREFIX).toBe('mcp-schema chain v1\n');
    expect(OBJECT_FIELDS).toEqual(['body_sha256', 'registry_page_sha256', 'handshake_sha256', 'tools_pages_sha256']);
    expect(DEMO_KEY_LABEL).toBe('DEMO');
  });
});

describe('objectSetText(names)', () => {
  it('is the distinct names, sorted, each followed by one LF', () => {
    expect(objectSetText([H('b'), H('a'), H('b')])).toBe(`${H('a')}\n${H('b')}\n`);
    expect(objectSetText(new Set(['c', 'a', 'b']))).toBe('a\nb\nc\n');
  });
  it('near miss: an empty set is the empty string (not one LF)', () => {
    expect(objectSetText([])).toBe('');
  });
});

describe('chainHash(m) and chainMessage(hash)', () => {
  it('hashes the RFC 8785 form of every field but the signature (written out here by hand)', () => {
    const m = genesis();
    const jcs =
      '{"chain":"mcp-schema/chain/v1","day":null,"kind":"genesis","note":"n","objects":null,"prev":null,"roster":null,"rows":[],' +
      '"run_id":null,"runs":null,"sealed_at":"2026-01-01T00:00:00Z","seq":0,"unchained_runs":3}';
    expect(chainHash(m)).toBe(sha(jcs));
  });
  it('a signature does not change the hash; any other field does', () => {
    const { signer } = keyPair();
    const m = genesis();
    expect(chainHash(genesis(signer))).toBe(chainHash(m));
    expect(chainHash({ ...m, note: 'm' })).not.toBe(chainHash(m));
    expect(chainHash({ ...m, unchained_runs: 4 })).not.toBe(chainHash(m));
  });
  it('the signed message is the prefix and the hex hash, as UTF-8 bytes', () => {
    const msg = chainMessage(H('a'));
    expect(Buffer.isBuffer(msg)).toBe(true);
    expect(msg.toString('utf8')).toBe(`mcp-schema chain v1\n${H('a')}`);
    expect(msg.length).toBe(20 + 64);
  });
});

describe('sealManifest(prev, fields, signer)', () => {
  it('a genesis has seq 0, no prev and no signature without a signer', () => {
    expect(genesis()).toEqual({
      chain: 'mcp-schema/chain/v1',
      seq: 0,
      kind: 'genesis',
      prev: null,
      sealed_at: '2026-01-01T00:00:00Z',
      run_id: null,
      day: null,
      runs: null,
      roster: null,
      rows: [],
      objects: null,
      unchained_runs: 3,
      note: 'n',
      signature: null,
    });
  });
  it('each later manifest is one more in seq and names the hash of the one before it', () => {
    const g = genesis();
    const m1 = runManifest(g);
    const m2 = runManifest(m1, null, held(), 'r2');
    const d = held();
    expect(m1).toEqual({
      chain: CHAIN_FORMAT,
      seq: 1,
      kind: 'run',
      prev: chainHash(g),
      sealed_at: AT,
      run_id: 'r1',
      day: '2026-01-02',
      runs: d.runs,
      roster: d.roster,
      rows: d.rows,
      objects: d.objects,
      unchained_runs: null,
      note: null,
      signature: null,
    });
    expect(m2.seq).toBe(2);
    expect(m2.prev).toBe(chainHash(m1));
    expect(m2.prev).not.toBe(chainHash(g));
  });
  it('with a signer: an Ed25519 signature over the prefix and the hash, that the public key verifies', () => {
    const { signer, publicKey } = keyPair();
    const g = genesis(signer);
    const m = runManifest(g, signer);
    const unsigned = runManifest(g);
    expect({ ...m, signature: null }).toEqual(unsigned);
    expect(m.signature).toEqual({ key_id: signer.keyId, alg: 'ed25519', value: expect.any(String) });
    const sig = Buffer.from(m.signature!.value, 'base64');
    expect(sig.length).toBe(64);
    // What `openssl pkeyutl -verify -rawin` checks: the message is the prefix and the hex hash.
    expect(edVerify(null, Buffer.from(`mcp-schema chain v1\n${chainHash(unsigned)}`), publicKey, sig)).toBe(true);
    expect(m.signature!.value).toBe(edSign(null, Buffer.from(CHAIN_MESSAGE_PREFIX + chainHash(m)), signer.privateKey).toString('base64'));
    expect(ChainManifest.parse(m)).toEqual(m);
  });
});

describe('chainLine(m)', () => {
  it('is the manifest as JSON, fields in schema order, ending in one LF', () => {
    const m = runManifest(genesis());
    const line = chainLine(m);
    expect(line.endsWith('}\n')).toBe(true);
    expect(line.indexOf('\n')).toBe(line.length - 1);
    expect(JSON.parse(line)).toEqual(m);
    expect(Object.keys(JSON.parse(line) as object)).toEqual(['chain', 'seq', 'kind', 'prev', 'sealed_at', 'run_id', 'day', 'runs', 'roster', 'rows', 'objects', 'unchained_runs', 'note', 'signature']);
  });
  it('near miss: refuses a manifest the schema refuses', () => {
    expect(() => chainLine({ ...genesis(), seq: -1 })).toThrow();
  });
});

describe('ChainSignature', () => {
  const value = ('AZaz09+/'.repeat(11)).slice(0, 86) + '==';
  const ok = { key_id: 'AZaz09._--ed25519-0123456789abcdef', alg: 'ed25519', value };
  const accepts = (x: unknown) => ChainSignature.safeParse(x).success;
  it('takes a key id <label>-ed25519-<16 hex>, every label character, and 86 base64 characters and ==', () => {
    expect(accepts(ok)).toBe(true);
    expect(accepts({ ...ok, key_id: `${'a'.repeat(64)}-ed25519-09af09af09af09af` })).toBe(true);
    expect(accepts({ ...ok, key_id: 'a-ed25519-0123456789abcdef' })).toBe(true);
    expect(accepts({ ...ok, key_id: 'Zz9_-ed25519-0123456789abcdef' })).toBe(true);
    expect(accepts({ ...ok, value: 'Zz9/'.repeat(21) + 'Az==' })).toBe(true);
    expect(accepts({ ...ok, value: 'Yy8+'.repeat(21) + 'Bb==' })).toBe(true);
  });
  it.each([
    ['a label of 65 characters', { key_id: `${'a'.repeat(65)}-ed25519-0123456789abcdef` }],
    ['an empty label', { key_id: '-ed25519-0123456789abcdef' }],
    ['a space in the label', { key_id: 'a b-ed25519-0123456789abcdef' }],
    ['a label character outside the set', { key_id: 'a+b-ed25519-0123456789abcdef' }],
    ['15 hex', { key_id: 'a-ed25519-0123456789abcde' }],
    ['17 hex', { key_id: 'a-ed25519-0123456789abcdef0' }],
    ['upper-case hex', { key_id: 'a-ed25519-0123456789ABCDEF' }],
    ['hex past f', { key_id: 'a-ed25519-0123456789abcdeg' }],
    ['another algorithm in the id', { key_id: 'a-ed448-0123456789abcdef' }],
    ['another alg', { alg: 'ed448' }],
    ['85 base64 characters', { value: value.slice(1) }],
    ['87 base64 characters', { value: 'A' + value }],
    ['a third =', { value: value + '=' }],
    ['one = only', { value: value.slice(0, 87) }],
    ['a character outside base64', { value: '-' + value.slice(1) }],
    ['URL-safe base64', { value: '_' + value.slice(1) }],
  ])('refuses %s', (_, change) => {
    expect(accepts({ ...ok, ...change })).toBe(false);
  });
  it('refuses a field it does not define', () => {
    expect(accepts({ ...ok, by: 'x' })).toBe(false);
  });
});

describe('ChainManifest', () => {
  const accepts = (change: Record<string, unknown>) => ChainManifest.safeParse({ ...runManifest(genesis()), ...change }).success;
  it('takes what sealManifest writes, in each kind, with a timestamp in any offset', () => {
    expect(accepts({})).toBe(true);
    expect(accepts({ kind: 'genesis' })).toBe(true);
    expect(accepts({ kind: 'adopted' })).toBe(true);
    expect(accepts({ sealed_at: '2026-01-02T04:15:00+01:00' })).toBe(true);
    expect(accepts({ seq: 0 })).toBe(true);
    expect(accepts({ run_id: 'r'.repeat(64) })).toBe(true);
    expect(accepts({ run_id: 'ab' })).toBe(true);
    expect(accepts({ run_id: null, day: null, runs: null, roster: null, objects: null, note: null, prev: null })).toBe(true);
    expect(accepts({ roster: { file: 'f'.repeat(128), sha256: H('0') } })).toBe(true);
    expect(accepts({ rows: [{ file: 'f'.repeat(256), lines: 0, sha256: H('9') }] })).toBe(true);
    expect(accepts({ note: 'x'.repeat(2048) })).toBe(true);
    expect(accepts({ unchained_runs: 0 })).toBe(true);
    expect(accepts({ runs: { lines: 0, sha256: H('f') } })).toBe(true);
  });
  it.each([
    ['another format', { chain: 'mcp-schema/chain/v2' }],
    ['a negative seq', { seq: -1 }],
    ['a fractional seq', { seq: 1.5 }],
    ['an unknown kind', { kind: 'edition' }],
    ['a prev that is not a SHA-256', { prev: 'A'.repeat(64) }],
    ['a prev of 63 hex', { prev: 'a'.repeat(63) }],
    ['a sealed_at that is no timestamp', { sealed_at: '2026-01-02' }],
    ['an empty run id', { run_id: '' }],
    ['a run id of 65 characters', { run_id: 'r'.repeat(65) }],
    ['a day not YYYY-MM-DD', { day: '2026-1-02' }],
    ['a day with text before it', { day: 'x2026-01-02' }],
    ['a day with text after it', { day: '2026-01-021' }],
    ['a day of letters', { day: 'abcd-ef-gh' }],
    ['runs with negative lines', { runs: { lines: -1, sha256: H('1') } }],
    ['runs with fractional lines', { runs: { lines: 0.5, sha256: H('1') } }],
    ['runs with an extra field', { runs: { lines: 1, sha256: H('1'), file: 'runs.jsonl' } }],
    ['a roster file name of 129 characters', { roster: { file: 'f'.repeat(129), sha256: H('0') } }],
    ['a roster with an extra field', { roster: { file: 'f', sha256: H('0'), lines: 1 } }],
    ['a roster without its hash', { roster: { file: 'f' } }],
    ['a row file name of 257 characters', { rows: [{ file: 'f'.repeat(257), lines: 0, sha256: H('9') }] }],
    ['a row digest without its file', { rows: [{ lines: 0, sha256: H('9') }] }],
    ['a row digest with an extra field', { rows: [{ file: 'f', lines: 0, sha256: H('9'), day: 'd' }] }],
    ['objects that are not a SHA-256', { objects: { lines: 1, sha256: 'x' } }],
    ['negative unchained runs', { unchained_runs: -1 }],
    ['a note of 2049 characters', { note: 'x'.repeat(2049) }],
    ['a malformed signature', { signature: { key_id: 'k', alg: 'ed25519', value: 'x' } }],
    ['a field it does not define', { edition: '2026-01' }],
  ])('refuses %s', (_, change) => {
    expect(accepts(change)).toBe(false);
  });
});

describe('keys: keyIdOf, signerFromPem, publicKeyFromPem, isDemoKey', () => {
  it('a key id is the label, -ed25519-, and the first 16 hex of the SHA-256 of the SPKI DER', () => {
    const { publicKey, signer } = keyPair();
    const spki = sha(publicKey.export({ type: 'spki', format: 'der' }));
    expect(keyIdOf(publicKey, 'ops')).toBe(`ops-ed25519-${spki.slice(0, 16)}`);
    expect(keyIdOf(publicKey, 'ops')).toBe(signer.keyId);
    expect(keyIdOf(publicKey, 'AZaz09._-')).toBe(`AZaz09._--ed25519-${spki.slice(0, 16)}`);
    expect(keyIdOf(publicKey, 'k'.repeat(64))).toBe(`${'k'.repeat(64)}-ed25519-${spki.slice(0, 16)}`);
  });
  it.each([
    ['', '""'],
    ['a b', '"a b"'],
    [' ab', '" ab"'],
    ['ab ', '"ab "'],
    ['a/b', '"a/b"'],
    ['0123456789'.repeat(6) + 'abcde', '"0123456789012345678901234567890123456789"'],
  ])('refuses the label %j, quoting at most its first 40 characters', (label, quoted) => {
    const { publicKey } = keyPair();
    expect(() => keyIdOf(publicKey, label)).toThrow(new Error(`key label ${quoted} must be 1-64 of A-Z a-z 0-9 . _ -`));
  });
  it('signerFromPem reads a PKCS#8 Ed25519 key and ids it under the label; its signatures verify', () => {
    const { privatePem, publicKey, signer: expected } = keyPair();
    const signer = signerFromPem(privatePem, 'ops');
    expect(signer.keyId).toBe(expected.keyId);
    expect(signer.privateKey.type).toBe('private');
    const bytes = Buffer.from('SHA256SUMS bytes\n');
    expect(edVerify(null, bytes, publicKey, signBytes(bytes, signer))).toBe(true);
    expect(signerFromPem(privatePem, DEMO_KEY_LABEL).keyId.startsWith('DEMO-ed25519-')).toBe(true);
  });
  it('publicKeyFromPem reads an SPKI Ed25519 key', () => {
    const { publicPem, publicKey } = keyPair();
    const key = publicKeyFromPem(publicPem);
    expect(key.type).toBe('public');
    expect(key.equals(publicKey)).toBe(true);
  });
  it('near miss: keys of another type are refused, naming the type', () => {
    const other = generateKeyPairSync('ed448');
    expect(() => signerFromPem(other.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'ops')).toThrow(new Error('signing key is ed448, not ed25519'));
    expect(() => publicKeyFromPem(other.publicKey.export({ type: 'spki', format: 'pem' }).toString())).toThrow(new Error('public key is ed448, not ed25519'));
  });
  it('a demo key id starts with DEMO-; near misses: another label, DEMO elsewhere, another case', () => {
    expect(isDemoKey('DEMO-ed25519-0123456789abcdef')).toBe(true);
    expect(isDemoKey('ops-ed25519-0123456789abcdef')).toBe(false);
    expect(isDemoKey('DEMOS-ed25519-0123456789abcdef')).toBe(false);
    expect(isDemoKey('demo-ed25519-0123456789abcdef')).toBe(false);
    expect(isDemoKey('ops-DEMO-')).toBe(false);
  });
});

describe('signBytes and verifyBytes (editions sign SHA256SUMS as it is)', () => {
  it('a signature of the bytes verifies with the public key', () => {
    const { signer, publicKey } = keyPair();
    const bytes = Buffer.from('abc  file\n');
    const sig = signBytes(bytes, signer);
    expect(sig.length).toBe(64);
    expect(sig.equals(edSign(null, bytes, signer.privateKey))).toBe(true);
    expect(verifyBytes(bytes, sig, publicKey)).toBe(true);
  });
  it('near misses: other bytes, another key, a cut signature, a key that cannot verify — false, not a throw', () => {
    const { signer, publicKey } = keyPair();
    const bytes = Buffer.from('abc  file\n');
    const sig = signBytes(bytes, signer);
    expect(verifyBytes(Buffer.from('abd  file\n'), sig, publicKey)).toBe(false);
    expect(verifyBytes(bytes, sig, keyPair().publicKey)).toBe(false);
    expect(verifyBytes(bytes, sig.subarray(0, 63), publicKey)).toBe(false);
    expect(verifyBytes(bytes, sig, generateKeyPairSync('x25519').publicKey)).toBe(false);
  });
});

describe('checkManifest: the place in the chain', () => {
  it('a genesis first, and a run after it, pass', () => {
    const g = genesis();
    expect(checkManifest(g, null, null, noKeys)).toEqual([]);
    expect(checkManifest(runManifest(g), g, held(), noKeys)).toEqual([]);
  });
  it.each([
    ['a run manifest', (g: ChainManifest) => ({ ...g, kind: 'run' as const })],
    ['a genesis with seq 1', (g: ChainManifest) => ({ ...g, seq: 1 })],
    ['a genesis naming a manifest before it', (g: ChainManifest) => ({ ...g, prev: H('a') })],
  ])('the first manifest must be a genesis: %s is not', (_, change) => {
    const m = change(genesis());
    const problems = checkManifest(m, null, held(), noKeys).filter((p) => p.kind === 'chain-link');
    expect(problems).toEqual([{ kind: 'chain-link', message: `genesis (manifest ${m.seq}): the chain does not start with a genesis manifest` }]);
  });
  it('names a run manifest by its run id', () => {
    const m = { ...runManifest(genesis()), seq: 0, prev: null };
    expect(checkManifest(m, null, held(), noKeys)).toEqual([{ kind: 'chain-link', message: 'run r1 (manifest 0): the chain does not start with a genesis manifest' }]);
  });
  it('a second genesis after the first is a problem', () => {
    const g = genesis();
    const g2 = sealManifest(g, { ...g, kind: 'genesis' }, null);
    expect(checkManifest(g2, g, null, noKeys)).toEqual([{ kind: 'chain-link', message: 'genesis (manifest 1): a second genesis manifest' }]);
    // near miss: an adopted manifest after the genesis is in its place
    const a = sealManifest(g, { ...runManifest(g), kind: 'adopted' }, null);
    expect(checkManifest(a, g, held(), noKeys)).toEqual([]);
  });
  it('a seq that is not one more than the one before: removed or reordered', () => {
    const g = genesis();
    const m1 = runManifest(g);
    const m2 = runManifest(m1, null, held(), 'r2');
    const m3 = runManifest(m2, null, held(), 'r3');
    // m2 removed: m3 follows m1
    const gap = checkManifest(m3, m1, held(), noKeys);
    expect(gap[0]).toEqual({ kind: 'chain-link', message: 'run r3 (manifest 3): follows manifest 1, so a manifest was removed or reordered' });
    expect(gap).toHaveLength(2);
    // the same seq twice
    expect(checkManifest({ ...m2, seq: 1 }, m1, held(), noKeys)[0]).toEqual({ kind: 'chain-link', message: 'run r2 (manifest 1): follows manifest 1, so a manifest was removed or reordered' });
    // one less
    expect(checkManifest({ ...m2, seq: 0 }, m1, held(), noKeys)[0]?.message).toBe('run r2 (manifest 0): follows manifest 1, so a manifest was removed or reordered');
    // near miss: the right seq
    expect(checkManifest(m3, m2, held(), noKeys)).toEqual([]);
  });
  it('a prev that is not the hash of the manifest before it', () => {
    const g = genesis();
    const m1 = runManifest(g);
    const m2 = runManifest(m1, null, held(), 'r2');
    const edited = { ...m1, note: 'edited' };
    expect(checkManifest(m2, edited, held(), noKeys)).toEqual([
      { kind: 'chain-link', message: `run r2 (manifest 2): names ${short(chainHash(m1))} as the manifest before it, but the one before it hashes to ${short(chainHash(edited))} (a manifest was changed, removed or reordered)` },
    ]);
    expect(checkManifest({ ...m2, prev: null }, m1, held(), noKeys)).toEqual([
      { kind: 'chain-link', message: `run r2 (manifest 2): names nothing as the manifest before it, but the one before it hashes to ${short(chainHash(m1))} (a manifest was changed, removed or reordered)` },
    ]);
  });
  it('an unsigned manifest edited in the middle of the chain is caught only by the next manifest’s link', () => {
    const g = genesis();
    const m1 = runManifest(g);
    const m2 = runManifest(m1, null, held(), 'r2');
    const edited = { ...m1, sealed_at: '2026-01-03T00:00:00Z' };
    expect(checkManifest(edited, g, held(), noKeys)).toEqual([]);
    expect(checkManifest(m2, edited, held(), noKeys).map((p) => p.kind)).toEqual(['chain-link']);
  });
  it('the same edit to a signed manifest is caught by its own signature', () => {
    const { signer, publicKey } = keyPair();
    const keys = (id: string) => (id === signer.keyId ? publicKey : null);
    const g = genesis(signer);
    const m1 = runManifest(g, signer);
    expect(checkManifest(m1, g, held(), keys)).toEqual([]);
    const edited = { ...m1, sealed_at: '2026-01-03T00:00:00Z' };
    expect(checkManifest(edited, g, held(), keys)).toEqual([
      { kind: 'chain-signature', message: `run r1 (manifest 1): the signature by ${signer.keyId} does not verify (the manifest or its signature was changed)` },
    ]);
  });
});

describe('checkManifest: the signature', () => {
  it('a signature by a key not given is named', () => {
    const { signer } = keyPair();
    const g = genesis(signer);
    expect(checkManifest(g, null, null, noKeys)).toEqual([{ kind: 'chain-signature', message: `genesis (manifest 0): signed by key ${signer.keyId}, which is not among the keys given` }]);
  });
  it('keys are looked up by the signature’s key id', () => {
    const { signer, publicKey } = keyPair();
    const asked: string[] = [];
    const g = genesis(signer);
    expect(checkManifest(g, null, null, (id) => (asked.push(id), publicKey))).toEqual([]);
    expect(asked).toEqual([signer.keyId]);
  });
  it('another key under the same id does not verify it', () => {
    const { signer } = keyPair();
    const g = genesis(signer);
    expect(checkManifest(g, null, null, () => keyPair().publicKey)).toEqual([
      { kind: 'chain-signature', message: `genesis (manifest 0): the signature by ${signer.keyId} does not verify (the manifest or its signature was changed)` },
    ]);
  });
  it('a signature moved from another manifest does not verify', () => {
    const { signer, publicKey } = keyPair();
    const g = genesis(signer);
    const m1 = runManifest(g, signer);
    const m2 = { ...runManifest(m1, null, held(), 'r2'), signature: m1.signature };
    expect(checkManifest(m2, m1, held(), () => publicKey).map((p) => p.kind)).toEqual(['chain-signature']);
  });
  it('near miss: an unsigned manifest has no signature problem, whatever the keys', () => {
    const g = genesis();
    let asked = 0;
    expect(checkManifest(g, null, null, () => (asked++, null))).toEqual([]);
    expect(asked).toBe(0);
  });
});

describe('checkManifest: whether the archive still holds what the manifest recorded', () => {
  const check = (m: ChainManifest, now: RunDigest | null) => checkManifest(m, genesis(), now, noKeys);
  it('a genesis records no run: nothing to compare', () => {
    const g = genesis();
    expect(checkManifest(runManifest(g), g, held(), noKeys)).toEqual([]);
    expect(checkManifest(g, null, null, noKeys)).toEqual([]);
  });
  it('a run gone from the archive is named, and nothing else compared', () => {
    expect(check(runManifest(genesis()), null)).toEqual([{ kind: 'chain-digest', message: 'run r1 (manifest 1): the run is in the chain but no longer in the archive (removed from runs.jsonl)' }]);
  });
  it('its lines of runs.jsonl changed', () => {
    const now = held();
    now.runs = { lines: 3, sha256: H('6') };
    expect(check(runManifest(genesis()), now)).toEqual([
      { kind: 'chain-digest', message: `run r1 (manifest 1): its lines of runs.jsonl hash to ${short(H('6'))} (3 lines) now, the manifest says ${short(H('1'))} (2 lines)` },
    ]);
  });
  it('a manifest that recorded no runs lines', () => {
    const m = { ...runManifest(genesis()), runs: null };
    expect(check(m, held())).toEqual([{ kind: 'chain-digest', message: `run r1 (manifest 1): its lines of runs.jsonl hash to ${short(H('1'))} (2 lines) now, the manifest says nothing` }]);
  });
  it('near miss: only the hash is compared, not the line count it records', () => {
    const now = held();
    now.runs = { lines: 9, sha256: H('1') };
    expect(check(runManifest(genesis()), now)).toEqual([]);
  });
  it('its roster: another file, one added, one gone, or other bytes', () => {
    const other = held();
    other.roster = { file: 'rosters/2026-01-03.json', sha256: H('2') };
    expect(check(runManifest(genesis()), other)).toEqual([{ kind: 'chain-digest', message: 'run r1 (manifest 1): its roster is rosters/2026-01-03.json now, the manifest says rosters/2026-01-02.json' }]);
    const gone = held();
    gone.roster = null;
    expect(check(runManifest(genesis()), gone)).toEqual([{ kind: 'chain-digest', message: 'run r1 (manifest 1): its roster is none now, the manifest says rosters/2026-01-02.json' }]);
    expect(check({ ...runManifest(genesis()), roster: null }, held())).toEqual([{ kind: 'chain-digest', message: 'run r1 (manifest 1): its roster is rosters/2026-01-02.json now, the manifest says none' }]);
    const changed = held();
    changed.roster = { file: 'rosters/2026-01-02.json', sha256: H('7') };
    expect(check(runManifest(genesis()), changed)).toEqual([
      { kind: 'chain-digest', message: `run r1 (manifest 1): roster rosters/2026-01-02.json hash to ${short(H('7'))} now, the manifest says ${short(H('2'))}` },
    ]);
  });
  it('near miss: a run with no roster then and none now', () => {
    const now = held();
    now.roster = null;
    expect(check({ ...runManifest(genesis()), roster: null }, now)).toEqual([]);
  });
  it('its rows: a file changed, gone or added, named in file order', () => {
    const now = held();
    // the manifest lists v2 before observations; the archive now lacks v2's rows, has a new file, and other observations rows
    const m = { ...runManifest(genesis()), rows: [held().rows[1]!, held().rows[0]!] };
    now.rows = [{ file: 'zz/2026-01-02.jsonl', lines: 1, sha256: H('8') }, { file: 'observations/2026-01-02.jsonl', lines: 6, sha256: H('9') }];
    expect(check(m, now)).toEqual([
      { kind: 'chain-digest', message: `run r1 (manifest 1): its rows in observations/2026-01-02.jsonl hash to ${short(H('9'))} (6 lines) now, the manifest says ${short(H('3'))} (5 lines)` },
      { kind: 'chain-digest', message: `run r1 (manifest 1): its rows in v2/2026-01-02.jsonl hash to nothing now, the manifest says ${short(H('4'))} (4 lines)` },
      { kind: 'chain-digest', message: `run r1 (manifest 1): its rows in zz/2026-01-02.jsonl hash to ${short(H('8'))} (1 lines) now, the manifest says nothing` },
    ]);
  });
  it('near miss: the same rows in another order of files', () => {
    const now = held();
    now.rows.reverse();
    expect(check(runManifest(genesis()), now)).toEqual([]);
  });
  it('each row file is compared with its own digest', () => {
    const now = held();
    now.rows[1] = { ...now.rows[1]!, sha256: H('a') };
    expect(check(runManifest(genesis()), now).map((p) => p.message)).toEqual([
      `run r1 (manifest 1): its rows in v2/2026-01-02.jsonl hash to ${short(H('a'))} (4 lines) now, the manifest says ${short(H('4'))} (4 lines)`,
    ]);
  });
  it('the objects its rows and roster point at', () => {
    const now = held();
    now.objects = { lines: 6, sha256: H('b') };
    expect(check(runManifest(genesis()), now)).toEqual([
      { kind: 'chain-digest', message: `run r1 (manifest 1): the objects its rows and roster point at hash to ${short(H('b'))} (6 lines) now, the manifest says ${short(H('5'))} (7 lines)` },
    ]);
  });
  it('every problem of one manifest, in order: link, signature, digests', () => {
    const { signer } = keyPair();
    const g = genesis();
    const m = { ...runManifest(g, signer), seq: 5 };
    const now = held();
    now.runs = { lines: 2, sha256: H('c') };
    now.objects = { lines: 7, sha256: H('d') };
    expect(checkManifest(m, g, now, noKeys).map((p) => p.kind)).toEqual(['chain-link', 'chain-signature', 'chain-digest', 'chain-digest']);
  });
});
