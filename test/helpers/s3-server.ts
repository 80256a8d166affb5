// A real S3-compatible server for the object-store tests: @20minutes/s3rver, in a child
// process of its own, on 127.0.0.1, on a free port, storing into a temp folder, with one bucket made
// before it answers. Tests talk to it over HTTP with the real client (@aws-sdk/client-s3); nothing
// of the client or of the code under test is mocked.
//
// Why a child process: s3rver makes ListObjectsV2 continuation tokens with DES, which OpenSSL 3 only
// has in its legacy provider, so the server runs under `node --openssl-legacy-provider` (the tests'
// own process does not need that flag). A child of its own can also be stopped (SIGSTOP: it keeps
// accepting connections and answers nothing, a hung store) and killed (nothing listens any more).
//
// What the server does, checked in test/archive/s3-store.test.ts:
//   - PutObject, GetObject, HeadObject (404 with no body for a missing key), ListObjectsV2 with
//     Prefix, MaxKeys and ContinuationToken; ETags are the hex MD5 of the bytes.
// What it does not do:
//   - If-None-Match on PutObject: ignored, the object is replaced (R2 and S3 answer 412). With
//     `conditionalWrites` the helper puts a small check in front of the server that answers 412
//     PreconditionFailed the way R2 does, so the store's handling of that answer runs too.
//   - Content-MD5: not checked (a wrong digest is stored; R2 and S3 answer BadDigest).
//   - SigV4 on bucket-level requests: it signs `/bucket` where the SDK signs `/bucket/`, so every
//     ListObjectsV2 fails SignatureDoesNotMatch. Signatures are therefore not checked by default;
//     `checkSignatures: true` checks them, and then only object requests (get/head/put) work — enough
//     to see what a wrong secret does.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** s3rver's built-in account. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

export interface S3ServerOptions {
  bucket?: string;
  /** Answer 412 to a PutObject with If-None-Match: * on an existing key, as R2 and S3 do. */
  conditionalWrites?: boolean;
  /** Check SigV4 signatures (object requests only: see the header). */
  checkSignatures?: boolean;
}

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The folder the server stores into. */
  directory: string;
  /** SIGSTOP the server: connections are still accepted, nothing is answered. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** Stop the server and remove its folder (idempotent). */
  close(): Promise<void>;
}

// The server, run by `node --openssl-legacy-provider -e`. It exits when its stdin closes, so a test
// process that dies leaves no server behind.
const CHILD = String.raw`
const S3rver = require(process.env.S3RVER_MAIN);
const opts = JSON.parse(process.env.S3_SERVER_OPTIONS);
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory: opts.directory,
  configureBuckets: [{ name: opts.bucket }],
  allowMismatchedSignatures: !opts.checkSignatures,
});
if (opts.conditionalWrites) {
  // First in the chain, before s3rver's own routes: what R2 does with If-None-Match: * on a PUT.
  server.middleware.unshift(async (ctx, next) => {
    const m = /^\/([^/]+)\/(.+)$/.exec(ctx.path);
    if (ctx.method === 'PUT' && m && ctx.get('if-none-match') === '*' && Object.keys(ctx.query).every((q) => q === 'x-id')) {
      if (await server.store.existsObject(m[1], decodeURIComponent(m[2]))) {
        ctx.status = 412;
        ctx.type = 'application/xml';
        ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>If-None-Match</Condition></Error>';
        return;
      }
    }
    await next();
  });
}
server.run().then((address) => process.stdout.write(JSON.stringify({ port: address.port }) + '\n'), (error) => { process.stderr.write(String(error && error.stack || error) + '\n'); process.exit(1); });
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
`;

const S3RVER_MAIN = createRequire(import.meta.url).resolve('@20minutes/s3rver');
const START_TIMEOUT_MS = 20_000;

export async function startS3Server(options: S3ServerOptions = {}): Promise<S3TestServer> {
  const bucket = options.bucket ?? 'mcp-schema-test';
  const directory = mkdtempSync(join(tmpdir(), 'mcps-s3-'));
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', CHILD], {
    env: {
      PATH: process.env.PATH ?? '',
      S3RVER_MAIN,
      S3_SERVER_OPTIONS: JSON.stringify({ directory, bucket, conditionalWrites: !!options.conditionalWrites, checkSignatures: !!options.checkSignatures }),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let port: number;
  try {
    port = await readPort(child);
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  let closed = false;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    credentials: { ...S3RVER_CREDENTIALS },
    directory,
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    async close() {
      if (closed) return;
      closed = true;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGCONT');
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

function readPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`the S3 test server did not start in ${START_TIMEOUT_MS} ms: ${err.slice(0, 500)}`)), START_TIMEOUT_MS);
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0]!;
      if (out.includes('\n')) {
        clearTimeout(timer);
        try {
          resolve((JSON.parse(line) as { port: number }).port);
        } catch {
          reject(new Error(`the S3 test server said ${JSON.stringify(line.slice(0, 200))}`));
        }
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the S3 test server exited (${code ?? signal}) before it listened: ${err.slice(0, 500)}`));
    });
  });
}
