// `npm run verify`: checks a whole archive and exits non-zero on any problem.
// What it promises readers: every row validates against the contract, every object a row or roster
// points at exists and its bytes hash to its name, one row per target per run, run rows agree with
// their observation rows and rosters, and no torn line or orphan temp file is left behind.
// It reads day files line by line and hashes objects as streams, so memory stays flat as the archive grows.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, openSync, readSync, closeSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DAY_FILE, listDays, readDayLines, readLines } from '../../src/archive/day-files.ts';
import { Observation, Roster, Run, type Outcome, OUTCOMES } from '../../src/lib/index.ts';
import { oneLine } from '../errors.ts';

export interface Finding {
  kind: string;
  where: string;
  message: string;
}

export interface VerifyReport {
  dir: string;
  dayFiles: number;
  rows: number;
  runs: number;
  rosters: number;
  objects: number;
  problems: Finding[];
  warnings: Finding[];
}

const SHA = /^[0-9a-f]{64}$/;
const MAX_LISTED = 200;

export async function verifyArchive(dir: string): Promise<VerifyReport> {
  const report: VerifyReport = { dir, dayFiles: 0, rows: 0, runs: 0, rosters: 0, objects: 0, problems: [], warnings: [] };
  const problem = (kind: string, where: string, message: string) => report.problems.push({ kind, where, message });
  const warn = (kind: string, where: string, message: string) => report.warnings.push({ kind, where, message });
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    problem('archive', dir, 'not a directory');
    return report;
  }

  // 1. Objects: every stored file is named by the SHA-256 of its bytes, in its shard folder.
  const objects = new Set<string>();
  const objDir = join(dir, 'objects');
  if (existsSync(objDir)) {
    for (const shard of readdirSync(objDir).sort()) {
      const shardPath = join(objDir, shard);
      if (!statSync(shardPath).isDirectory()) {
        problem('orphan', rel(dir, shardPath), 'stray file in objects/');
        continue;
      }
      for (const name of readdirSync(shardPath).sort()) {
        const path = join(shardPath, name);
        if (!SHA.test(name) || !name.startsWith(shard)) {
          problem('orphan', rel(dir, path), 'not a content-addressed object (temp file left by a crash?)');
          continue;
        }
        const actual = await hashFile(path);
        if (actual !== name) problem('object-corrupt', rel(dir, path), `bytes hash to ${actual.slice(0, 12)}…, not to the name`);
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
  const rosterDir = join(dir, 'rosters');
  if (existsSync(rosterDir)) {
    for (const file of readdirSync(rosterDir).sort()) {
      const where = `rosters/${file}`;
      if (!file.endsWith('.json')) {
        problem('orphan', where, 'not a roster file (temp file left by a crash?)');
        continue;
      }
      const parsed = parseJsonFile(join(rosterDir, file));
      const r = parsed.ok ? Roster.safeParse(parsed.value) : null;
      if (!r?.success) {
        problem('roster-invalid', where, parsed.ok ? zodMessage(r!.error) : parsed.error);
        continue;
      }
      rosters.set(file, r.data);
      report.rosters++;
      r.data.pages.forEach((p, i) => refer(p.sha256, `${where} page ${i}`));
      const failedPage = r.data.pages.some((p) => p.sha256 === null || p.error !== null);
      if (r.data.complete && failedPage) problem('roster-complete', where, 'complete: true but a page failed');
      const last = r.data.pages[r.data.pages.length - 1];
      if (r.data.complete && last && last.next_cursor !== null && last.count !== 0) {
        problem('roster-complete', where, 'complete: true but the last page still points to a next page');
      }
    }
  }

  // 3. Observation rows, line by line.
  const seen = new Set<string>(); // run_id \0 target
  const perRun = new Map<string, { outcomes: Record<Outcome, number>; first: string }>();
  const obsDir = join(dir, 'observations');
  for (const file of existsSync(obsDir) ? readdirSync(obsDir).sort() : []) {
    if (!DAY_FILE.test(file)) problem('orphan', `observations/${file}`, 'not a day file (temp file left by a crash?)');
  }
  for (const day of listDays(dir)) {
    report.dayFiles += day.files.length;
    for (const file of day.files) if (!file.endsWith('.gz') && tornLastLine(join(dir, file))) problem('torn-line', file, 'last line has no newline (an interrupted append)');
    try {
      for await (const { line, file, n } of readDayLines(dir, day)) {
        const at = `${file}:${n}`;
        if (line === '') {
          problem('row-invalid', at, 'empty line');
          continue;
        }
        const parsed = parseJson(line);
        const r = parsed.ok ? Observation.safeParse(parsed.value) : null;
        if (!r?.success) {
          problem('row-invalid', at, parsed.ok ? zodMessage(r!.error) : parsed.error);
          continue;
        }
        const row = r.data;
        report.rows++;
        if (row.day !== day.day) problem('row-misfiled', at, `row of day ${row.day} in the file of ${day.day}`);
        if (row.methodology_version !== 'v1') problem('row-invalid', at, `a recorded row names series ${row.methodology_version}; only restatements may`);
        const key = `${row.run_id}\0${row.target}`;
        if (seen.has(key)) problem('row-duplicate', at, `second row for target ${oneLine(row.target, 80)} in run ${row.run_id}`);
        seen.add(key);
        refer(row.body_sha256, at);
        refer(row.registry_page_sha256, at);
        let run = perRun.get(row.run_id);
        if (!run) perRun.set(row.run_id, (run = { outcomes: zeroOutcomes(), first: at }));
        run.outcomes[row.outcome]++;
      }
    } catch (e) {
      problem('day-file-corrupt', day.files.join(' + '), `unreadable: ${(e as Error).message.slice(0, 160)}`);
    }
  }

  // 4. Runs: each run row agrees with its observation rows and its roster.
  const runsPath = join(dir, 'runs.jsonl');
  const runIds = new Set<string>();
  if (existsSync(runsPath)) {
    if (tornLastLine(runsPath)) problem('torn-line', 'runs.jsonl', 'last line has no newline (an interrupted append)');
    let n = 0;
    for await (const line of readLines(runsPath)) {
      n++;
      const at = `runs.jsonl:${n}`;
      const parsed = parseJson(line);
      const r = parsed.ok ? Run.safeParse(parsed.value) : null;
      if (!r?.success) {
        problem('run-invalid', at, parsed.ok ? zodMessage(r!.error) : parsed.error);
        continue;
      }
      const run = r.data;
      report.runs++;
      if (runIds.has(run.run_id)) problem('run-duplicate', at, `run ${run.run_id} recorded twice`);
      runIds.add(run.run_id);
      const rows = perRun.get(run.run_id)?.outcomes ?? zeroOutcomes();
      for (const o of OUTCOMES) {
        if (rows[o] !== run.outcomes[o]) problem('run-counts', at, `run ${run.run_id} says ${run.outcomes[o]} ${o} rows, the day files hold ${rows[o]}`);
      }
      if (run.attempts !== rows.ok + rows.error) problem('run-counts', at, `attempts ${run.attempts} ≠ ok + error rows ${rows.ok + rows.error}`);
      if (run.roster_file !== null) {
        const roster = rosters.get(run.roster_file);
        if (!roster) problem('roster-missing', at, `roster ${run.roster_file} is missing`);
        else if (roster.complete !== run.roster_complete) problem('roster-complete', at, `run says roster_complete ${run.roster_complete}, the roster says ${roster.complete}`);
      }
      if (rows.retired > 0 && !run.roster_complete) problem('retired-on-incomplete', at, 'targets retired although the roster was incomplete');
    }
  }
  for (const [id, run] of perRun) {
    if (!runIds.has(id)) warn('run-unfinished', run.first, `rows of run ${id} have no run row (interrupted and not resumed yet)`);
  }

  // 5. Every referenced object exists.
  for (const [sha, where] of referenced) {
    if (!objects.has(sha)) problem('object-missing', where, `object ${sha.slice(0, 12)}… is missing`);
  }

  // 6. Leftovers of a crash elsewhere.
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    if (/\.tmp|~$/.test(name)) problem('orphan', name, 'temp file in the archive root');
  }
  const quarantine = join(dir, 'quarantine');
  for (const name of existsSync(quarantine) ? readdirSync(quarantine).sort() : []) {
    warn('quarantine', `quarantine/${name}`, 'bytes set aside by a crash repair (kept for inspection, not part of the record)');
  }
  if (existsSync(join(dir, '.lock'))) warn('lock', '.lock', 'a lock file is present (a run in progress, or a dead one the next run recovers)');
  return report;
}

export function formatReport(r: VerifyReport): string {
  const out = [
    `archive ${r.dir}: ${r.dayFiles} day files, ${r.rows} rows, ${r.runs} runs, ${r.rosters} rosters, ${r.objects} objects`,
  ];
  for (const [label, list] of [['problem', r.problems], ['warning', r.warnings]] as const) {
    for (const f of list.slice(0, MAX_LISTED)) out.push(`${label}: ${f.kind} at ${f.where}: ${f.message}`);
    if (list.length > MAX_LISTED) out.push(`… and ${list.length - MAX_LISTED} more ${label}s`);
  }
  out.push(r.problems.length === 0 ? 'ok: no problems' : `FAILED: ${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}`);
  return out.join('\n');
}

function zeroOutcomes(): Record<Outcome, number> {
  return Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
}

function tornLastLine(path: string): boolean {
  const size = statSync(path).size;
  if (size === 0) return false;
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, size - 1);
    return b[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}

function hashFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (c) => h.update(c))
      .on('end', () => resolve(h.digest('hex')))
      .on('error', reject);
  });
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: `not json: ${(e as Error).message.slice(0, 120)}` };
  }
}

function parseJsonFile(path: string) {
  return parseJson(readFileSync(path, 'utf8'));
}

function zodMessage(e: { issues: { path: (string | number)[]; message: string }[] }): string {
  return e.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(row)'}: ${i.message}`)
    .join('; ');
}

function rel(dir: string, path: string): string {
  return relative(dir, path);
}
