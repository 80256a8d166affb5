// npm run chain -- --adopt [--data <dir>] [--at <iso>] | --keygen <dir> [--label <label>] | --head [--data <dir>]
import { adoptChain, readChain } from '../../src/archive/chain.ts';
import { chainHash, signerFromPem, type ChainSigner } from '../../src/lib/index.ts';
import { CliError, command, EXIT, exitCodes, isoTime, main, usage } from '../cli-kit/index.ts';
import { Store } from '../store.ts';
import { SIGNING_KEY_LABEL } from '../version.ts';
import { generateKeyPair, writeKeyFiles } from './keys.ts';

export const HELP = `usage: npm run chain -- <command> [options]

The archive's hash chain (chain.jsonl): one manifest per run, each naming the hash of the one before
it, signed with Ed25519 when MCP_SCHEMA_SIGNING_KEY holds the private key (PKCS#8 PEM). The collector
appends a manifest at the end of every run; npm run verify checks the chain.

  --adopt            start the chain of an archive recorded before chains existed: a genesis that says
                     when, and one "adopted" manifest per past run, all sealed now. They prove the runs
                     have not changed since today, not before. Refused when a chain exists (the
                     collector starts a chain by itself on an archive without one, with a genesis that
                     says which earlier runs it does not cover: adopt before the first chained run).
  --at <iso>         the adoption's time (default: now)
  --keygen <dir>     write a new key pair: <dir>/<label>-ed25519.key (private, mode 0600: put it in the
                     CI secret MCP_SCHEMA_SIGNING_KEY, then delete it) and keys/<label>-ed25519.pub
                     (commit it: verify and the site read it there)
  --label <label>    the key's label (default ${SIGNING_KEY_LABEL}; DEMO for a demo key)
  --head             print the chain's head: manifest number, hash, run, key
  --data <dir>       the archive (default: data/)
  -h, --help         this text

${exitCodes({ 0: 'done', 1: 'the chain could not be adopted (one exists) or read', 2: 'bad usage (no command), or MCP_SCHEMA_SIGNING_KEY is not a key', 3: 'another collector holds the lock' })}`;

export const COMMAND = command({
  name: 'chain',
  help: HELP,
  options: {
    adopt: { type: 'boolean', default: false },
    at: { type: 'string' },
    keygen: { type: 'string' },
    label: { type: 'string', default: SIGNING_KEY_LABEL },
    head: { type: 'boolean', default: false },
    data: { type: 'string', default: 'data' },
  },
});

main(import.meta.url, COMMAND, async ({ values }, io) => {
  if (!values.adopt && !values.keygen && !values.head) throw usage('give a command: --adopt, --keygen <dir> or --head (see --help)');
  const at = isoTime('at', values.at) ?? new Date();
  if (values.keygen) {
    const pair = generateKeyPair(values.label);
    const files = writeKeyFiles(pair, values.label, 'keys', values.keygen);
    io.stdout(`key ${pair.keyId}\n  private: ${files.privateFile}\n  public:  ${files.publicFile}\n`);
  }
  if (values.adopt) {
    let signer: ChainSigner | null = null;
    try {
      signer = io.env.MCP_SCHEMA_SIGNING_KEY ? signerFromPem(io.env.MCP_SCHEMA_SIGNING_KEY, SIGNING_KEY_LABEL) : null;
    } catch (e) {
      throw new CliError(`MCP_SCHEMA_SIGNING_KEY is not an Ed25519 private key in PEM: ${(e as Error).message}`, EXIT.usage, { cause: e });
    }
    const store = Store.open(values.data, new Date().toISOString());
    try {
      const written = await adoptChain(values.data, { signer, sealedAt: at.toISOString() }).catch((e: unknown) => {
        throw new CliError((e as Error).message, EXIT.failed, { cause: e });
      });
      io.stdout(`adopted ${written.length - 1} runs on ${at.toISOString()}${signer ? `, signed by ${signer.keyId}` : ', unsigned'}\n`);
    } finally {
      store.close();
    }
  }
  if (values.head) {
    let head;
    try {
      head = readChain(values.data).manifests.at(-1)?.manifest;
    } catch (e) {
      throw new CliError((e as Error).message, EXIT.failed, { cause: e });
    }
    io.stdout(head ? `${JSON.stringify({ seq: head.seq, hash: chainHash(head), run_id: head.run_id, sealed_at: head.sealed_at, signature: head.signature })}\n` : 'no chain\n');
  }
});
