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
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempName } from '../../src/archive/atomic.ts';
import { listDays } from '../../src/archive/day-files.ts';
import { LAYOUT, manifestFile } from '../../src/archive/layout.ts';
import { readObjectSync } from '../../src/archive/objects.ts';
import { observationLines } from '../../src/archive/observations.ts';
import { validate, valueOrThrow } from '../../src/archive/problems.ts';
import { RestateManifest, restatementDir, type SeriesSummary } from '../../src/archive/restatements.ts';
import {
  answerFromBody,
  contractIntervals,
  detectDrift,
  halfLife,
  kaplanMeier,
  Observation,
  parseToolsList,
  SERIES,
  TOOLS_LIST_REQUEST_ID,
  V1_SERIES,
  type V1SeriesId,
} from '../../src/lib/index.ts';
import { CliError, EXIT } from '../cli-error.ts';
import { Store } from '../store.ts';

export async function restate(dataDir: string, seriesId: string): Promise<RestateManifest> {
  // Restatements re-derive v1 rows; the v2 series has rows of its own (restating them is not built yet).
  if (!(V1_SERIES as readonly string[]).includes(seriesId)) {
    throw new CliError(`unknown methodology series ${JSON.stringify(seriesId.slice(0, 40))}; known: ${V1_SERIES.join(', ')}`, EXIT.usage);
  }
  const id = seriesId as V1SeriesId;
  const series = { ...SERIES[id], id };
  const obsDir = join(dataDir, LAYOUT.observations);
  if (!existsSync(obsDir)) throw new CliError(`no observations in ${dataDir}: nothing to restate`, EXIT.usage);
  // The lock keeps a collector from appending while we read; Store.open also repairs a torn tail.
  const store = Store.open(dataDir, new Date().toISOString());
  const dest = restatementDir(dataDir, series.id);
  const outRoot = dirname(dest);
  const tmp = tempName(join(outRoot, `.${series.id}`));
  try {
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(join(tmp, LAYOUT.observations), { recursive: true });
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
      for await (const l of observationLines(dataDir, day)) {
        if (!l.row) continue;
        // A row that does not validate stops the restatement: a series is never restated around a hole.
        const row = valueOrThrow(l.row, l.file, l.n);
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
      writeFileSync(join(tmp, LAYOUT.observations, `${day.day}.jsonl`), out.length ? `${out.join('\n')}\n` : '');
      m.days.push(day.day);
    }
    m.original = summarise([...byTarget.values()].map((t) => t.original));
    m.restated = summarise([...byTarget.values()].map((t) => t.restated));
    valueOrThrow(validate(m, RestateManifest), manifestFile(series.id), null);
    writeFileSync(join(tmp, 'manifest.json'), `${JSON.stringify(m, null, 2)}\n`);
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
  // Missing or corrupt (bytes that no longer hash to the name): unreadable, never hashed.
  const bytes = readObjectSync(dataDir, sha);
  if (!bytes) return null;
  try {
    return hash(parseToolsList(answerFromBody(bytes, contentType, TOOLS_LIST_REQUEST_ID)));
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
