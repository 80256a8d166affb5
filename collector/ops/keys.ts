// Signing keys for the hash chain and the editions: an Ed25519 pair as PEM files. The project's
// private key lives in a CI secret (MCP_SCHEMA_SIGNING_KEY) and its public key in the repo
// (keys/mcp-schema-ed25519.pub); a demo key is labelled DEMO in its file name and in every key id it
// signs under, and its public key is kept in the demo archive's keys/ folder.
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyIdOf, signerFromPem, type ChainSigner } from '../../src/lib/index.ts';

export interface KeyPair {
  keyId: string;
  privatePem: string;
  publicPem: string;
  signer: ChainSigner;
}

export function generateKeyPair(label: string): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return { keyId: keyIdOf(publicKey, label), privatePem, publicPem, signer: signerFromPem(privatePem, label) };
}

/**
 * Write `<label>-ed25519.pub` into `publicDir` and, when `privateDir` is given, `<label>-ed25519.key`
 * (mode 0600) into it. Returns the paths.
 */
export function writeKeyFiles(pair: KeyPair, label: string, publicDir: string, privateDir: string | null): { publicFile: string; privateFile: string | null } {
  mkdirSync(publicDir, { recursive: true });
  const publicFile = join(publicDir, `${label}-ed25519.pub`);
  writeFileSync(publicFile, pair.publicPem);
  let privateFile: string | null = null;
  if (privateDir) {
    mkdirSync(privateDir, { recursive: true });
    privateFile = join(privateDir, `${label}-ed25519.key`);
    writeFileSync(privateFile, pair.privatePem, { mode: 0o600 });
  }
  return { publicFile, privateFile };
}
