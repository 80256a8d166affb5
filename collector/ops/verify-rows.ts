// The rows', runs' and rosters' part of `npm run verify` (verify.ts runs it): rosters, observation rows
// per series, run rows against their rows and rosters, leftovers of a crash, the validation records.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { listDays, tornLastLine } from '../../src/archive/day-files.ts';
import { DAY_FILE, LAYOUT, runsPath, SERIES_FOLDER } from '../../src/archive/layout.ts';
import { observationLines, observationV2Lines, type ObservationLine } from '../../src/archive/observations.ts';
import { readRoster, rosterEntries } from '../../src/archive/rosters.ts';
import { runLines } from '../../src/archive/runs.ts';
import { readValidations } from '../../src/archive/validations.ts';
import { isRunV2, NOT_ATTEMPTED_REASONS, RUN_SERIES, type NotAttemptedReason, type Observation, type ObservationV2, type Outcome, OUTCOMES } from '../../src/lib/index.ts';
import { oneLine } from '../errors.ts';
import { refer } from './verify-objects.ts';
import type { Ctx, Scope } from './verify-types.ts';

/** 2. Rosters: every entry of rosters/ (incremental: the scope's roster files, and any entry that is not a roster). */
export function checkRosters(ctx: Ctx, scope: Scope): void {
  for (const file of rosterEntries(ctx.dir)) {
    const where = `${LAYOUT.rosters}/${file}`;
    if (!file.endsWith('.json')) {
      ctx.problem('orphan', where, 'not a roster file (temp file left by a crash?)');
      continue;
    }
    if (scope.rosters && !scope.rosters.has(file)) continue;
    const r = readRoster(ctx.dir, file);
    if (!r.ok) {
      ctx.problem('roster-invalid', where, r.message);
      continue;
    }
    const roster = r.value;
    ctx.rosters.set(file, { complete: roster.complete });
    ctx.report.rosters++;
    roster.pages.forEach((p, i) => refer(ctx, p.sha256, `${where} page ${i}`));
    const failedPage = roster.pages.some((p) => p.sha256 === null || p.error !== null);
    if (roster.complete && failedPage) ctx.problem('roster-complete', where, 'complete: true but a page failed');
    const last = roster.pages[roster.pages.length - 1];
    if (roster.complete && last && last.next_cursor !== null && last.count !== 0) {
      ctx.problem('roster-complete', where, 'complete: true but the last page still points to a next page');
    }
  }
}

/**
 * 3. Observation rows of the scope's days, line by line, per series (observations/ v1, observations-v2/
 * v2): each folder holds rows of its own series only, validated by that series' contract. A run's
 * rows are all in its day's files, so per-run tallies and duplicates are complete for every day read.
 */
export async function checkRows(ctx: Ctx, scope: Scope): Promise<void> {
  const { dir, report } = ctx;
  // series \0 run_id \0 target, of the day being read: a run's rows are all in its day's files (a row
  // elsewhere is misfiled, reported below), so a duplicate is always within a day. Kept per day, so a
  // full verify's memory does not grow by a key per row of the whole archive (≈ 5 MB a day at 42,000 targets).
  let seen = new Set<string>();
  const days = new Set<string>();
  for (const series of RUN_SERIES) {
    const folder = SERIES_FOLDER[series];
    const obsDir = join(dir, folder);
    for (const file of existsSync(obsDir) ? readdirSync(obsDir).sort() : []) {
      if (!DAY_FILE.test(file)) ctx.problem('orphan', `${folder}/${file}`, 'not a day file (temp file left by a crash?)');
    }
    for (const day of listDays(dir, folder)) {
      if (scope.days && !scope.days.has(day.day)) continue;
      days.add(day.day);
      seen = new Set();
      report.dayFiles += day.files.length;
      for (const file of day.files) if (!file.endsWith('.gz') && tornLastLine(join(dir, file))) ctx.problem('torn-line', file, 'last line has no newline (an interrupted append)');
      try {
        const lines = series === 'v1' ? observationLines(dir, day) : observationV2Lines(dir, day);
        for await (const { row: r, file, n } of lines as AsyncGenerator<ObservationLine<Observation | ObservationV2>>) {
          const at = `${file}:${n}`;
          if (!r) {
            ctx.problem('row-invalid', at, 'empty line');
            continue;
          }
          if (!r.ok) {
            ctx.problem('row-invalid', at, r.message);
            continue;
          }
          const row = r.value;
          report.rows++;
          if (row.day !== day.day) ctx.problem('row-misfiled', at, `row of day ${row.day} in the file of ${day.day}`);
          if (row.methodology_version !== series) ctx.problem('row-invalid', at, `a recorded row names series ${row.methodology_version}; only restatements may`);
          const key = `${series}\0${row.run_id}\0${row.target}`;
          if (seen.has(key)) ctx.problem('row-duplicate', at, `second row for target ${oneLine(row.target, 80)} in run ${row.run_id}`);
          seen.add(key);
          refer(ctx, row.body_sha256, at);
          refer(ctx, row.registry_page_sha256, at);
          const runKey = `${series}\0${row.run_id}`;
          let run = ctx.perRun.get(runKey);
          if (!run) ctx.perRun.set(runKey, (run = { outcomes: zeroOutcomes(), reasons: zeroReasons(), statuses: new Map(), eras: new Map(), requests: 0, first: at }));
          run.outcomes[row.outcome]++;
          if (row.not_attempted_reason) run.reasons[row.not_attempted_reason]++;
          if ('era' in row) {
            // v2: the handshake and every tools/list page are stored, and the first page is body_sha256.
            refer(ctx, row.handshake_sha256, at);
            for (const sha of row.tools_pages_sha256 ?? []) refer(ctx, sha, at);
            if (row.tools_pages_sha256 && row.body_sha256 !== row.tools_pages_sha256[0]) ctx.problem('row-invalid', at, 'body_sha256 is not the first of tools_pages_sha256');
            if (row.status) run.statuses.set(row.status, (run.statuses.get(row.status) ?? 0) + 1);
            run.eras.set(row.era, (run.eras.get(row.era) ?? 0) + 1);
            if (row.outcome === 'ok' || row.outcome === 'error') run.requests += row.requests;
          }
        }
      } catch (e) {
        ctx.problem('day-file-corrupt', day.files.join(' + '), `unreadable: ${(e as Error).message.slice(0, 160)}`);
      }
    }
  }
  report.scope.days = [...days].sort();
}

/**
 * 4. Runs: every line of runs.jsonl parses, no run is recorded twice per series, and a run recording
 * both series has one row of each sharing the run's facts (all cheap: runs.jsonl is a line or two a
 * day). Each run row of a day in the scope agrees with its series' rows and its roster.
 */
export function checkRuns(ctx: Ctx, scope: Scope): void {
  const { dir, report } = ctx;
  const runIds = new Set<string>(); // series \0 run_id
  const checkedRuns = new Set<string>();
  const shared = new Map<string, { day: string; roster_file: string | null; eligible: number; at: string }>();
  if (existsSync(runsPath(dir))) {
    if (tornLastLine(runsPath(dir))) ctx.problem('torn-line', LAYOUT.runs, 'last line has no newline (an interrupted append)');
    for (const { n, row: r } of runLines(dir)) {
      const at = `${LAYOUT.runs}:${n}`;
      if (!r || !r.ok) {
        ctx.problem('run-invalid', at, r ? r.message : 'empty line');
        continue;
      }
      const run = r.value;
      const series = run.methodology_version;
      const runKey = `${series}\0${run.run_id}`;
      if (runIds.has(runKey)) ctx.problem('run-duplicate', at, `run ${run.run_id} (${series}) recorded twice`);
      runIds.add(runKey);
      const other = shared.get(run.run_id);
      if (!other) shared.set(run.run_id, { day: run.day, roster_file: run.roster_file, eligible: run.eligible, at });
      else if (other.day !== run.day || other.roster_file !== run.roster_file || other.eligible !== run.eligible) {
        ctx.problem('run-series', at, `run ${run.run_id}: its ${series} row and the row at ${other.at} disagree on day, roster or eligible`);
      }
      if (scope.days && !scope.days.has(run.day)) continue; // its rows and roster were not read
      report.runs++;
      checkedRuns.add(run.run_id);
      const tally = ctx.perRun.get(runKey);
      const rows = tally?.outcomes ?? zeroOutcomes();
      const reasons = tally?.reasons ?? zeroReasons();
      const where = series === 'v1' ? 'the day files' : `the ${SERIES_FOLDER[series]} day files`;
      for (const o of OUTCOMES) {
        // Run rows written before not_attempted existed lack its count: it reads as 0.
        const said = run.outcomes[o] ?? 0;
        if (rows[o] !== said) ctx.problem('run-counts', at, `run ${run.run_id} says ${said} ${o} rows, ${where} hold ${rows[o]}`);
      }
      if (run.attempts !== rows.ok + rows.error) ctx.problem('run-counts', at, `attempts ${run.attempts} ≠ ok + error rows ${rows.ok + rows.error}`);
      // not_attempted targets are eligible ones the run did not contact: never more than eligible with the attempts.
      if (rows.ok + rows.error + rows.not_attempted > run.eligible) ctx.problem('run-counts', at, `attempts + not_attempted rows ${rows.ok + rows.error + rows.not_attempted} > eligible ${run.eligible}`);
      if (run.scheduling) {
        for (const why of NOT_ATTEMPTED_REASONS) {
          // A reason a run row lacks (one written before the reason existed) counts 0.
          if ((run.scheduling.not_attempted[why] ?? 0) !== reasons[why]) ctx.problem('run-counts', at, `run ${run.run_id} says ${run.scheduling.not_attempted[why] ?? 0} not_attempted (${why}) rows, ${where} hold ${reasons[why]}`);
        }
      }
      if (isRunV2(run)) {
        for (const [status, said] of Object.entries(run.statuses)) {
          const held = tally?.statuses.get(status) ?? 0;
          if (held !== said) ctx.problem('run-counts', at, `run ${run.run_id} says ${said} rows of status ${status}, ${where} hold ${held}`);
        }
        for (const [era, said] of Object.entries(run.eras)) {
          const held = tally?.eras.get(era) ?? 0;
          if (held !== said) ctx.problem('run-counts', at, `run ${run.run_id} says ${said} rows of era ${era}, ${where} hold ${held}`);
        }
        if (run.requests.total !== (tally?.requests ?? 0)) ctx.problem('run-counts', at, `run ${run.run_id} says ${run.requests.total} requests, ${where} count ${tally?.requests ?? 0}`);
      }
      if (run.roster_file !== null) {
        const roster = ctx.rosters.get(run.roster_file);
        if (!roster) ctx.problem('roster-missing', at, `roster ${run.roster_file} is missing`);
        else if (roster.complete !== run.roster_complete) ctx.problem('roster-complete', at, `run says roster_complete ${run.roster_complete}, the roster says ${roster.complete}`);
      }
      if (rows.retired > 0 && !run.roster_complete) ctx.problem('retired-on-incomplete', at, 'targets retired although the roster was incomplete');
    }
  }
  for (const [key, run] of ctx.perRun) {
    const [series, id] = key.split('\0') as [string, string];
    if (!runIds.has(key)) ctx.warn('run-unfinished', run.first, `rows of run ${id} (${series}) have no run row (interrupted and not resumed yet)`);
  }
  report.scope.runs = [...checkedRuns];
}

/** 6. Leftovers of a crash elsewhere: temp files in the archive root, quarantined bytes, a lock. */
export function checkLeftovers(ctx: Ctx): void {
  const { dir } = ctx;
  for (const name of readdirSync(dir)) {
    if (/\.tmp|~$/.test(name)) ctx.problem('orphan', name, 'temp file in the archive root');
  }
  const quarantine = join(dir, LAYOUT.quarantine);
  for (const name of existsSync(quarantine) ? readdirSync(quarantine).sort() : []) {
    ctx.warn('quarantine', `${LAYOUT.quarantine}/${name}`, 'bytes set aside by a crash repair (kept for inspection, not part of the record)');
  }
  if (existsSync(join(dir, LAYOUT.lock))) ctx.warn('lock', LAYOUT.lock, 'a lock file is present (a run in progress, or a dead one the next run recovers)');
}

/** The validation gate's records (validations/, docs/VALIDATION.md): each a sound record whose bytes hash to its name. */
export function checkValidations(ctx: Ctx): void {
  for (const p of readValidations(ctx.dir).problems) ctx.problem('validation', p.file, p.message);
}

function zeroReasons(): Record<NotAttemptedReason, number> {
  return Object.fromEntries(NOT_ATTEMPTED_REASONS.map((o) => [o, 0])) as Record<NotAttemptedReason, number>;
}

function zeroOutcomes(): Record<Outcome, number> {
  return Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
}
