// `npm run restate -- --methodology <series>`: re-derive a whole series from the raw objects.
// For every ok row, the stored tools/list body is read back (answerFromBody, the collector's own rule),
// its tools hashed under the named series (src/lib/methodology-series.ts), and the row written again
// with that hash into data/restatements/<series>/observations/<day>.jsonl. v1's rows are never opened
// for writing. The new series is built in a temp folder and renamed into place, so readers see either
// the previous restatement or the new one whole. manifest.json summarises both series side by side
// (changes, contract intervals, half-life), derived with the same src/lib functions the site uses.
//
// Restating under `v1` itself is the reproducibility check: every recomputed hash must equal the
// recorded one, and any mismatch is counted and listed.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listDays, objectPath, readDayLines } from '../../src/archive/day-files.ts';
import {
  answerFromBody,
  contractIntervals,
  detectDrift,
  halfLife,
  kaplanMeier,
  METHODOLOGY_SERIES,
  Observation,
  parseToolsList,
  SERIES,
  TOOLS_LIST_REQUEST_ID,
  type MethodologySeriesId,
} from '../../src/lib/index.ts';
import { CliError, EXIT } from '../cli-error.ts';
import { Store } from '../store.ts';

export interface SeriesSummary {
  targets_with_ok_rows: number;
  changes: number;
  targets_changed: number;
  intervals: number;
  events: number;
  half_life: { median: number; lower: number | null; upper: number | null; atRisk: number } | null;
}

export interface RestateManifest {
  series: MethodologySeriesId;
  title: string;
  summary: string;
  basis: 'v1';
  /** The restatement note readers are pointed to. */
  note: string;
  source_rows: number;
  ok_rows: number;
  /** ok rows whose stored body could not be read back (a damaged archive; `npm run verify` says more). */
  unreadable_rows: number;
  /** Rows whose hash under this series differs from the recorded v1 hash (for `v1`: must be 0). */
  differing_rows: number;
  days: string[];
  original: SeriesSummary;
  restated: SeriesSummary;
}

export async function restate(dataDir: string, seriesId: string): Promise<RestateManifest> {
  if (!(METHODOLOGY_SERIES as readonly string[]).includes(seriesId)) {
    throw new CliError(`unknown methodology series ${JSON.stringify(seriesId.slice(0, 40))}; known: ${METHODOLOGY_SERIES.join(', ')}`, EXIT.usage);
  }
  const series = SERIES[seriesId as MethodologySeriesId];
  const obsDir = join(dataDir, 'observations');
  if (!existsSync(obsDir)) throw new CliError(`no observations in ${dataDir}: nothing to restate`, EXIT.usage);
  // The lock keeps a collector from appending while we read; Store.open also repairs a torn tail.
  const store = Store.open(dataDir, new Date().toISOString());
  const outRoot = join(dataDir, 'restatements');
  const tmp = join(outRoot, `.${series.id}.tmp-${process.pid}`);
  try {
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(join(tmp, 'observations'), { recursive: true });
    const hashOfBody = new Map<string, string | null>(); // body sha -> restated hash (bodies repeat daily)
    const byTarget = new Map<string, { original: Observation[]; restated: Observation[] }>();
    const m: RestateManifest = {
      series: series.id,
      title: series.title,
      summary: series.summary,
      basis: 'v1',
      note: `content/changelog/${series.note}.md`,
      source_rows: 0,
      ok_rows: 0,
      unreadable_rows: 0,
      differing_rows: 0,
      days: [],
      original: emptySummary(),
      restated: emptySummary(),
    };
    for (const day of listDays(dataDir)) {
      const out: string[] = [];
      for await (const { line } of readDayLines(dataDir, day)) {
        if (line === '') continue;
        const row = Observation.parse(JSON.parse(line));
        m.source_rows++;
        let restated: Observation = { ...row, methodology_version: series.id };
        if (row.outcome === 'ok' && row.body_sha256) {
          m.ok_rows++;
          let hash = hashOfBody.get(row.body_sha256);
          if (hash === undefined) {
            hash = hashBody(dataDir, row.body_sha256, row.body_content_type, series.hash);
            hashOfBody.set(row.body_sha256, hash);
          }
          if (hash === null) m.unreadable_rows++;
          else {
            if (hash !== row.tools_sha256) m.differing_rows++;
            restated = { ...restated, tools_sha256: hash };
          }
        }
        out.push(JSON.stringify(Observation.parse(restated)));
        let t = byTarget.get(row.target);
        if (!t) byTarget.set(row.target, (t = { original: [], restated: [] }));
        t.original.push(row);
        t.restated.push(restated);
      }
      writeFileSync(join(tmp, 'observations', `${day.day}.jsonl`), out.length ? `${out.join('\n')}\n` : '');
      m.days.push(day.day);
    }
    m.original = summarise([...byTarget.values()].map((t) => t.original));
    m.restated = summarise([...byTarget.values()].map((t) => t.restated));
    writeFileSync(join(tmp, 'manifest.json'), `${JSON.stringify(m, null, 2)}\n`);
    const dest = join(outRoot, series.id);
    const old = join(outRoot, `.${series.id}.old-${process.pid}`);
    if (existsSync(dest)) renameSync(dest, old);
    renameSync(tmp, dest);
    rmSync(old, { recursive: true, force: true });
    return m;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    store.close();
  }
}

function hashBody(dataDir: string, sha: string, contentType: string | null, hash: (tools: ReturnType<typeof parseToolsList>) => string): string | null {
  const path = objectPath(dataDir, sha);
  if (!existsSync(path)) return null;
  try {
    return hash(parseToolsList(answerFromBody(readFileSync(path), contentType, TOOLS_LIST_REQUEST_ID)));
  } catch {
    return null;
  }
}

function emptySummary(): SeriesSummary {
  return { targets_with_ok_rows: 0, changes: 0, targets_changed: 0, intervals: 0, events: 0, half_life: null };
}

function summarise(perTarget: Observation[][]): SeriesSummary {
  const s = emptySummary();
  const durations: number[] = [];
  const events: boolean[] = [];
  for (const rows of perTarget) {
    if (!rows.some((r) => r.outcome === 'ok')) continue;
    s.targets_with_ok_rows++;
    const drift = detectDrift(rows);
    s.changes += drift.changes.length;
    if (drift.changes.length > 0) s.targets_changed++;
    for (const iv of contractIntervals(rows)) {
      durations.push(iv.duration);
      events.push(iv.event);
    }
  }
  s.intervals = durations.length;
  s.events = events.filter(Boolean).length;
  s.half_life = halfLife(kaplanMeier(durations, events));
  return s;
}
