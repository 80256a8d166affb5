// npm run verify -- [--data <dir>] [--key <file>]... [--full [--part k/n]] [--against copy|<dir>] [--plan-parts] [--record] [--today YYYY-MM-DD] [--scrub-days N] [--json]
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FsObjectStore } from '../../src/archive/object-store.ts';
import { openCopyStore, openPrimaryStore } from '../../src/archive/store-config.ts';
import { CliError, command, day, EXIT, exitCodes, expected, integer, main, usage } from '../cli-kit/index.ts';
import { DEFAULT_MAX_PART_HOURS, FULL_VERIFY_HOURS_PER_GB, planParts } from './verify-plan.ts';
import { DEFAULT_SCRUB_CYCLE_DAYS, formatReport, scrubSlice, verifyArchive } from './verify.ts';
import { loadKeys } from './verify-chain.ts';

/** The project's public key, committed beside the code (keys/README.md). */
const REPO_KEY = fileURLToPath(new URL('../../keys/mcp-schema-ed25519.pub', import.meta.url));

export const HELP = `usage: npm run verify -- [--data <dir>] [--key <file>]... [--full [--part k/n]] [--record]
                         [--against copy|<dir>] [--today YYYY-MM-DD] [--scrub-days N] [--json]
       npm run verify -- --plan-parts [--max-part-hours H] [--store-bytes B] [--data <dir>] [--json]

Checks an archive, each series (observations/ v1, observations-v2/ v2) by its own contract: every row
validates, every referenced object exists and hashes to its name (v2: the handshake and every
tools/list page), one row per target per run, run rows agree with their rows and rosters (and the two
rows of a run that recorded both series with each other), no torn line or temp file, and the hash
chain (chain.jsonl): each manifest names the one before it, still matches the rows, runs lines,
roster and objects of its run, and its signature verifies. The first broken link is named by its
run. Exits 1 on any problem, 2 on bad usage.

Incremental by default once <data>/verify-state.json records a verified chain head (--record): then
only the runs after that head are checked (their chain manifests, run rows, rows, rosters and every
object they reference), with the cheap checks of the whole archive (runs.jsonl, the chain's order,
temp files, editions) and a rotating scrub that re-hashes 1/N of all stored objects and page
manifests a day (by the first hex byte of their names), so every object is re-checked each N days,
and checks that every object ${'stored.jsonl'} names in that slice is there, and that every key the
shard's previous scrub listed is listed again (objects are never deleted: a deleted key is found on
its shard's day, as a corrupted one is). Each shard's listing is recorded with --record in the store
(scrub/<shard>/<sha256>.txt.gz) and named in verify-state.json; a shard's first scrub records it
without a comparison.
No state, or one chain.jsonl no longer matches (rewritten history), runs a full verify and says so.

  --data <dir>      the archive (default: data/); objects are read from the store the environment
                    names (MCP_SCHEMA_STORE, see src/archive/store-config.ts), else from <dir>
  --key <file>      an Ed25519 public key (PEM) the chain may be signed with; repeatable
                    (default: keys/mcp-schema-ed25519.pub when it exists). Demo keys are read from
                    the archive's own keys/ folder and say so.
  --full            check the whole archive (every object, row, roster and chain digest). Closed
                    files kept in the object store (data/stored.jsonl) are brought into <dir> to be
                    read and removed afterwards.
  --part <k/n>      with --full: part k of n, so a full verify runs as n jobs side by side: the days
                    of every n-th month (month number mod n) with their rows, runs and rosters, 1/n of
                    the object shards, and the chain's links and signatures whole. The n parts cover
                    one full verify; a part is never recorded.
  --against <copy|dir>
                    check the record against its second copy instead of the primary store: a full
                    verify (with --part, a part of one) reading every object from the bucket
                    MCP_SCHEMA_STORE_COPY names (copy), or from a folder holding the keys at their
                    archive paths (an unpacked month part): every key the record names must be
                    there and hash right. Never recorded.
  --plan-parts      print how many parts a full verify needs so each takes at most
                    --max-part-hours (default ${DEFAULT_MAX_PART_HOURS}: half of a 6 h job), from the store's size
                    (listed, or --store-bytes) at ${(FULL_VERIFY_HOURS_PER_GB * 60).toFixed(1)} min a GB (bench:years, year 5),
                    then the matrix JSON a workflow gives its jobs ({"part":[1,…,n]})
  --record          after a verify with zero problems, record the chain's head and the scrub's shard
                    listings in verify-state.json (never after a failed one)
  --today <day>     the UTC day that picks the scrub's slice (default: today)
  --scrub-days <N>  days in a scrub cycle, 1..366 (default: the state's, else ${DEFAULT_SCRUB_CYCLE_DAYS}); recorded with --record
  --json            print the report as JSON
  -h, --help        this text

${exitCodes({ 0: 'no problem (--plan-parts: the plan printed)', 1: 'a problem (each named in the report), or --plan-parts could not list the store', 2: 'bad usage, a --key that is not a public key, or an unusable object store' })}`;

export const COMMAND = command({
  name: 'verify',
  help: HELP,
  options: {
    data: { type: 'string', default: 'data' },
    key: { type: 'string', multiple: true },
    full: { type: 'boolean', default: false },
    record: { type: 'boolean', default: false },
    today: { type: 'string' },
    'scrub-days': { type: 'string' },
    part: { type: 'string' },
    against: { type: 'string' },
    'plan-parts': { type: 'boolean', default: false },
    'max-part-hours': { type: 'string' },
    'store-bytes': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

main(import.meta.url, COMMAND, async ({ values }, io) => {
  const today = day('today', values.today) ?? new Date().toISOString().slice(0, 10);
  const scrubDays = integer('scrub-days', values['scrub-days'], { min: 1, max: 366 });
  try {
    scrubSlice(today, scrubDays ?? DEFAULT_SCRUB_CYCLE_DAYS);
  } catch (e) {
    throw usage(`--today/--scrub-days: ${(e as Error).message}`);
  }
  let keys;
  try {
    keys = loadKeys(values.key ?? (existsSync(REPO_KEY) ? [REPO_KEY] : []));
  } catch (e) {
    throw new CliError(`--key: ${(e as Error).message}`, EXIT.usage, { cause: e });
  }
  if (values['plan-parts']) {
    if (values.full || values.part !== undefined || values.record || values.against !== undefined) throw usage('--plan-parts plans a full verify and runs none: give it alone');
    const maxPartHours = values['max-part-hours'] === undefined ? undefined : Number(values['max-part-hours']);
    if (maxPartHours !== undefined && !(maxPartHours > 0 && maxPartHours <= 6)) throw usage(`--max-part-hours must be a number of hours above 0 and at most 6, got ${JSON.stringify(values['max-part-hours'])}`);
    const storeBytes = integer('store-bytes', values['store-bytes'], { min: 0 });
    let plan;
    try {
      const store = openPrimaryStore(io.env) ?? new FsObjectStore(values.data);
      plan = await planParts(values.data, store, { ...(maxPartHours !== undefined ? { maxPartHours } : {}), ...(storeBytes !== undefined ? { storeBytes } : {}) });
    } catch (e) {
      throw new CliError(`--plan-parts: ${(e as Error).message}`, EXIT.failed, { cause: e });
    }
    io.stdout(
      values.json
        ? `${JSON.stringify(plan, null, 2)}\n`
        : `${plan.parts} parts: ${(plan.bytes / 1e9).toFixed(2)} GB ${plan.measured === 'listed' ? `listed (${plan.keys} keys)` : 'given'}, +${(plan.weekGrowth * 100).toFixed(1)} % for a week's growth, at ${(plan.hoursPerGb * 60).toFixed(1)} min a GB: ${plan.hours.toFixed(2)} h in all, ${plan.partHours.toFixed(2)} h a part (at most ${plan.maxPartHours} h)\n${JSON.stringify(plan.matrix)}\n`,
    );
    return 0;
  }
  let objects;
  try {
    // With a bucket, its own bytes are checked, and nothing is copied into data/: a cache in front would
    // answer from its copies, and a weekly --full would download the whole bucket onto the runner's disk.
    if (values.against === 'copy') {
      objects = openCopyStore(io.env);
      if (!objects) throw usage('--against copy: MCP_SCHEMA_STORE_COPY is not set (see docs/OPERATIONS.md "The second copy")');
    } else if (values.against !== undefined) {
      if (!existsSync(values.against)) throw usage(`--against: no folder at ${values.against}`);
      objects = new FsObjectStore(values.against);
    } else objects = openPrimaryStore(io.env) ?? new FsObjectStore(values.data);
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`object store: ${(e as Error).message}`, EXIT.usage, { cause: e });
  }
  let part: { k: number; n: number } | undefined;
  if (values.part !== undefined) {
    const m = /^(\d{1,2})\/(\d{1,2})$/.exec(values.part);
    part = m ? { k: Number(m[1]), n: Number(m[2]) } : undefined;
    if (!part || part.n < 1 || part.n > 64 || part.k < 1 || part.k > part.n) throw usage(`--part must be k/n with 1 ≤ k ≤ n ≤ 64, got ${JSON.stringify(values.part)}`);
    if (!values.full && values.against === undefined) throw usage('--part is a part of a full verify: give --full too');
    if (values.record) throw usage('--part cannot be --record-ed: only a whole verify advances the verified head');
  }
  if (values.against !== undefined && values.record) throw usage('--against checks a copy: it is never --record-ed');
  const report = await expected(verifyArchive(values.data, { keys, objects, mode: values.full || values.against !== undefined ? 'full' : 'auto', today, ...(scrubDays !== undefined ? { scrubCycleDays: scrubDays } : {}), record: values.record, scrubListings: values.against === undefined, ...(part ? { part } : {}) }));
  io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
  return report.problems.length === 0 ? 0 : 1;
});
