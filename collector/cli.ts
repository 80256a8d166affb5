// npm run collect -- [plan|probe|seal] [options], on the CLI kit (collector/cli-kit/index.ts): options
// parsed strictly, values checked by the kit's validators, a CliError printed as `collect: <message>`.
// Wires runCollector (one job) or a shard step (collector/shards/cli.ts), draws the progress bar on a
// terminal, prints the summary. The object store failing is exit 5 with one sentence, never a stack.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import cliProgress from 'cli-progress';
import { isStoreError, type ObjectStore } from '../src/archive/object-store.ts';
import { openRemoteStore } from '../src/archive/store-config.ts';
import { CliError, command, duration, EXIT, execute, exitCodes, integer, isoTime, main as entry, oneOf, shown, url, usage, type Io, type Parsed } from './cli-kit/index.ts';
import { METHODOLOGY_CHOICES, signerFromPem, type AnyRun, type ChainSigner } from '../src/lib/index.ts';
import { DEFAULTS, runCollector, SCHEDULE_DEFAULTS, type CollectorOptions, type CollectorSummary, type Progress } from './run.ts';
import { DEFAULT_MAX_ENDPOINTS_PER_SHARD } from './run-options.ts';
import { SHARD_COMMANDS, SHARD_OPTIONS, shardRun, type ShardCommand } from './shards/cli.ts';
import { DEFAULT_ROSTER_LIMITS, ROSTER_BOUNDS } from './roster.ts';
import { ROSTER_CHAINS } from './roster-chains.ts';
import { PROBER_VERSION, SIGNING_KEY_LABEL, USER_AGENT } from './version.ts';

const DEFAULT_OPTOUT = fileURLToPath(new URL('../optout.txt', import.meta.url));

export const HELP = `mcp-schema collector ${PROBER_VERSION} — daily run (methodology v1 and v2)

usage: npm run collect -- [options]                      one job: plan, probe, seal in one process
       npm run collect -- plan --now <iso> --work <dir> [--max-endpoints-per-shard n] [options]
       npm run collect -- probe --work <dir> --shard <k> [--data <shard-dir>]
       npm run collect -- seal --work <dir> [--data <dir>] [--shard-dir <dir> ...]

A day's run in parallel jobs (docs/OPERATIONS.md "Sharded runs"):
  plan   the roster stage as a single job runs it (rosters/<day>.json and its pages in --data), the
         series decided, the rows that need no request (retired, excluded, no_endpoint) written to
         --data, and the probe targets split into shards by host (every endpoint of a host in one
         shard; hosts largest first, each to the least-loaded shard): <work>/plan.json. Shards:
         ceil(endpoints / --max-endpoints-per-shard) (default ${DEFAULT_MAX_ENDPOINTS_PER_SHARD}); a larger host gets
         a shard of its own. --json prints {"run_id":…,"shards":[0,1,…]} for a workflow matrix.
         The run's options (--concurrency, per-host limits, --deadline, --timeout, ...) go in the plan.
  probe  shard k's targets, with the plan's schedule options, into --data (default <work>/shard-<k>;
         objects to the bucket when MCP_SCHEMA_STORE is set), then <shard-dir>/shard-report.json,
         written last: its presence means the shard finished. Run again, a shard probes only the
         targets without a row; a finished shard does nothing.
  seal   the shards' rows merged into --data (a row for a target the plan gives another shard is
         refused), their objects copied, every planned target still without a row given a
         not_attempted row with reason shard_lost (the run is degraded by the coverage rule), then one
         run row per series and the chain manifest. --shard-dir (repeatable; default <work>/shard-<k>
         for every shard). A sealed run is refused (exit 4).

options of a run (one job, or plan):

  --registry <url>     registry list endpoint (default ${DEFAULTS.registry})
  --registry-rate <n>  registry list requests a minute, retries included (default ${DEFAULT_ROSTER_LIMITS.paceRequests} after a burst of
                       ${DEFAULT_ROSTER_LIMITS.paceBurst}; the registry allows about 180, then answers 429); a 429 halves the rate,
                       each quiet minute adds a quarter back. Roster bounds: the last complete roster's
                       pages × ${ROSTER_BOUNDS.pageHeadroom} + ${ROSTER_BOUNDS.extraPages}, and that many pages at its time per page (no faster than
                       the rate) × ${ROSTER_BOUNDS.timeHeadroom} + ${ROSTER_BOUNDS.slackMs / 60_000} min; a roster cut short since then doubles into them
                       (first run: ${DEFAULT_ROSTER_LIMITS.maxPages} pages, ${DEFAULT_ROSTER_LIMITS.maxWallMs / 60_000} min; at most ${ROSTER_BOUNDS.ceilingPages} pages, ${ROSTER_BOUNDS.ceilingMs / 3600_000} h)
  --roster-chains <n>  page the listing along n cursor chains at once, under the one rate above, split at
                       keys of the last complete roster (1 to ${ROSTER_CHAINS.max}, or auto; default auto: one chain while
                       the last roster would take one chain at most ${ROSTER_CHAINS.wallBudgetMs / 3600_000} h, beyond that enough to fit it, no
                       more than the rate can use); a first run pages one chain
  --data <dir>         archive directory (default ${DEFAULTS.data}/)
  --methodology <m>    v1, v2, v1,v2 or auto (default ${DEFAULTS.methodology}): the series the run records.
                       v1,v2 probes each target with v2 then v1 in one job and writes both day files
                       (observations/, observations-v2/) and two run rows with the same run_id; auto
                       records both until runs.jsonl holds ${DEFAULTS.bridgeDays} days with a finished full run of both
                       series (the bridge), then v2 alone
  --bridge-days <n>    the bridge length auto waits for (default ${DEFAULTS.bridgeDays}); only for local worlds
                       and demos: the published archive's bridge is ${DEFAULTS.bridgeDays} days
  --limit <n>          probe only the first n targets in roster order; the run is marked partial
  --concurrency <n>    targets probed at once over all hosts (default ${DEFAULTS.concurrency})
  --per-host-divisor <d>, --per-host-max <m>, --per-host-span <s>
                       per host at most clamp(ceil(targets on the host / d), 1, m) probes in flight,
                       one request at a time per endpoint (default d ${DEFAULTS.perHostDivisor}, m ${DEFAULTS.perHostMax}); a host with
                       more than m × s endpoints gets ⌈endpoints ÷ s⌉ slots, so its day stays bounded
                       (default s ${DEFAULTS.perHostSpan}; 0 or none: the cap m alone); a 429/503 pauses the host
                       (Retry-After, at most ${SCHEDULE_DEFAULTS.retryAfterCapMs / 1000} s) and halves its limit
  --unresponsive-after <k>
                       after k consecutive timeouts or connection failures on one host, lasting at least
                       one --timeout, its remaining targets are not contacted: not_attempted rows,
                       reason host_unresponsive (default ${DEFAULTS.unresponsiveAfter}; 0: never)
  --deadline <time>    stop starting probes this long after the start (e.g. 5h, 90m, 600s; none);
                       what is left gets not_attempted rows, reason run_deadline (default ${DEFAULTS.deadlineMs / 3600_000}h)
  --timeout <ms>       overall deadline per request (default ${DEFAULTS.timeoutMs})
  --now <iso>          the run's clock: run_id, day and observed_at derive from it (default: now).
                       Re-running with the same --now after a crash resumes that run (per series:
                       targets with a row are not probed again; a series with a run row is done).
  --allow-private      also permit loopback addresses (local worlds only; private, link-local and
                       every other non-public range stay refused)
  --optout <file>      registry names or hosts never to contact (default optout.txt in the repo)
  --json               print a machine-readable summary on stdout
  -h, --help           this text

Not-attempted rows count against coverage: a run below 90% is recorded as degraded. A job skipped
at the deadline or on an unresponsive host gets a not_attempted row in every series it records.

environment: MCP_SCHEMA_SIGNING_KEY  an Ed25519 private key (PKCS#8 PEM) that signs the run's manifest
             on the hash chain (chain.jsonl); unset: the manifest is unsigned (npm run verify warns)
             MCP_SCHEMA_STORE=s3://<bucket>/<prefix> with MCP_SCHEMA_STORE_ENDPOINT, AWS_ACCESS_KEY_ID,
             AWS_SECRET_ACCESS_KEY (MCP_SCHEMA_STORE_REGION, default auto): objects and page manifests
             go to that bucket first, --data keeping a cache of them; unset: all in --data

user-agent: ${USER_AGENT}

${exitCodes({
  [EXIT.ok]: 'run finished (also when degraded; plan written; shard finished)',
  [EXIT.failed]: 'zero attempts (the run is recorded as failed)',
  [EXIT.usage]: 'bad options, unusable --data, or a plan, shard folder or shard row refused',
  [EXIT.locked]: 'another collector holds the lock (of --data or of a shard folder seal reads: that shard is still running)',
  [EXIT.finished]: 'this run already finished or sealed (pick another --now)',
  [EXIT.store]: "the object store failed: the day's rows so far are kept; re-run with the same --now to resume (npm run store -- keep saves them first on a machine that goes away)",
})}
`;

/** The options of a run (one job, or plan). */
export const RUN_OPTIONS = {
  registry: { type: 'string' },
  'registry-rate': { type: 'string' },
  'roster-chains': { type: 'string' },
  data: { type: 'string' },
  limit: { type: 'string' },
  methodology: { type: 'string' },
  'bridge-days': { type: 'string' },
  concurrency: { type: 'string' },
  'per-host-divisor': { type: 'string' },
  'per-host-max': { type: 'string' },
  'per-host-span': { type: 'string' },
  'unresponsive-after': { type: 'string' },
  deadline: { type: 'string' },
  timeout: { type: 'string' },
  now: { type: 'string' },
  'allow-private': { type: 'boolean' },
  optout: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const COMMAND = command({
  name: 'collect',
  help: HELP,
  options: {
    ...RUN_OPTIONS,
    work: { type: 'string' },
    'max-endpoints-per-shard': { type: 'string' },
    shard: { type: 'string' },
    'shard-dir': { type: 'string', multiple: true },
  },
  positionals: 1 /* plan|probe|seal */,
});

type Values = Parsed<typeof COMMAND.options>['values'];

/** The options a step takes: one job the run's, plan the run's and its own, probe and seal their own. */
function allowed(step: ShardCommand | undefined): Set<string> {
  const own = step ? SHARD_OPTIONS[step] : [];
  const run = step === undefined || step === 'plan' ? Object.keys(RUN_OPTIONS) : [];
  return new Set([...run, ...own, 'help']);
}

export async function run({ values, positionals }: Parsed<typeof COMMAND.options>, io: Io): Promise<number> {
  const [step] = positionals;
  if (step !== undefined && !(SHARD_COMMANDS as readonly string[]).includes(step)) throw usage(`the step must be one of ${SHARD_COMMANDS.join(', ')} (or none: one job), got ${shown(step)} (see --help)`);
  const ok = allowed(step as ShardCommand | undefined);
  const stray = Object.keys(values).find((k) => !ok.has(k));
  if (stray !== undefined) throw usage(`${step ?? 'a one-job run'} does not take --${stray} (see --help)`);
  try {
    if (step !== undefined) return await shardRun(step as ShardCommand, values, io, { runOptions, signerFromEnv: () => signerFromEnv(io.env), remoteFromEnv: () => remoteFromEnv(io.env) });
    return await oneJob(values, io);
  } catch (e) {
    if (isStoreError(e)) throw new CliError(`the object store failed (${e.message}): the day's rows so far are kept; re-run with the same --now to resume`, EXIT.store, { cause: e });
    throw e;
  }
}

/** The collector on argv, its exit code returned (tests). */
export function main(argv: readonly string[], io?: Io): Promise<number> {
  return execute(COMMAND, run, argv, io);
}

async function oneJob(values: Values, io: Io): Promise<number> {
  const options = runOptions(values);
  const signer = signerFromEnv(io.env);
  const remote = remoteFromEnv(io.env);
  const bar = !values.json && process.stderr.isTTY && io.stderr === processStderr ? progressBar() : null;
  let summary: CollectorSummary;
  try {
    summary = await runCollector({ ...options, onProgress: bar?.update, signer, remote });
  } finally {
    bar?.stop();
  }
  if (values.json) io.stdout(JSON.stringify(summary) + '\n');
  else for (const r of summary.runs) io.stdout(oneLine(summary, r) + '\n');
  const failed = summary.runs.find((r) => r.status === 'failed');
  if (failed) throw new CliError(`run ${failed.run_id} (${failed.methodology_version}) failed: ${failed.message ?? 'zero attempts'}`, EXIT.failed);
  return EXIT.ok;
}

/** The options a run takes (one job, or plan): checked by the kit's validators; a usage error on a bad one. */
function runOptions(values: Record<string, unknown>): CollectorOptions {
  const str = (k: string) => values[k] as string | undefined;
  const rate = integer('registry-rate', str('registry-rate'), { min: 1 });
  const chains = str('roster-chains') === 'auto' ? undefined : integer('roster-chains', str('roster-chains'), { min: 1, max: ROSTER_CHAINS.max });
  const span = str('per-host-span') === 'none' ? 0 : integer('per-host-span', str('per-host-span'), { min: 0 });
  return {
    registry: url('registry', str('registry')),
    rosterLimits: rate !== undefined || chains !== undefined ? { paceRequests: rate, chains } : undefined,
    data: str('data'),
    limit: integer('limit', str('limit'), { min: 1 }) ?? null,
    methodology: oneOf('methodology', str('methodology'), METHODOLOGY_CHOICES),
    bridgeDays: integer('bridge-days', str('bridge-days'), { min: 1 }),
    concurrency: integer('concurrency', str('concurrency'), { min: 1 }),
    perHostDivisor: integer('per-host-divisor', str('per-host-divisor'), { min: 1 }),
    perHostMax: integer('per-host-max', str('per-host-max'), { min: 1 }),
    // 0 or none: the cap alone (null); absent: the default span.
    perHostSpan: span === undefined ? undefined : span === 0 ? null : span,
    unresponsiveAfter: integer('unresponsive-after', str('unresponsive-after'), { min: 0 }),
    deadlineMs: duration('deadline', str('deadline')),
    timeoutMs: integer('timeout', str('timeout'), { min: 1 }),
    now: isoTime('now', str('now')),
    allowPrivate: (values['allow-private'] as boolean | undefined) ?? false,
    optout: str('optout') !== undefined ? resolve(str('optout')!) : DEFAULT_OPTOUT,
  };
}

/** The signing key comes from the environment (a CI secret), read here and nowhere else in the collector. */
function signerFromEnv(env: NodeJS.ProcessEnv): ChainSigner | null {
  if (!env.MCP_SCHEMA_SIGNING_KEY) return null;
  try {
    return signerFromPem(env.MCP_SCHEMA_SIGNING_KEY, SIGNING_KEY_LABEL);
  } catch (e) {
    throw new CliError(`MCP_SCHEMA_SIGNING_KEY is not an Ed25519 private key in PEM: ${(e as Error).message}`, EXIT.usage, { cause: e });
  }
}

/** The object store (MCP_SCHEMA_STORE and its variables, docs/OPERATIONS.md "Object store"), read here like the key. */
function remoteFromEnv(env: NodeJS.ProcessEnv): ObjectStore | null {
  try {
    return openRemoteStore(env);
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage, { cause: e });
  }
}

const processStderr = (t: string) => process.stderr.write(t);

function oneLine(s: CollectorSummary, r: AnyRun): string {
  const classes = Object.entries(r.error_classes).filter(([c, n]) => n > 0 && c !== 'no_endpoint').map(([c, n]) => `${c} ${n}`).join(', ');
  return [
    `run ${r.run_id} ${r.methodology_version} ${r.status}${r.partial ? ' (partial)' : ''}${r.degraded ? ' DEGRADED' : ''}:`,
    `${r.targets} targets, ${r.attempts}/${r.eligible} attempted (coverage ${(r.coverage * 100).toFixed(1)}%),`,
    `ok ${r.outcomes.ok}, error ${r.outcomes.error}${classes ? ` [${classes}]` : ''}, no_endpoint ${r.outcomes.no_endpoint}, retired ${r.outcomes.retired}, excluded ${r.outcomes.excluded}, not_attempted ${r.outcomes.not_attempted}${notAttempted(r)};`,
    `roster ${r.roster_file ?? 'none'}${r.roster_complete ? '' : ' INCOMPLETE'}; ${(s.duration_ms / 1000).toFixed(1)} s, ${s.targets_per_s} targets/s`,
  ].join(' ');
}

function notAttempted(r: AnyRun): string {
  const by = Object.entries(r.scheduling?.not_attempted ?? {}).filter(([, n]) => n > 0);
  return by.length ? ` [${by.map(([why, n]) => `${why} ${n}`).join(', ')}]` : '';
}

function progressBar(): { update: (p: Progress) => void; stop: () => void } {
  const bar = new cliProgress.SingleBar(
    { format: 'probing [{bar}] {value}/{total} | ok {ok} | {errors}', hideCursor: true, clearOnComplete: false, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  const errors = (p: Progress) => Object.entries(p.errors).map(([c, n]) => `${c} ${n}`).join(' ') || 'no errors';
  return {
    update(p) {
      if (!started) {
        bar.start(p.total, p.done, { ok: p.ok, errors: errors(p) });
        started = true;
      }
      bar.setTotal(p.total);
      bar.update(p.done, { ok: p.ok, errors: errors(p) });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}


entry(import.meta.url, COMMAND, (args, io) => run(args, { ...io, stderr: processStderr }));
