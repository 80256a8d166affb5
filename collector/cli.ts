// npm run collect -- [options]. Parses options (node:util parseArgs), wires runCollector, draws the
// progress bar on a terminal, prints the summary. CliError is caught here and only here.
import { isStoreError, type ObjectStore } from '../src/archive/object-store.ts';
import { openRemoteStore } from '../src/archive/store-config.ts';
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import cliProgress from 'cli-progress';
import { CliError, EXIT } from './cli-error.ts';
import { METHODOLOGY_CHOICES, type AnyRun, type MethodologyChoice } from '../src/lib/index.ts';
import { DEFAULTS, runCollector, SCHEDULE_DEFAULTS, type CollectorOptions, type CollectorSummary, type Progress } from './run.ts';
import { DEFAULT_MAX_ENDPOINTS_PER_SHARD } from './run-options.ts';
import { SHARD_COMMANDS, shardMain, type ShardCommand } from './shards/cli.ts';
import { DEFAULT_ROSTER_LIMITS, ROSTER_BOUNDS } from './roster.ts';
import { signerFromPem, type ChainSigner } from '../src/lib/index.ts';
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
  --per-host-divisor <d>, --per-host-max <m>
                       per host at most clamp(ceil(targets on the host / d), 1, m) probes in flight,
                       one request at a time per endpoint (default d ${DEFAULTS.perHostDivisor}, m ${DEFAULTS.perHostMax}); a 429/503
                       pauses the host (Retry-After, at most ${SCHEDULE_DEFAULTS.retryAfterCapMs / 1000} s) and halves its limit
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

exit codes: 0 run finished (also when degraded; plan written; shard finished), 1 zero attempts (the
            run is recorded as failed), 2 bad options, unusable --data, or a plan, shard folder or
            shard row refused, 3 another collector holds the lock (of --data or of a shard folder
            seal reads: that shard is still running), 4 this run already finished or sealed
            (pick another --now), 5 the object store failed: the day's rows so far are kept; re-run
            with the same --now to resume (npm run store -- keep saves them first on a machine that
            goes away)
user-agent: ${USER_AGENT}
`;

/** `5h`, `90m`, `600s`, `1500ms` → ms; `none` → null; undefined when absent. */
export function duration(name: string, v: string | undefined): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === 'none') return null;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(v);
  const ms = m ? Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'] : NaN;
  if (!Number.isFinite(ms) || ms <= 0) throw new CliError(`--${name} must be a duration such as 5h, 90m or 600s (or none), got ${JSON.stringify(v)}`, EXIT.usage);
  return Math.round(ms);
}

function nonNegativeInt(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new CliError(`--${name} must be a whole number, got ${JSON.stringify(v)}`, EXIT.usage);
  return Number(v);
}

function positiveInt(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new CliError(`--${name} must be a positive integer, got ${JSON.stringify(v)}`, EXIT.usage);
  return Number(v);
}

export async function main(argv: string[]): Promise<number> {
  if (argv[0] !== undefined && (SHARD_COMMANDS as readonly string[]).includes(argv[0])) return shardMain(argv[0] as ShardCommand, argv.slice(1), { runOptions, signerFromEnv, remoteFromEnv });
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: RUN_OPTIONS,
    }));
  } catch (e) {
    throw new CliError(`${(e as Error).message}\nsee --help`, EXIT.usage, { cause: e });
  }
  if (values.help) {
    process.stdout.write(HELP);
    return EXIT.ok;
  }
  const { options, signer, remote } = { options: runOptions(values), signer: signerFromEnv(), remote: remoteFromEnv() };
  const bar = !values.json && process.stderr.isTTY ? progressBar() : null;
  let summary: CollectorSummary;
  try {
    summary = await runCollector({ ...options, onProgress: bar?.update, signer, remote });
  } finally {
    bar?.stop();
  }
  if (values.json) process.stdout.write(JSON.stringify(summary) + '\n');
  else for (const r of summary.runs) process.stdout.write(oneLine(summary, r) + '\n');
  const failed = summary.runs.find((r) => r.status === 'failed');
  if (failed) {
    process.stderr.write(`collector: run ${failed.run_id} (${failed.methodology_version}) failed: ${failed.message ?? 'zero attempts'}\n`);
    return EXIT.failed;
  }
  return EXIT.ok;
}

/** The options a run takes (one job, or plan): parsed and checked; CliError on a bad one. */
function runOptions(values: Record<string, string | boolean | undefined>): CollectorOptions {
  const str = (k: string) => values[k] as string | undefined;
  let now: Date | undefined;
  if (str('now') !== undefined) {
    now = new Date(str('now')!);
    if (Number.isNaN(now.getTime())) throw new CliError(`--now is not an ISO time: ${JSON.stringify(str('now'))}`, EXIT.usage);
  }
  if (str('registry') !== undefined) {
    try {
      new URL(str('registry')!);
    } catch {
      throw new CliError(`--registry is not a URL: ${JSON.stringify(str('registry'))}`, EXIT.usage);
    }
  }
  return {
    registry: str('registry'),
    rosterLimits: str('registry-rate') !== undefined ? { paceRequests: positiveInt('registry-rate', str('registry-rate')) } : undefined,
    data: str('data'),
    limit: positiveInt('limit', str('limit')) ?? null,
    methodology: methodology(str('methodology')),
    bridgeDays: positiveInt('bridge-days', str('bridge-days')),
    concurrency: positiveInt('concurrency', str('concurrency')),
    perHostDivisor: positiveInt('per-host-divisor', str('per-host-divisor')),
    perHostMax: positiveInt('per-host-max', str('per-host-max')),
    unresponsiveAfter: nonNegativeInt('unresponsive-after', str('unresponsive-after')),
    deadlineMs: duration('deadline', str('deadline')),
    timeoutMs: positiveInt('timeout', str('timeout')),
    now,
    allowPrivate: (values['allow-private'] as boolean | undefined) ?? false,
    optout: str('optout') !== undefined ? resolve(str('optout')!) : DEFAULT_OPTOUT,
  };
}

/** The signing key comes from the environment (a CI secret), read here and nowhere else in the collector. */
function signerFromEnv(): ChainSigner | null {
  if (!process.env.MCP_SCHEMA_SIGNING_KEY) return null;
  try {
    return signerFromPem(process.env.MCP_SCHEMA_SIGNING_KEY, SIGNING_KEY_LABEL);
  } catch (e) {
    throw new CliError(`MCP_SCHEMA_SIGNING_KEY is not an Ed25519 private key in PEM: ${(e as Error).message}`, EXIT.usage, { cause: e });
  }
}

/** The object store (MCP_SCHEMA_STORE and its variables, docs/OPERATIONS.md "Object store"), read here like the key. */
function remoteFromEnv(): ObjectStore | null {
  try {
    return openRemoteStore(process.env);
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage, { cause: e });
  }
}

/** The run options parseArgs knows (one job and plan share them). */
export const RUN_OPTIONS = {
  registry: { type: 'string' },
  'registry-rate': { type: 'string' },
  data: { type: 'string' },
  limit: { type: 'string' },
  methodology: { type: 'string' },
  'bridge-days': { type: 'string' },
  concurrency: { type: 'string' },
  'per-host-divisor': { type: 'string' },
  'per-host-max': { type: 'string' },
  'unresponsive-after': { type: 'string' },
  deadline: { type: 'string' },
  timeout: { type: 'string' },
  now: { type: 'string' },
  'allow-private': { type: 'boolean' },
  optout: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function methodology(v: string | undefined): MethodologyChoice | undefined {
  if (v === undefined) return undefined;
  if (!(METHODOLOGY_CHOICES as readonly string[]).includes(v)) throw new CliError(`--methodology must be one of ${METHODOLOGY_CHOICES.join(', ')}, got ${JSON.stringify(v)}`, EXIT.usage);
  return v as MethodologyChoice;
}

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

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      if (e instanceof CliError) {
        process.stderr.write(`collector: ${e.message}\n`);
        process.exitCode = e.exitCode;
      } else if (isStoreError(e)) {
        process.stderr.write(`collector: the object store failed (${e.message}): the day's rows so far are kept; re-run with the same --now to resume\n`);
        process.exitCode = EXIT.store;
      } else {
        process.stderr.write(`collector: unexpected failure: ${(e as Error)?.stack ?? String(e)}\n`);
        process.exitCode = 70;
      }
    },
  );
}
