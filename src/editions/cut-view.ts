// The archive as it stood at the end of one run, for cutting an edition after the fact (the daily
// workflow cuts on the day of the month's first full run, but a failed job or a revision cuts later):
// a temporary folder where every day before the run's day is its files as they are (symlinks), the
// run's own day holds only the lines of runs up to it, runs.jsonl the runs up to it, rosters/ their
// rosters, and objects/ the archive's objects. The loader reads it like any archive.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lineRunId } from '../archive/chain.ts';
import { listDays, readDayLines, splitLines } from '../archive/day-files.ts';
import { LAYOUT, ROSTER_FILE, rosterPath, runsPath, SERIES_FOLDER } from '../archive/layout.ts';
import { readRuns } from '../archive/runs.ts';

export interface CutView {
  dir: string;
  remove(): void;
}

export async function archiveCutAt(dir: string, runId: string, scratch: string | null): Promise<CutView> {
  const { runs } = readRuns(dir);
  const at = runs.findIndex((r) => r.run_id === runId);
  if (at < 0) throw new Error(`run ${runId} is not in ${LAYOUT.runs}`);
  const upTo = runs.slice(0, at + 1);
  const allowed = new Set(upTo.map((r) => r.run_id));
  const day = runs[at]!.day;
  if (scratch) mkdirSync(scratch, { recursive: true });
  const view = mkdtempSync(path.join(scratch ?? os.tmpdir(), 'cut-view-'));
  const abs = (p: string) => path.resolve(dir, p);
  for (const sub of [...Object.values(SERIES_FOLDER), LAYOUT.rosters]) mkdirSync(path.join(view, sub), { recursive: true });
  symlinkSync(abs(LAYOUT.objects), path.join(view, LAYOUT.objects), 'dir');
  writeFileSync(runsPath(view), splitLines(readFileSync(runsPath(dir), 'utf8')).filter((l) => allowed.has(lineRunId(l) ?? '')).map((l) => `${l}\n`).join(''));
  // A run recording both series has two run rows naming one roster file: linked once.
  const rosterFiles = new Set(upTo.map((r) => r.roster_file).filter((f): f is string => !!f && ROSTER_FILE.test(f)));
  for (const f of rosterFiles) symlinkSync(rosterPath(path.resolve(dir), f), rosterPath(view, f));
  // Every series folder alike (methodology v2's rows beside v1's).
  for (const folder of Object.values(SERIES_FOLDER)) {
    for (const d of listDays(dir, folder)) {
      if (d.day < day) for (const f of d.files) symlinkSync(abs(f), path.join(view, f));
      if (d.day !== day) continue;
      const kept: string[] = [];
      for await (const { line } of readDayLines(dir, d)) if (allowed.has(lineRunId(line) ?? '')) kept.push(`${line}\n`);
      writeFileSync(path.join(view, folder, `${day}.jsonl`), kept.join(''));
    }
  }
  return { dir: view, remove: () => rmSync(view, { recursive: true, force: true }) };
}
