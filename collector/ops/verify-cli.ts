// npm run verify -- [--data <dir>] [--key <file>]... [--full [--part k/n]] [--record] [--today YYYY-MM-DD] [--scrub-days N] [--json]
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FsObjectStore } from '../../src/archive/object-store.ts';
import { openRemoteStore } from '../../src/archive/store-config.ts';
import { CliError, command, day, EXIT, exitCodes, expected, integer, main, usage } from '../cli-kit/index.ts';
import { DEFAULT_SCRUB_CYCLE_DAYS, formatReport, scrubSlice, verifyArchive } from './verify.ts';
import { loadKeys } from './verify-chain.ts';

/** The project's public key, committed beside the code (keys/README.md). */
const REPO_KEY = fileURLToPath(new URL('../../keys/mcp-schema-ed25519.pub', import.meta.url));

export const HELP = `usage: npm run verify -- [--data <dir>] [--key <file>]... [--full [--part k/n]] [--record]
                         [--today YYYY-MM-DD] [--scrub-days N] [--json]

Checks an archive, each series (observations/ v1, observations-v2/ v2) by its own contract: every row
validates, every referenced object exists and hashes to its name (v2: the handshake and every
tools/list page), one row per target per run, run rows agree with their rows and rosters (and the two
rows of a run that recorded both series with each other), no torn line or temp file, and the hash
chain (chain.jsonl): each manifest names the one before it, still matches the rows, runs lines,
roster and objects of its run, and its signature verifies. The first broken link is named by its
run.

Incremental by default once <data>/verify-state.json records a verified chain head (--record): then
only the runs after that head are checked (their chain manifests, run rows, rows, rosters and every
object they reference), with the cheap checks of the whole archive (runs.jsonl, the chain's order,
temp files, editions) and a rotating scrub that re-hashes 1/N of all stored objects and page
manifests a day (by the first hex byte of their names), so every object is re-checked each N days.
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
  --record          after a verify with zero problems, record the chain's head in verify-state.json
                    (never after a failed one)
  --today <day>     the UTC day that picks the scrub's slice (default: today)
  --scrub-days <N>  days in a scrub cycle, 1..366 (default: the state's, else ${DEFAULT_SCRUB_CYCLE_DAYS}); recorded with --record
  --json            print the report as JSON
  -h, --help        this text

${exitCodes({ 0: 'no problem', 1: 'a problem (each named in the report)', 2: 'bad usage, a --key that is not a public key, or an unusable object store' })}`;

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
  let objects;
  try {
    // With a bucket, its own bytes are checked, and nothing is copied into data/: a cache in front would
    // answer from its copies, and a weekly --full would download the whole bucket onto the runner's disk.
    objects = openRemoteStore(io.env) ?? new FsObjectStore(values.data);
  } catch (e) {
    throw new CliError(`object store: ${(e as Error).message}`, EXIT.usage, { cause: e });
  }
  let part: { k: number; n: number } | undefined;
  if (values.part !== undefined) {
    const m = /^(\d{1,2})\/(\d{1,2})$/.exec(values.part);
    part = m ? { k: Number(m[1]), n: Number(m[2]) } : undefined;
    if (!part || part.n < 1 || part.n > 64 || part.k < 1 || part.k > part.n) throw usage(`--part must be k/n with 1 ≤ k ≤ n ≤ 64, got ${JSON.stringify(values.part)}`);
    if (!values.full) throw usage('--part is a part of a full verify: give --full too');
    if (values.record) throw usage('--part cannot be --record-ed: only a whole verify advances the verified head');
  }
  const report = await expected(verifyArchive(values.data, { keys, objects, mode: values.full ? 'full' : 'auto', today, ...(scrubDays !== undefined ? { scrubCycleDays: scrubDays } : {}), record: values.record, ...(part ? { part } : {}) }));
  io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
  return report.problems.length === 0 ? 0 : 1;
});
