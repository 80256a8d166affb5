// The methodology v2 series as the site shows it: small per-run summaries of
// data/observations-v2/, read through src/archive only, every figure computed by src/lib:
//   - per v2 day (cached by the day's content key, like the loader's day summaries): each run's era counts
//     (src/lib eraAdoption);
//   - the latest two full v2 runs read back whole (one day each): v2Statistics (RQ1–RQ3, RQ5) of the
//     latest, schemaHygiene (RQ4) over the tools of its ok rows (every stored tools/list page, parsed
//     by src/lib), statusAgreement (RQ6) between the two, and each target's row in the latest, cut to
//     the fields descriptors show — cached by the two days' keys;
//   - the same two days' read: what each modern ok row's stored answers say about caching (src/lib
//     resultCaching over the discover result and every tools/list page, each distinct body read once),
//     the counts over the latest run and each target's list scope — cached with the figures;
//   - the bridge runs (full in both series, src/lib bridgeDays): bridgeTable over their v1 and v2 rows,
//     cut to the five fields it reads — cached by the keys of those days in both series.
// Memory and cache: one day's rows at a time, per-day era counts, the rows of two runs, and the bridge
// runs' five-field rows (at most BRIDGE_DAYS days while the bridge runs); never a year of v2 rows.
import { createHash } from 'node:crypto';
import type { DayFiles } from '../archive/day-files.ts';
import { listDaysWithStored } from '../archive/stored-files.ts';
import { SERIES_FOLDER } from '../archive/layout.ts';
import { readObject } from '../archive/objects.ts';
import { observationLines, observationV2Lines } from '../archive/observations.ts';
import { runsOf } from '../archive/runs.ts';
import {
  answerFromBody,
  INITIALIZE_REQUEST_ID,
  combineCaching,
  listCachingCounts,
  resultCaching,
  type ListCachingCounts,
  type ResultCaching,
  BRIDGE_DAYS,
  bridgeDays,
  bridgeTable,
  eraAdoption,
  parseToolsList,
  schemaHygiene,
  statusAgreement,
  studyFrame,
  type StudyFrame,
  TOOLS_LIST_REQUEST_ID,
  v2Statistics,
  type AnyRun,
  type BridgeRowV1,
  type BridgeRowV2,
  type BridgeTable,
  type EraAdoptionPoint,
  type ObservationV2,
  type RunV2,
  type SchemaHygiene,
  type StatusAgreement,
  type Tool,
  type V2Statistics,
} from '../lib/index.ts';
import type { BuildCache } from './cache.ts';

/** Bump when what this module derives (not src/lib, which is fingerprinted) changes. */
export const V2_SUMMARY_VERSION = 'v2-summary-6';

/** A target's row in the latest full v2 run, cut to what the descriptors show. */
export type V2Latest = Pick<
  ObservationV2,
  'run_id' | 'day' | 'observed_at' | 'outcome' | 'status' | 'era' | 'protocol_version' | 'supported_versions' | 'instructions_sha256' | 'auth_schemes' | 'auth_bearer' | 'auth_metadata_valid' | 'auth_metadata_source' | 'auth_http_status' | 'canary_sent' | 'canary_in_channel'
> & {
  /** The registry name whose probe this row repeats (one probe per endpoint); null when the row made its own probe or none. */
  probe_shared_with: string | null;
};

export interface V2StatisticsView {
  run: RunV2;
  /**
   * The study's population (src/lib studyFrame): how the run's rows became the frame — registry status,
   * each exclusion, duplicate URLs merged. Every figure below is over the frame's rows.
   */
  frame: StudyFrame;
  statistics: V2Statistics;
  /** RQ4 over the tools of the run's ok rows (each row's pages concatenated). */
  hygiene: SchemaHygiene;
  /** Ok rows whose stored pages could not be read back or parsed (left out of RQ4). */
  hygieneUnreadable: number;
  /** RQ6 between the previous full v2 run and this one (each run's frame); null with one full run only. */
  stability: { earlier: RunV2; agreement: StatusAgreement } | null;
  /**
   * What the run's modern ok answers say about caching (MCP 2026-07-28 Caching): the list's scope
   * (its first tools/list page) and the required fields lacking on the discover result or any page,
   * over the modern ok rows whose stored answers could be read back (`unreadable`: those that could not).
   */
  caching: ListCachingCounts & { unreadable: number };
}

/** A target's list as its latest full v2 run's modern ok row served it: what its caching fields say. */
export interface ListCachingView {
  run_id: string;
  day: string;
  observed_at: string;
  /** The first tools/list page's fields (src/lib resultCaching). */
  cacheScope: ResultCaching['cacheScope'];
  cacheScopeInvalid: boolean;
  ttlMs: number | null;
  ttlMsInvalid: boolean;
  resultType: string | null;
  /** Required fields lacking, as `discover.<field>` or `tools/list.<field>` (any page). */
  missing: string[];
}

export interface V2BridgeView {
  /** Days with a run finished and full in both series (src/lib bridgeDays), oldest first. */
  days: string[];
  /** BRIDGE_DAYS: the bridge is complete at this many days. */
  length: number;
  complete: boolean;
  /** The cross-table over the bridge runs; null before the first bridge day. */
  table: BridgeTable | null;
}

/** A v2 day as the bundles read it (the same shape as views.ts DayInfo). */
export interface V2DayInfo {
  day: string;
  /** Paths relative to the archive, gzipped part first. */
  files: string[];
  /** Valid rows, and lines that failed validation. */
  rows: number;
  problems: number;
  /** Content hash of the day's files. */
  key: string;
}

export interface V2Summary {
  /** The v2 series' days (observations-v2/), oldest first. */
  dayFiles: V2DayInfo[];
  /** Every v2 run row, oldest first. */
  runs: RunV2[];
  /** Full v2 runs: finished and not partial. */
  fullRuns: RunV2[];
  /** The study's figures for the latest full v2 run; null before one. */
  latest: V2StatisticsView | null;
  /** Era adoption per full v2 run (the latest full run of each day), in day order. */
  adoption: EraAdoptionPoint[];
  bridge: V2BridgeView;
  /** v2 rows read, and lines that did not validate (skipped and counted). */
  rows: number;
  problems: number;
  /**
   * Each target's row in the latest full v2 run (any outcome), cut to what descriptors show: published
   * v2 facts come from full runs only, as the statistics do. A target not in that run has none.
   */
  latestByTarget: Map<string, V2Latest>;
  /** Each target's list caching in the latest full v2 run: modern ok rows whose answers could be read back only. */
  cachingByTarget: Map<string, ListCachingView>;
}

interface V2DaySummary {
  v: string;
  rows: number;
  problems: number;
  /** Era counts of every run with rows in this day. */
  points: EraAdoptionPoint[];
}

const full = (r: AnyRun) => r.status === 'finished' && !r.partial;

export async function readV2Summary(dir: string, allRuns: readonly AnyRun[], cache: BuildCache): Promise<V2Summary> {
  const runs = runsOf(allRuns, 'v2').sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
  const fullRuns = runs.filter(full);
  const lib = cache.libPrint();
  const keyOf = (...parts: string[]) => createHash('sha256').update(V2_SUMMARY_VERSION).update('\0').update(lib).update('\0').update(parts.join('\0')).digest('hex');

  // Pass 1: a summary per v2 day.
  const v2Days = listDaysWithStored(dir, SERIES_FOLDER.v2, cache.storedIndex(dir));
  const v2Keys = new Map<string, { day: DayFiles; key: string }>();
  let latestByTarget = new Map<string, V2Latest>();
  let cachingByTarget = new Map<string, ListCachingView>();
  const points = new Map<string, EraAdoptionPoint>();
  const dayFiles: V2DayInfo[] = [];
  let rows = 0;
  let problems = 0;
  for (const day of v2Days) {
    const src = await cache.source(dir, day);
    v2Keys.set(day.day, { day, key: src.key });
    const file = `${keyOf(src.key)}.v2day`;
    let s = cache.readChanges<V2DaySummary>(file);
    if (!s || s.v !== V2_SUMMARY_VERSION) {
      await cache.bring(dir, day);
      s = await summariseDay(dir, day);
      cache.writeChanges(file, s);
    }
    rows += s.rows;
    problems += s.problems;
    dayFiles.push({ day: day.day, files: day.files, rows: s.rows, problems: s.problems, key: src.key });
    for (const p of s.points) points.set(p.run_id, p);
  }

  // Era adoption: the latest full run of each day.
  const lastFullOfDay = new Map<string, RunV2>();
  for (const r of fullRuns) lastFullOfDay.set(r.day, r);
  const adoption = [...lastFullOfDay.values()].flatMap((r) => (points.has(r.run_id) ? [points.get(r.run_id)!] : [])).sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));

  // The study's figures: the latest full v2 run, and the one before it for RQ6.
  let latest: V2StatisticsView | null = null;
  const L = fullRuns.at(-1);
  if (L && v2Keys.has(L.day)) {
    const P = fullRuns.at(-2) ?? null;
    const file = `${keyOf('stats', L.run_id, v2Keys.get(L.day)!.key, P?.run_id ?? '', P && v2Keys.has(P.day) ? v2Keys.get(P.day)!.key : '')}.v2stats`;
    const hit = cache.readChanges<{ view: V2StatisticsView; latest: [string, V2Latest][]; caching: [string, ListCachingView][] }>(file);
    if (hit) {
      latest = hit.view;
      latestByTarget = new Map(hit.latest);
      cachingByTarget = new Map(hit.caching);
    } else {
      await cache.bring(dir, v2Keys.get(L.day)!.day);
      if (P && v2Keys.has(P.day)) await cache.bring(dir, v2Keys.get(P.day)!.day);
      const rowsL = await runRows(dir, v2Keys.get(L.day)!.day, L.run_id);
      const rowsP = P && v2Keys.has(P.day) ? await runRows(dir, v2Keys.get(P.day)!.day, P.run_id) : null;
      // Every figure is over the study's frame (active entries, endpoints de-duplicated, exclusions
      // counted apart); the per-target views (descriptors) keep every row.
      const frameL = studyFrame(rowsL);
      const frameTargets = new Set(frameL.rows.map((r) => r.target));
      const { catalogues, unreadable } = await okCatalogues(dir, frameL.rows);
      const caching = await listCaching(dir, rowsL, frameTargets);
      latest = {
        run: L,
        frame: frameL.frame,
        statistics: v2Statistics(frameL.rows, { run: L }),
        hygiene: schemaHygiene(catalogues),
        hygieneUnreadable: unreadable,
        stability: P && rowsP ? { earlier: P, agreement: statusAgreement(studyFrame(rowsP).rows, frameL.rows) } : null,
        caching: { ...caching.counts, unreadable: caching.unreadable },
      };
      latestByTarget = new Map(rowsL.map((r) => [r.target, cutLatest(r)]));
      cachingByTarget = new Map(caching.byTarget);
      cache.writeChanges(file, { view: latest, latest: [...latestByTarget], caching: [...cachingByTarget] });
    }
  }

  // The bridge: runs finished and full in both series.
  const days = bridgeDays(allRuns);
  const v1Full = new Set(runsOf(allRuns, 'v1').filter(full).map((r) => r.run_id));
  const bridgeRuns = new Set(fullRuns.filter((r) => v1Full.has(r.run_id)).map((r) => r.run_id));
  let table: BridgeTable | null = null;
  if (bridgeRuns.size > 0) {
    const daySet = new Set(days);
    const v1Days = listDaysWithStored(dir, SERIES_FOLDER.v1, cache.storedIndex(dir)).filter((d) => daySet.has(d.day));
    const v1Keys: string[] = [];
    for (const d of v1Days) v1Keys.push((await cache.source(dir, d)).key);
    const file = `${keyOf('bridge', ...[...bridgeRuns].sort(), ...v1Keys, ...days.map((d) => v2Keys.get(d)?.key ?? ''))}.v2bridge`;
    table = cache.readChanges<BridgeTable>(file);
    if (!table) {
      const v1Rows: BridgeRowV1[] = [];
      for (const d of v1Days) {
        await cache.bring(dir, d);
        for await (const { row } of observationLines(dir, d)) {
          if (!row?.ok || !bridgeRuns.has(row.value.run_id)) continue;
          const r = row.value;
          v1Rows.push({ run_id: r.run_id, target: r.target, outcome: r.outcome, error_class: r.error_class, tools_sha256: r.tools_sha256 });
        }
      }
      const v2Rows: BridgeRowV2[] = [];
      for (const d of days) {
        const at = v2Keys.get(d);
        if (!at) continue;
        await cache.bring(dir, at.day);
        for await (const { row } of observationV2Lines(dir, at.day)) {
          if (!row?.ok || !bridgeRuns.has(row.value.run_id)) continue;
          const r = row.value;
          v2Rows.push({ run_id: r.run_id, target: r.target, outcome: r.outcome, status: r.status, tools_sha256: r.tools_sha256 });
        }
      }
      table = bridgeTable(v1Rows, v2Rows);
      cache.writeChanges(file, table);
    }
  }

  return {
    dayFiles,
    runs,
    fullRuns,
    latest,
    adoption,
    bridge: { days, length: BRIDGE_DAYS, complete: days.length >= BRIDGE_DAYS, table },
    rows,
    problems,
    latestByTarget,
    cachingByTarget,
  };
}

function cutLatest(r: ObservationV2): V2Latest {
  return {
    probe_shared_with: r.probe_shared_with ?? null,
    run_id: r.run_id,
    day: r.day,
    observed_at: r.observed_at,
    outcome: r.outcome,
    status: r.status,
    era: r.era,
    protocol_version: r.protocol_version,
    supported_versions: r.supported_versions,
    instructions_sha256: r.instructions_sha256,
    auth_schemes: r.auth_schemes,
    auth_bearer: r.auth_bearer,
    auth_metadata_valid: r.auth_metadata_valid,
    auth_metadata_source: r.auth_metadata_source,
    auth_http_status: r.auth_http_status,
    canary_sent: r.canary_sent,
    canary_in_channel: r.canary_in_channel,
  };
}

/** One v2 day's summary, read from its files (the bundles step counts a day's rows and problems with it too). */
export async function summariseDay(dir: string, day: DayFiles): Promise<V2DaySummary> {
  const byRun = new Map<string, { day: string; rows: ObservationV2[] }>();
  let rows = 0;
  let problems = 0;
  for await (const { row } of observationV2Lines(dir, day)) {
    if (row === null) continue;
    if (!row.ok) {
      problems++;
      continue;
    }
    rows++;
    const r = row.value;
    // Era counts read only these fields (and the frame its own); the run's rows are dropped once counted (below, per day).
    const slim = {
      run_id: r.run_id,
      target: r.target,
      endpoint: r.endpoint,
      outcome: r.outcome,
      status: r.status,
      era: r.era,
      protocol_version: r.protocol_version,
      supported_versions: r.supported_versions,
      registry_status: r.registry_status,
      step: r.step,
      detail: r.detail,
      redirects: r.redirects,
    } as ObservationV2;
    const run = byRun.get(r.run_id) ?? { day: r.day, rows: [] };
    run.rows.push(slim);
    byRun.set(r.run_id, run);
  }
  // Over each run's frame, as every v2 figure is.
  const points = eraAdoption([...byRun].map(([run_id, x]) => ({ run_id, day: x.day, rows: studyFrame(x.rows).rows })));
  return { v: V2_SUMMARY_VERSION, rows, problems, points };
}

/** The valid rows of one run in one v2 day. */
async function runRows(dir: string, day: DayFiles, runId: string): Promise<ObservationV2[]> {
  const out: ObservationV2[] = [];
  for await (const { row } of observationV2Lines(dir, day)) if (row?.ok && row.value.run_id === runId) out.push(row.value);
  return out;
}

/** Each ok row's tools, from all its stored tools/list pages in order (as restate re-derives them). */
async function okCatalogues(dir: string, rows: readonly ObservationV2[]): Promise<{ catalogues: { target: string; tools: Tool[] }[]; unreadable: number }> {
  const catalogues: { target: string; tools: Tool[] }[] = [];
  let unreadable = 0;
  for (const r of rows) {
    if (r.outcome !== 'ok') continue;
    try {
      const tools: Tool[] = [];
      for (const [i, sha] of (r.tools_pages_sha256 ?? []).entries()) {
        const bytes = await readObject(dir, sha);
        if (!bytes) throw new Error('missing page');
        tools.push(...parseToolsList(answerFromBody(bytes, r.tools_pages_content_types?.[i] ?? null, TOOLS_LIST_REQUEST_ID)));
      }
      catalogues.push({ target: r.target, tools });
    } catch {
      unreadable++;
    }
  }
  return { catalogues, unreadable };
}

/**
 * What each modern ok row's stored answers say about caching: the discover result (handshake_sha256)
 * and every tools/list page (tools_pages_sha256), each read back with its content type by the one body
 * reader. A body repeats across targets (one host serves many names): each distinct body and type is
 * read once. A row with any answer missing or unreadable is counted apart, not as lacking fields. The
 * counts are over the `counted` targets (the study's frame); every row gets its per-target view.
 */
async function listCaching(dir: string, rows: readonly ObservationV2[], counted: ReadonlySet<string>): Promise<{ counts: ListCachingCounts; byTarget: [string, ListCachingView][]; unreadable: number }> {
  // Each distinct body and type is read once (one host serves many names the same answer); only its
  // reading is kept, never the parsed answer (tool lists are large).
  const memo = new Map<string, ResultCaching | null>();
  const read = async (sha: string | null, contentType: string | null, id: number): Promise<ResultCaching | null> => {
    if (sha === null) return null;
    const key = `${sha}\0${contentType ?? ''}\0${id}`;
    if (memo.has(key)) return memo.get(key)!;
    let out: ResultCaching | null = null;
    try {
      const bytes = await readObject(dir, sha);
      if (bytes) out = resultCaching(answerFromBody(bytes, contentType, id), { modern: true });
    } catch {
      out = null;
    }
    memo.set(key, out);
    return out;
  };
  const answers: { list: ResultCaching; missing: string[] }[] = [];
  const byTarget: [string, ListCachingView][] = [];
  let unreadable = 0;
  for (const r of rows) {
    if (r.outcome !== 'ok' || r.era !== 'modern') continue;
    const discover = await read(r.handshake_sha256, r.handshake_content_type, INITIALIZE_REQUEST_ID);
    const pages: (ResultCaching | null)[] = [];
    for (const [i, sha] of (r.tools_pages_sha256 ?? []).entries()) pages.push(await read(sha, r.tools_pages_content_types?.[i] ?? null, TOOLS_LIST_REQUEST_ID));
    if (!discover || pages.length === 0 || pages.some((p) => p === null)) {
      if (counted.has(r.target)) unreadable++;
      continue;
    }
    // The one reading (src/lib combineCaching, as answerCaching on the collector's side for the rows).
    const { list, missing } = combineCaching(discover, pages as ResultCaching[]);
    if (counted.has(r.target)) answers.push({ list, missing });
    byTarget.push([r.target, { run_id: r.run_id, day: r.day, observed_at: r.observed_at, cacheScope: list.cacheScope, cacheScopeInvalid: list.cacheScopeInvalid, ttlMs: list.ttlMs, ttlMsInvalid: list.ttlMsInvalid, resultType: list.resultType, missing }]);
  }
  return { counts: listCachingCounts(answers), byTarget, unreadable };
}
