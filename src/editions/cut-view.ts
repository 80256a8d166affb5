// The archive as it stood at the end of one run, for cutting an edition after the fact (the daily
// workflow cuts on the day of the month's first full run, but a failed job or a revision cuts later):
// a temporary folder where every day before the run's day is its files as they are (symlinks), the
// run's own day holds only the lines of runs up to it, runs.jsonl the runs up to it, rosters/ their
// rosters, and objects/ the archive's objects. The loader reads it like any archive.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lineRunId } from '../archive/chain.ts';
import { listDays, readDayLines, splitLines } from '../archive/day-files.ts';
import { LAYOUT, rosterPath, runsPath, SERIES_FOLDER } from '../archive/layout.ts';
import { ROSTER_GZ, rosterFileOnDisk } from '../archive/rosters.ts';
import { readRuns } from '../archive/runs.ts';
import { registeredStore, storeFor, useObjectStore } from '../archive/objects.ts';
import { pullStored, readStoredIndex } from '../archive/stored-files.ts';

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
  // Days kept in the object store (stored.jsonl) up to the run's day are brought into the archive
  // folder first: the view links files, and an edition must hold every day it says it covers.
  const stored = readStoredIndex(dir);
  if (stored.files.size > 0) await pullStored(dir, storeFor(dir), { from: null, to: day }, stored);
  if (scratch) mkdirSync(scratch, { recursive: true });
  const view = mkdtempSync(path.join(scratch ?? os.tmpdir(), 'cut-view-'));
  // Objects in a bucket: the view reads them through the archive's store.
  const store = registeredStore(dir);
  if (store) useObjectStore(view, store);
  const abs = (p: string) => path.resolve(dir, p);
  const folders = [...new Set(Object.values(SERIES_FOLDER))];
  for (const sub of [...folders, LAYOUT.rosters]) mkdirSync(path.join(view, sub), { recursive: true });
  symlinkSync(abs(LAYOUT.objects), path.join(view, LAYOUT.objects), 'dir');
  if (existsSync(abs(LAYOUT.pages))) symlinkSync(abs(LAYOUT.pages), path.join(view, LAYOUT.pages), 'dir');
  writeFileSync(runsPath(view), splitLines(readFileSync(runsPath(dir), 'utf8')).filter((l) => allowed.has(lineRunId(l) ?? '')).map((l) => `${l}\n`).join(''));
  // A run that recorded both series has two run rows naming the same roster: link each roster once.
  for (const file of new Set(upTo.map((r) => r.roster_file))) {
    const onDisk = file ? rosterFileOnDisk(path.resolve(dir), file) : null;
    if (file && onDisk) symlinkSync(onDisk.path, rosterPath(view, file) + (onDisk.gz ? ROSTER_GZ : ''));
  }
  // Every series folder (observations/, observations-v2/): the loader's headline reads both.
  for (const folder of folders) {
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
