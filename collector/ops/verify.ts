// `npm run verify`: checks a whole archive and exits non-zero on any problem.
// What it promises readers: every row validates against its series' contract (observations/ Observation,
// observations-v2/ ObservationV2), every object a row or roster points at exists and its bytes hash to
// its name (v2: the handshake and every tools/list page too), one row per target per run and series,
// run rows agree with their series' rows and rosters (not_attempted rows and their reasons included;
// v2 statuses, eras and requests), the two rows of a run recording both series agree on its facts, no
// torn line or orphan temp file is left behind, and the hash chain (chain.jsonl) still matches every
// run it covers, its signatures verify, and its first broken link is named by its run (verify-chain.ts).
// Every file is read through src/archive/ (the same readers and the same messages as the site's
// loader); day files line by line and objects as streams, so memory stays flat as the archive grows.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { listDays, tornLastLine } from '../../src/archive/day-files.ts';
import { DAY_FILE, isObjectName, LAYOUT, runsPath, SERIES_FOLDER } from '../../src/archive/layout.ts';
import { checkObjectIn, hashFile } from '../../src/archive/objects.ts';
import { FsObjectStore } from '../../src/archive/object-store.ts';
import { observationLines, observationV2Lines, type ObservationLine } from '../../src/archive/observations.ts';
import { readRoster, rosterEntries } from '../../src/archive/rosters.ts';
import { runLines } from '../../src/archive/runs.ts';
import { isRunV2, NOT_ATTEMPTED_REASONS, RUN_SERIES, type NotAttemptedReason, type Observation, type ObservationV2, type Outcome, OUTCOMES, type Roster } from '../../src/lib/index.ts';
import { oneLine } from '../errors.ts';
import { verifyChain, type ChainReport, type Finding, type TrustedKey } from './verify-chain.ts';
import { verifyEditions } from './verify-editions.ts';

export type { Finding };

export interface VerifyReport {
  dir: string;
  dayFiles: number;
  rows: number;
  runs: number;
  rosters: number;
  objects: number;
  problems: Finding[];
  warnings: Finding[];
  /** The hash chain: its length and head (null when the archive has none yet). */
  chain: Pick<ChainReport, 'manifests' | 'head'> | null;
  /** Edition folders checked (editions/<id>/). */
  editions: number;
}

export interface VerifyOptions {
  /** Public keys the chain's signatures are checked against (the repo's keys/ by default in the CLI). */
  keys?: readonly TrustedKey[];
}

const MAX_LISTED = 200;

/** What one run's rows of one series hold (v2: statuses, eras and requests too). */
interface RunTally {
  outcomes: Record<Outcome, number>;
  reasons: Record<NotAttemptedReason, number>;
  statuses: Map<string, number>;
  eras: Map<string, number>;
  requests: number;
  first: string;
}

export async function verifyArchive(dir: string, options: VerifyOptions = {}): Promise<VerifyReport> {
  const report: VerifyReport = { dir, dayFiles: 0, rows: 0, runs: 0, rosters: 0, objects: 0, problems: [], warnings: [], chain: null, editions: 0 };
  const problem = (kind: string, where: string, message: string) => report.problems.push({ kind, where, message });
  const warn = (kind: string, where: string, message: string) => report.warnings.push({ kind, where, message });
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    problem('archive', dir, 'not a directory');
    return report;
  }

  // 1. Objects: every stored file is named by the SHA-256 of its bytes, in its shard folder.
  const objects = new Set<string>();
  const objDir = join(dir, LAYOUT.objects);
  if (existsSync(objDir)) {
    for (const shard of readdirSync(objDir).sort()) {
      const shardPath = join(objDir, shard);
      if (!statSync(shardPath).isDirectory()) {
        problem('orphan', rel(dir, shardPath), 'stray file in objects/');
        continue;
      }
      for (const name of readdirSync(shardPath).sort()) {
        const path = join(shardPath, name);
        if (!isObjectName(name) || !name.startsWith(shard)) {
          problem('orphan', rel(dir, path), 'not a content-addressed object (temp file left by a crash?)');
          continue;
        }
        const actual = await hashFile(path);
        if (actual !== name) problem('object-corrupt', rel(dir, path), `bytes hash to ${actual.slice(0, 12)}…, not to the name`);
        objects.add(name);
      }
    }
  }
  // 1b. Packed listing pages: each manifest is named by the page it joins to, and joins to it exactly.
  const pageStore = new FsObjectStore(dir);
  const pagesDir = join(dir, LAYOUT.pages);
  if (existsSync(pagesDir)) {
    for (const shard of readdirSync(pagesDir).sort()) {
      const shardPath = join(pagesDir, shard);
      if (!statSync(shardPath).isDirectory()) {
        problem('orphan', rel(dir, shardPath), 'stray file in pages/');
        continue;
      }
      for (const file of readdirSync(shardPath).sort()) {
        const name = file.replace(/\.json$/, '');
        if (!file.endsWith('.json') || !isObjectName(name) || !name.startsWith(shard)) {
          problem('orphan', rel(dir, join(shardPath, file)), 'not a page manifest (temp file left by a crash?)');
          continue;
        }
        if (objects.has(name)) continue; // the page is also stored whole: that copy was hashed above
        const check = await checkObjectIn(pageStore, name);
        if (!check.ok) problem('object-corrupt', rel(dir, join(shardPath, file)), check.message);
        objects.add(name);
      }
    }
  }
  report.objects = objects.size;
  const referenced = new Map<string, string>(); // sha -> first place that refers to it
  const refer = (sha: string | null, where: string) => {
    if (sha && !referenced.has(sha)) referenced.set(sha, where);
  };

  // 2. Rosters.
  const rosters = new Map<string, Roster>();
  for (const file of rosterEntries(dir)) {
    const where = `${LAYOUT.rosters}/${file}`;
    if (!file.endsWith('.json')) {
      problem('orphan', where, 'not a roster file (temp file left by a crash?)');
      continue;
    }
    const r = readRoster(dir, file);
    if (!r.ok) {
      problem('roster-invalid', where, r.message);
      continue;
    }
    const roster = r.value;
    rosters.set(file, roster);
    report.rosters++;
    roster.pages.forEach((p, i) => refer(p.sha256, `${where} page ${i}`));
    const failedPage = roster.pages.some((p) => p.sha256 === null || p.error !== null);
    if (roster.complete && failedPage) problem('roster-complete', where, 'complete: true but a page failed');
    const last = roster.pages[roster.pages.length - 1];
    if (roster.complete && last && last.next_cursor !== null && last.count !== 0) {
      problem('roster-complete', where, 'complete: true but the last page still points to a next page');
    }
  }

  // 3. Observation rows, line by line, per series (observations/ v1, observations-v2/ v2): each folder
  // holds rows of its own series only, validated by that series' contract.
  const seen = new Set<string>(); // series \0 run_id \0 target
  const perRun = new Map<string, RunTally>(); // series \0 run_id
  for (const series of RUN_SERIES) {
    const folder = SERIES_FOLDER[series];
    const obsDir = join(dir, folder);
    for (const file of existsSync(obsDir) ? readdirSync(obsDir).sort() : []) {
      if (!DAY_FILE.test(file)) problem('orphan', `${folder}/${file}`, 'not a day file (temp file left by a crash?)');
    }
    for (const day of listDays(dir, folder)) {
      report.dayFiles += day.files.length;
      for (const file of day.files) if (!file.endsWith('.gz') && tornLastLine(join(dir, file))) problem('torn-line', file, 'last line has no newline (an interrupted append)');
      try {
        const lines = series === 'v1' ? observationLines(dir, day) : observationV2Lines(dir, day);
        for await (const { row: r, file, n } of lines as AsyncGenerator<ObservationLine<Observation | ObservationV2>>) {
          const at = `${file}:${n}`;
          if (!r) {
            problem('row-invalid', at, 'empty line');
            continue;
          }
          if (!r.ok) {
            problem('row-invalid', at, r.message);
            continue;
          }
          const row = r.value;
          report.rows++;
          if (row.day !== day.day) problem('row-misfiled', at, `row of day ${row.day} in the file of ${day.day}`);
          if (row.methodology_version !== series) problem('row-invalid', at, `a recorded row names series ${row.methodology_version}; only restatements may`);
          const key = `${series}\0${row.run_id}\0${row.target}`;
          if (seen.has(key)) problem('row-duplicate', at, `second row for target ${oneLine(row.target, 80)} in run ${row.run_id}`);
          seen.add(key);
          refer(row.body_sha256, at);
          refer(row.registry_page_sha256, at);
          const runKey = `${series}\0${row.run_id}`;
          let run = perRun.get(runKey);
          if (!run) perRun.set(runKey, (run = { outcomes: zeroOutcomes(), reasons: zeroReasons(), statuses: new Map(), eras: new Map(), requests: 0, first: at }));
          run.outcomes[row.outcome]++;
          if (row.not_attempted_reason) run.reasons[row.not_attempted_reason]++;
          if ('era' in row) {
            // v2: the handshake and every tools/list page are stored, and the first page is body_sha256.
            refer(row.handshake_sha256, at);
            for (const sha of row.tools_pages_sha256 ?? []) refer(sha, at);
            if (row.tools_pages_sha256 && row.body_sha256 !== row.tools_pages_sha256[0]) problem('row-invalid', at, 'body_sha256 is not the first of tools_pages_sha256');
            if (row.status) run.statuses.set(row.status, (run.statuses.get(row.status) ?? 0) + 1);
            run.eras.set(row.era, (run.eras.get(row.era) ?? 0) + 1);
            if (row.outcome === 'ok' || row.outcome === 'error') run.requests += row.requests;
          }
        }
      } catch (e) {
        problem('day-file-corrupt', day.files.join(' + '), `unreadable: ${(e as Error).message.slice(0, 160)}`);
      }
    }
  }

  // 4. Runs: each run row agrees with its series' observation rows and its roster; a run recording both
  // series has one row of each, sharing the run's facts.
  const runIds = new Set<string>(); // series \0 run_id
  const shared = new Map<string, { day: string; roster_file: string | null; eligible: number; at: string }>();
  if (existsSync(runsPath(dir))) {
    if (tornLastLine(runsPath(dir))) problem('torn-line', LAYOUT.runs, 'last line has no newline (an interrupted append)');
    for (const { n, row: r } of runLines(dir)) {
      const at = `${LAYOUT.runs}:${n}`;
      if (!r || !r.ok) {
        problem('run-invalid', at, r ? r.message : 'empty line');
        continue;
      }
      const run = r.value;
      const series = run.methodology_version;
      report.runs++;
      const runKey = `${series}\0${run.run_id}`;
      if (runIds.has(runKey)) problem('run-duplicate', at, `run ${run.run_id} (${series}) recorded twice`);
      runIds.add(runKey);
      const other = shared.get(run.run_id);
      if (!other) shared.set(run.run_id, { day: run.day, roster_file: run.roster_file, eligible: run.eligible, at });
      else if (other.day !== run.day || other.roster_file !== run.roster_file || other.eligible !== run.eligible) {
        problem('run-series', at, `run ${run.run_id}: its ${series} row and the row at ${other.at} disagree on day, roster or eligible`);
      }
      const tally = perRun.get(runKey);
      const rows = tally?.outcomes ?? zeroOutcomes();
      const reasons = tally?.reasons ?? zeroReasons();
      const where = series === 'v1' ? 'the day files' : `the ${SERIES_FOLDER[series]} day files`;
      for (const o of OUTCOMES) {
        // Run rows written before not_attempted existed lack its count: it reads as 0.
        const said = run.outcomes[o] ?? 0;
        if (rows[o] !== said) problem('run-counts', at, `run ${run.run_id} says ${said} ${o} rows, ${where} hold ${rows[o]}`);
      }
      if (run.attempts !== rows.ok + rows.error) problem('run-counts', at, `attempts ${run.attempts} ≠ ok + error rows ${rows.ok + rows.error}`);
      // not_attempted targets are eligible ones the run did not contact: never more than eligible with the attempts.
      if (rows.ok + rows.error + rows.not_attempted > run.eligible) problem('run-counts', at, `attempts + not_attempted rows ${rows.ok + rows.error + rows.not_attempted} > eligible ${run.eligible}`);
      if (run.scheduling) {
        for (const why of NOT_ATTEMPTED_REASONS) {
          if (run.scheduling.not_attempted[why] !== reasons[why]) problem('run-counts', at, `run ${run.run_id} says ${run.scheduling.not_attempted[why]} not_attempted (${why}) rows, ${where} hold ${reasons[why]}`);
        }
      }
      if (isRunV2(run)) {
        for (const [status, said] of Object.entries(run.statuses)) {
          const held = tally?.statuses.get(status) ?? 0;
          if (held !== said) problem('run-counts', at, `run ${run.run_id} says ${said} rows of status ${status}, ${where} hold ${held}`);
        }
        for (const [era, said] of Object.entries(run.eras)) {
          const held = tally?.eras.get(era) ?? 0;
          if (held !== said) problem('run-counts', at, `run ${run.run_id} says ${said} rows of era ${era}, ${where} hold ${held}`);
        }
        if (run.requests.total !== (tally?.requests ?? 0)) problem('run-counts', at, `run ${run.run_id} says ${run.requests.total} requests, ${where} count ${tally?.requests ?? 0}`);
      }
      if (run.roster_file !== null) {
        const roster = rosters.get(run.roster_file);
        if (!roster) problem('roster-missing', at, `roster ${run.roster_file} is missing`);
        else if (roster.complete !== run.roster_complete) problem('roster-complete', at, `run says roster_complete ${run.roster_complete}, the roster says ${roster.complete}`);
      }
      if (rows.retired > 0 && !run.roster_complete) problem('retired-on-incomplete', at, 'targets retired although the roster was incomplete');
    }
  }
  for (const [key, run] of perRun) {
    const [series, id] = key.split('\0') as [string, string];
    if (!runIds.has(key)) warn('run-unfinished', run.first, `rows of run ${id} (${series}) have no run row (interrupted and not resumed yet)`);
  }

  // 5. Every referenced object exists.
  for (const [sha, where] of referenced) {
    if (!objects.has(sha)) problem('object-missing', where, `object ${sha.slice(0, 12)}… is missing`);
  }

  // 6. Leftovers of a crash elsewhere.
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    if (/\.tmp|~$/.test(name)) problem('orphan', name, 'temp file in the archive root');
  }
  const quarantine = join(dir, LAYOUT.quarantine);
  for (const name of existsSync(quarantine) ? readdirSync(quarantine).sort() : []) {
    warn('quarantine', `${LAYOUT.quarantine}/${name}`, 'bytes set aside by a crash repair (kept for inspection, not part of the record)');
  }
  if (existsSync(join(dir, LAYOUT.lock))) warn('lock', LAYOUT.lock, 'a lock file is present (a run in progress, or a dead one the next run recovers)');

  // 7. The hash chain.
  const chain = await verifyChain(dir, options.keys ?? []);
  report.problems.push(...chain.problems);
  report.warnings.push(...chain.warnings);
  report.chain = chain.manifests > 0 ? { manifests: chain.manifests, head: chain.head } : null;

  // 8. Editions: unchanged since they were cut.
  const editions = await verifyEditions(dir, options.keys ?? []);
  report.problems.push(...editions.problems);
  report.warnings.push(...editions.warnings);
  report.editions = editions.editions;
  return report;
}

export function formatReport(r: VerifyReport): string {
  const out = [
    `archive ${r.dir}: ${r.dayFiles} day files, ${r.rows} rows, ${r.runs} runs, ${r.rosters} rosters, ${r.objects} objects, ${r.editions} editions`,
  ];
  const h = r.chain?.head;
  if (h) out.push(`chain: ${r.chain!.manifests} manifests, head ${h.hash} (manifest ${h.seq}${h.run_id ? `, run ${h.run_id}` : ''}), ${h.key_id ? `signed by ${h.key_id}` : 'unsigned'}`);
  const broken = r.problems.find((p) => p.kind.startsWith('chain'));
  if (broken) out.push(`chain: first broken link: ${broken.message}`);
  for (const [label, list] of [['problem', r.problems], ['warning', r.warnings]] as const) {
    for (const f of list.slice(0, MAX_LISTED)) out.push(`${label}: ${f.kind} at ${f.where}: ${f.message}`);
    if (list.length > MAX_LISTED) out.push(`… and ${list.length - MAX_LISTED} more ${label}s`);
  }
  out.push(r.problems.length === 0 ? 'ok: no problems' : `FAILED: ${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}`);
  return out.join('\n');
}

function zeroReasons(): Record<NotAttemptedReason, number> {
  return Object.fromEntries(NOT_ATTEMPTED_REASONS.map((o) => [o, 0])) as Record<NotAttemptedReason, number>;
}

function zeroOutcomes(): Record<Outcome, number> {
  return Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
}

function rel(dir: string, path: string): string {
  return relative(dir, path);
}
