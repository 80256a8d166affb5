// npm run store -- push|check|offload|pull|copy|repair|keep|restore [--data <dir>] [--concurrency <n>] [--from D] [--to D] [--recent N] [--json]
import { existsSync } from 'node:fs';
import { defaultVerify } from '../../src/archive/cached-store.ts';
import { FsObjectStore, type ObjectStore } from '../../src/archive/object-store.ts';
import { LAYOUT } from '../../src/archive/layout.ts';
import { COPY_ENV, openCopyStore, openPrimaryStore, openRemoteStore, STORE_ENV } from '../../src/archive/store-config.ts';
import { KEPT_FILE, keepDay, pushKeys, restoreDay } from './store-keep.ts';
import { repairKeys, REPAIRS_FILE } from './store-repair.ts';
import { offload, pullStored, readStoredIndex } from '../../src/archive/stored-files.ts';
import { CliError, command, day, EXIT, exitCodes, expected, integer, main, usage } from '../cli-kit/index.ts';

export const HELP = `usage: npm run store -- <push|check|offload|pull|copy> [--data <dir>] [--concurrency <n>] [--json]
                                      [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--recent <days>]
       npm run store -- repair <key|stored path>... [--source <dir>]... [--data <dir>] [--json]
       npm run store -- keep <dir> [--now <iso>] [--data <dir>]
       npm run store -- restore <dir> [--data <dir>]

The archive's objects (objects/<aa>/<sha256>) and page manifests (pages/<aa>/<sha256>.json) in the
remote object store, which is their durable home; the archive folder is its cache. The remote is
read from the environment:

  ${STORE_ENV.store}=s3://<bucket>/<prefix>   the bucket, and the folder inside it
  ${STORE_ENV.endpoint}=https://<account>.r2.cloudflarestorage.com
  ${STORE_ENV.region}                         default auto
  ${STORE_ENV.accessKeyId}, ${STORE_ENV.secretAccessKey}
  ${COPY_ENV.store}=s3://<bucket>/<prefix>   the second copy (another provider), with
                      ${COPY_ENV.endpoint}, ${COPY_ENV.region}, ${COPY_ENV.accessKeyId},
                      ${COPY_ENV.secretAccessKey}: every put goes to both buckets

  push   upload every local key the remote lacks. An objects/ file must hash to its name: one that
         does not is reported and not uploaded. Keys are written once: a key the remote has is
         never replaced. Prints how many keys and bytes were uploaded. Exits 1 when a local
         file was corrupt.
  check  list the remote's keys and compare them with the local ones: local keys the remote lacks
         (not yet durable: push them) and remote keys not cached here (normal for a cache).
         Exits 1 when a local key is missing remotely.
  offload  put every closed file (gzipped day files, gzipped rosters) as an object of its bytes and
         name it in ${LAYOUT.stored}, so git need not carry it (the collect job runs this after
         compact --finished, and commit-day.sh --exclude keeps the day folders and rosters out of git).
         Without ${STORE_ENV.store} the objects go to the folder's own objects/ (local worlds, tests).
  pull   bring the stored files of a range of days back into the folder, each checked against
         ${LAYOUT.stored} (the jobs pull what they read: the collector its last days' rosters, the
         deploy the months the site publishes, a full verify the days it checks). A file already in
         the folder is kept. Without ${STORE_ENV.store}, from the folder's own objects/.

  copy   bring the second copy up to the primary: every key of the primary the copy lacks is read,
         checked (an objects/ key must hash to its name) and put. Run once when the copy is set up,
         and after running without it. Exits 1 when a primary key was corrupt (not copied).
  repair put each named key back from a good copy: a store key (objects/…, pages/…) or a closed
         file ${LAYOUT.stored} names (its object, checked against the index's size and SHA-256).
         The store's bytes are checked first: a good key is left as it is and said so. Otherwise
         the sources are asked in order (the folder's own copy, the second copy, each --source
         folder such as an unpacked month part) and the first with good bytes replaces the store's
         (the only write that replaces a key); each replacement is appended to ${REPAIRS_FILE}.
         Exits 1, writing nothing for that key, when no good copy exists. The store is the primary
         bucket, or without one the folder itself.
  keep <dir>     after a collection the store stopped (exit 5): copy what a resumed run needs
         (runs, chain, stored index, the day files and rosters not yet stored, every cached key)
         into the new folder <dir>, listed with their hashes in ${KEPT_FILE}, with --now recorded
  restore <dir>  put a kept folder back into --data (each file checked against ${KEPT_FILE}; an
         append-only file is only ever lengthened; a conflict refuses the whole restore), then
         push the kept keys the bucket lacks; then collect with the --now it prints

  --data <dir>        the archive (default: data/)
  --concurrency <n>   uploads at once (push; default 8)
  --from, --to        pull: the first and last day (inclusive; default: every day)
  --recent <days>     pull: the last <days> days up to today (UTC), instead of --from/--to
  --source <dir>      repair: a folder holding keys at their archive paths, asked after the
                      second copy (repeatable)
  --now <iso>         keep: the interrupted run's --now, recorded for the resume
  --json              print the summary as JSON
  -h, --help          this text

${exitCodes({ 0: 'done', 1: 'a local file corrupt (push), a local key missing remotely (check), stored.jsonl lines\n              that do not parse (pull), or the store failed', 2: 'bad usage, an unusable --data, or no remote configured' })}`;

const COMMANDS = ['push', 'check', 'offload', 'pull', 'copy', 'repair', 'keep', 'restore'] as const;

/** pull's days: --recent N (the N days up to today, UTC), or --from/--to, or every day. */
function dayRange(v: { from?: string; to?: string; recent?: string }): { from: string | null; to: string | null } {
  if (v.recent !== undefined) {
    if (v.from !== undefined || v.to !== undefined) throw usage('--recent replaces --from and --to: give one or the other');
    const n = integer('recent', v.recent, { min: 1, max: 100_000 })!;
    return { from: new Date(Date.now() - (n - 1) * 86_400_000).toISOString().slice(0, 10), to: null };
  }
  day('from', v.from);
  day('to', v.to);
  if (v.from !== undefined && v.to !== undefined && v.from > v.to) throw new CliError(`--from ${v.from} is after --to ${v.to}`, EXIT.usage);
  return { from: v.from ?? null, to: v.to ?? null };
}

async function offloadCommand(dir: string, store: ObjectStore, json: boolean): Promise<boolean> {
  const index = readStoredIndex(dir);
  if (index.problems.length > 0) throw new Error(`${LAYOUT.stored} has lines that do not parse (${index.problems.map((p) => `line ${p.line}: ${p.message}`).join('; ')}): fix it before adding to it`);
  const added = await offload(dir, store);
  const bytes = added.reduce((n, l) => n + l.bytes, 0);
  process.stdout.write(json ? `${JSON.stringify({ store: store.description, added }, null, 2)}\n` : `offloaded ${added.length} closed files (${bytes} bytes) to ${store.description}, named in ${LAYOUT.stored}${listed(added.map((l) => l.path))}\n`);
  return true;
}

async function pullCommand(dir: string, store: ObjectStore, range: { from: string | null; to: string | null }, json: boolean): Promise<boolean> {
  const index = readStoredIndex(dir);
  const got = await pullStored(dir, store, range, index);
  const span = range.from === null && range.to === null ? 'every day' : `${range.from ?? 'the first day'}..${range.to ?? 'the last day'}`;
  process.stdout.write(
    json
      ? `${JSON.stringify({ store: store.description, range, fetched: got.fetched, bytes: got.bytes, already_local: got.local, index_problems: index.problems }, null, 2)}\n`
      : `pulled ${got.fetched.length} stored files (${got.bytes} bytes) of ${span} from ${store.description}; ${got.local} already in the folder${listed(got.fetched)}\n`,
  );
  for (const p of index.problems) process.stderr.write(`store: ${LAYOUT.stored} line ${p.line}: ${p.message} (skipped)\n`);
  return index.problems.length === 0;
}

/** How many keys of each list the text summary names. */
const SHOWN = 20;
const PREFIXES = ['objects/', 'pages/'] as const;

export const COMMAND = command({
  name: 'store',
  help: HELP,
  positionals: Number.MAX_SAFE_INTEGER,
  options: {
    data: { type: 'string', default: 'data' },
    concurrency: { type: 'string', default: '8' },
    json: { type: 'boolean', default: false },
    from: { type: 'string' },
    to: { type: 'string' },
    recent: { type: 'string' },
    source: { type: 'string', multiple: true },
    now: { type: 'string' },
  },
});

main(import.meta.url, COMMAND, ({ values, positionals }) => expected(async () => {
  const command = positionals[0];
  if (!COMMANDS.includes(command as (typeof COMMANDS)[number])) throw usage(`expected one command, ${COMMANDS.join(', ')} (see --help)`);
  const operands = positionals.slice(1);
  if (command === 'repair' ? operands.length === 0 : command === 'keep' || command === 'restore' ? operands.length !== 1 : operands.length !== 0) {
    throw new CliError(command === 'repair' ? 'repair needs the keys or stored paths to repair' : command === 'keep' || command === 'restore' ? `${command} needs one folder` : `${command} takes no operand, not ${JSON.stringify(operands[0]!.slice(0, 100))}`, EXIT.usage);
  }
  if (values.now !== undefined && (command !== 'keep' || Number.isNaN(Date.parse(values.now)) || !/^\d{4}-\d{2}-\d{2}T/.test(values.now))) throw new CliError(command === 'keep' ? `--now must be an ISO time, not ${JSON.stringify(values.now.slice(0, 60))}` : '--now is for keep only', EXIT.usage);
  if (values.source !== undefined && command !== 'repair') throw new CliError('--source is for repair only', EXIT.usage);
  const concurrency = integer('concurrency', values.concurrency, { min: 1, max: 64 })!;
  if (!existsSync(values.data)) throw usage(`no archive at --data ${values.data}`);
  let remote;
  try {
    remote = openRemoteStore(process.env);
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage);
  }
  const local = new FsObjectStore(values.data);
  if (command === 'keep') {
    const kept = await keepDay(values.data, operands[0]!, values.now === undefined ? null : new Date(values.now).toISOString(), remote);
    const keys = kept.files.filter((f) => /^(objects|pages)\//.test(f.path)).length;
    const which = !remote ? 'every cached key' : kept.remoteAnswered ? `the cached keys ${remote.description} lacks` : `every cached key (${remote.description} did not answer)`;
    process.stdout.write(`kept ${kept.files.length - keys} files and ${keys} keys (${which}; ${kept.files.reduce((n, f) => n + f.bytes, 0)} bytes) of ${values.data} in ${operands[0]}; restore them with npm run store -- restore ${operands[0]}\n`);
    return 0;
  }
  if (command === 'restore') {
    const done = await restoreDay(values.data, operands[0]!);
    const pushed = remote ? await pushKeys(values.data, done.keys, remote) : 0;
    process.stdout.write(
      `restored ${done.written.length} files, lengthened ${done.extended.length}, ${done.same} already the same${done.newer.length > 0 ? `, ${done.newer.length} longer here (kept as they are: ${done.newer.join(', ')})` : ''}; ${done.keys.length} keys in the folder${remote ? `, ${pushed} pushed to ${remote.description}` : ''}\n` +
        (done.now ? `resume with: npm run collect -- --now ${done.now}\n` : 'resume with the interrupted run\'s --now (keep was not told it)\n'),
    );
    return 0;
  }
  if (command === 'repair') {
    const primary = openPrimaryStore(process.env);
    const copy = openCopyStore(process.env);
    const target: ObjectStore = primary ?? local;
    const sources: ObjectStore[] = [...(primary ? [local] : []), ...(copy ? [copy] : []), ...(values.source ?? []).map((d) => new FsObjectStore(d))];
    const results = await repairKeys(values.data, target, sources, operands, () => new Date());
    process.stdout.write(values.json ? `${JSON.stringify({ store: target.description, results }, null, 2)}\n` : `${results.map((r) => `${r.outcome}: ${r.message}`).join('\n')}\n`);
    return results.every((r) => r.outcome === 'good' || r.outcome === 'replaced') ? 0 : 1;
  }
  if (command === 'copy') {
    const primary = openPrimaryStore(process.env);
    const copy = openCopyStore(process.env);
    if (!primary || !copy) throw new CliError(`copy needs both ${STORE_ENV.store} and ${COPY_ENV.store} (see --help)`, EXIT.usage);
    const ok = await push(primary, copy, concurrency, values.json);
    return ok ? 0 : 1;
  }
  if (command === 'offload' || command === 'pull') {
    const store = remote ?? local;
    const ok = command === 'offload' ? await offloadCommand(values.data, store, values.json) : await pullCommand(values.data, store, dayRange(values), values.json);
    return ok ? 0 : 1;
  }
  if (!remote) throw new CliError(`${STORE_ENV.store} is not set: ${command} needs a remote store (s3://<bucket>/<prefix>; see --help)`, EXIT.usage);
  const ok = command === 'push' ? await push(local, remote, concurrency, values.json) : await check(local, remote, values.json);
  return ok ? 0 : 1;
}));

async function keysOf(store: ObjectStore): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const prefix of PREFIXES) for await (const key of store.list(prefix)) keys.add(key);
  return keys;
}

async function push(local: ObjectStore, remote: ObjectStore, concurrency: number, json: boolean): Promise<boolean> {
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
  const summary = { remote: remote.description, local: local instanceof FsObjectStore ? local.dir : local.description, uploaded, bytes, already_remote: present, corrupt };
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
