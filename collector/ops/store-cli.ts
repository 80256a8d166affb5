// npm run store -- push|check [--data <dir>] [--concurrency <n>] [--json]
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { defaultVerify } from '../../src/archive/cached-store.ts';
import { FsObjectStore, type ObjectStore } from '../../src/archive/object-store.ts';
import { openRemoteStore, STORE_ENV } from '../../src/archive/store-config.ts';
import { CliError, EXIT, isCliError } from '../cli-error.ts';

const HELP = `usage: npm run store -- <push|check> [--data <dir>] [--concurrency <n>] [--json]

The archive's objects (objects/<aa>/<sha256>) and page manifests (pages/<aa>/<sha256>.json) in the
remote object store, which is their durable home; the archive folder is its cache. The remote is
read from the environment:

  ${STORE_ENV.store}=s3://<bucket>/<prefix>   the bucket, and the folder inside it
  ${STORE_ENV.endpoint}=https://<account>.r2.cloudflarestorage.com
  ${STORE_ENV.region}                         default auto
  ${STORE_ENV.accessKeyId}, ${STORE_ENV.secretAccessKey}

  push   upload every local key the remote lacks. An objects/ file must hash to its name: one that
         does not is reported and not uploaded. Keys are written once: a key the remote has is
         never replaced. Prints how many keys and bytes were uploaded. Exits 1 when a local
         file was corrupt.
  check  list the remote's keys and compare them with the local ones: local keys the remote lacks
         (not yet durable: push them) and remote keys not cached here (normal for a cache).
         Exits 1 when a local key is missing remotely.

  --data <dir>        the archive (default: data/)
  --concurrency <n>   uploads at once (push; default 8)
  --json              print the summary as JSON
  -h, --help          this text

Exits 2 on bad usage, an unusable --data, or no remote configured.`;

/** How many keys of each list the text summary names. */
const SHOWN = 20;
const PREFIXES = ['objects/', 'pages/'] as const;

try {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      data: { type: 'string', default: 'data' },
      concurrency: { type: 'string', default: '8' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  const command = positionals[0];
  if (positionals.length !== 1 || (command !== 'push' && command !== 'check')) throw new CliError(`expected one command, push or check\n${HELP}`, EXIT.usage);
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new CliError(`--concurrency must be a whole number from 1 to 64, not ${JSON.stringify(values.concurrency)}`, EXIT.usage);
  if (!existsSync(values.data)) throw new CliError(`no archive at --data ${values.data}`, EXIT.usage);
  let remote;
  try {
    remote = openRemoteStore(process.env);
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage);
  }
  if (!remote) throw new CliError(`${STORE_ENV.store} is not set: ${command} needs a remote store (s3://<bucket>/<prefix>; see --help)`, EXIT.usage);
  const local = new FsObjectStore(values.data);
  const ok = command === 'push' ? await push(local, remote, concurrency, values.json) : await check(local, remote, values.json);
  process.exit(ok ? 0 : 1);
} catch (e) {
  process.stderr.write(`store: ${(e as Error).message}\n`);
  process.exit(isCliError(e) ? e.exitCode : 1);
}

async function keysOf(store: ObjectStore): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const prefix of PREFIXES) for await (const key of store.list(prefix)) keys.add(key);
  return keys;
}

async function push(local: FsObjectStore, remote: ObjectStore, concurrency: number, json: boolean): Promise<boolean> {
  const there = await keysOf(remote);
  const todo: string[] = [];
  let present = 0;
  for (const key of await keysOf(local)) {
    if (there.has(key)) present++;
    else todo.push(key);
  }
  const corrupt: string[] = [];
  let uploaded = 0;
  let bytes = 0;
  let failed: unknown = null;
  let next = 0;
  const worker = async () => {
    while (failed === null && next < todo.length) {
      const key = todo[next++]!;
      const body = await local.get(key);
      if (!body) continue; // removed meanwhile
      if (!defaultVerify(key, body)) {
        corrupt.push(key);
        continue;
      }
      try {
        await remote.put(key, body);
      } catch (e) {
        failed ??= e;
        return;
      }
      uploaded++;
      bytes += body.length;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, todo.length) }, worker));
  corrupt.sort();
  const summary = { remote: remote.description, local: local.dir, uploaded, bytes, already_remote: present, corrupt };
  if (failed !== null) {
    process.stdout.write(`uploaded ${uploaded} keys (${bytes} bytes) before a failure\n`);
    throw failed;
  }
  process.stdout.write(
    json
      ? `${JSON.stringify(summary, null, 2)}\n`
      : `pushed ${uploaded} keys (${bytes} bytes) to ${remote.description}; ${present} already there; ${corrupt.length} corrupt, not uploaded${listed(corrupt)}\n`,
  );
  return corrupt.length === 0;
}

async function check(local: FsObjectStore, remote: ObjectStore, json: boolean): Promise<boolean> {
  const there = await keysOf(remote);
  const here = await keysOf(local);
  const localOnly = [...here].filter((k) => !there.has(k)).sort();
  const remoteOnly = [...there].filter((k) => !here.has(k)).sort();
  const summary = { remote: remote.description, local: local.dir, remote_keys: there.size, local_keys: here.size, local_only: localOnly, remote_only: remoteOnly };
  process.stdout.write(
    json
      ? `${JSON.stringify(summary, null, 2)}\n`
      : [
          `remote ${remote.description}: ${there.size} keys; local ${local.dir}: ${here.size} keys`,
          `${localOnly.length} local keys missing remotely${localOnly.length > 0 ? ' (not durable yet: npm run store -- push)' : ''}${listed(localOnly)}`,
          `${remoteOnly.length} remote keys not cached locally${listed(remoteOnly)}`,
        ].join('\n') + '\n',
  );
  return localOnly.length === 0;
}

function listed(keys: string[]): string {
  if (keys.length === 0) return '';
  const more = keys.length > SHOWN ? `\n  … and ${keys.length - SHOWN} more (--json lists all)` : '';
  return `:\n${keys
    .slice(0, SHOWN)
    .map((k) => `  ${k}`)
    .join('\n')}${more}`;
}
