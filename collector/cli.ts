// npm run collect -- [options]. Parses options (node:util parseArgs), wires runCollector, draws the
// progress bar on a terminal, prints the summary. CliError is caught here and only here.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import cliProgress from 'cli-progress';
import { CliError, EXIT } from './cli-error.ts';
import { DEFAULTS, runCollector, SCHEDULE_DEFAULTS, type CollectorSummary, type Progress } from './run.ts';
import { PROBER_VERSION, USER_AGENT } from './version.ts';

const DEFAULT_OPTOUT = fileURLToPath(new URL('../optout.txt', import.meta.url));

export const HELP = `mcp-schema collector ${PROBER_VERSION} — methodology v1 daily run

usage: npm run collect -- [options]

  --registry <url>     registry list endpoint (default ${DEFAULTS.registry})
  --data <dir>         archive directory (default ${DEFAULTS.data}/)
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
                       Re-running with the same --now after a crash resumes that run.
  --allow-private      also permit loopback addresses (local worlds only; private, link-local and
                       every other non-public range stay refused)
  --optout <file>      registry names or hosts never to contact (default optout.txt in the repo)
  --json               print a machine-readable summary on stdout
  -h, --help           this text

Not-attempted rows count against coverage: a run below 90% is recorded as degraded.

exit codes: 0 run finished (also when degraded), 1 zero attempts (the run is recorded as failed),
            2 bad options or unusable --data, 3 another collector holds the lock,
            4 this run already finished (pick another --now)
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
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        registry: { type: 'string' },
        data: { type: 'string' },
        limit: { type: 'string' },
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
      },
    }));
  } catch (e) {
    throw new CliError(`${(e as Error).message}\nsee --help`, EXIT.usage, { cause: e });
  }
  if (values.help) {
    process.stdout.write(HELP);
    return EXIT.ok;
  }
  let now: Date | undefined;
  if (values.now !== undefined) {
    now = new Date(values.now);
    if (Number.isNaN(now.getTime())) throw new CliError(`--now is not an ISO time: ${JSON.stringify(values.now)}`, EXIT.usage);
  }
  if (values.registry !== undefined) {
    try {
      new URL(values.registry);
    } catch {
      throw new CliError(`--registry is not a URL: ${JSON.stringify(values.registry)}`, EXIT.usage);
    }
  }
  const bar = !values.json && process.stderr.isTTY ? progressBar() : null;
  let summary: CollectorSummary;
  try {
    summary = await runCollector({
      registry: values.registry,
      data: values.data,
      limit: positiveInt('limit', values.limit) ?? null,
      concurrency: positiveInt('concurrency', values.concurrency),
      perHostDivisor: positiveInt('per-host-divisor', values['per-host-divisor']),
      perHostMax: positiveInt('per-host-max', values['per-host-max']),
      unresponsiveAfter: nonNegativeInt('unresponsive-after', values['unresponsive-after']),
      deadlineMs: duration('deadline', values.deadline),
      timeoutMs: positiveInt('timeout', values.timeout),
      now,
      allowPrivate: values['allow-private'] ?? false,
      optout: values.optout !== undefined ? resolve(values.optout) : DEFAULT_OPTOUT,
      onProgress: bar?.update,
    });
  } finally {
    bar?.stop();
  }
  const r = summary.run;
  if (values.json) process.stdout.write(JSON.stringify(summary) + '\n');
  else process.stdout.write(oneLine(summary) + '\n');
  if (r.status === 'failed') {
    process.stderr.write(`collector: run ${r.run_id} failed: ${r.message ?? 'zero attempts'}\n`);
    return EXIT.failed;
  }
  return EXIT.ok;
}

function oneLine(s: CollectorSummary): string {
  const r = s.run;
  const classes = Object.entries(r.error_classes).filter(([c, n]) => n > 0 && c !== 'no_endpoint').map(([c, n]) => `${c} ${n}`).join(', ');
  return [
    `run ${r.run_id} ${r.status}${r.partial ? ' (partial)' : ''}${r.degraded ? ' DEGRADED' : ''}:`,
    `${r.targets} targets, ${r.attempts}/${r.eligible} attempted (coverage ${(r.coverage * 100).toFixed(1)}%),`,
    `ok ${r.outcomes.ok}, error ${r.outcomes.error}${classes ? ` [${classes}]` : ''}, no_endpoint ${r.outcomes.no_endpoint}, retired ${r.outcomes.retired}, excluded ${r.outcomes.excluded}, not_attempted ${r.outcomes.not_attempted}${notAttempted(r)};`,
    `roster ${r.roster_file ?? 'none'}${r.roster_complete ? '' : ' INCOMPLETE'}; ${(s.duration_ms / 1000).toFixed(1)} s, ${s.targets_per_s} targets/s`,
  ].join(' ');
}

function notAttempted(r: CollectorSummary['run']): string {
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
      } else {
        process.stderr.write(`collector: unexpected failure: ${(e as Error)?.stack ?? String(e)}\n`);
        process.exitCode = 70;
      }
    },
  );
}
