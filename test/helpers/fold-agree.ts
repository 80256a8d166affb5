// The loader's fold keeps a target's ok rows as runs of equal rows (src/loader/fold.ts OkRun); its
// reference keeps every row (ReadOptions.exact). What an archive publishes must not tell them apart:
// this derives an archive both ways and returns what each publishes, as plain JSON, to compare.
import { deriveArchive, readRawArchive, type Archive, type ReadOptions } from '../../src/loader/load-archive.ts';

/** Everything derived from the fold that a page, a file or a figure shows. */
function published(a: Archive): unknown {
  const pick = {
    servers: a.servers,
    changes: a.changes,
    bodyFindings: a.bodyFindings,
    instructionChanges: a.instructionChanges,
    sets: a.sets,
    intervals: a.intervals,
    km: a.km,
    halfLife: a.halfLife,
    serverIntervals: a.serverIntervals,
    serverKm: a.serverKm,
    serverHalfLife: a.serverHalfLife,
    everChanged: a.everChanged,
    volatility: a.volatility,
    timelines: a.timelines,
    tiles: a.tiles,
    seams: a.seams,
    migrationSensitivity: a.migrationSensitivity,
    errorShares: a.errorShares,
  };
  return JSON.parse(JSON.stringify(pick));
}

export interface FoldComparison {
  runs: unknown;
  rows: unknown;
  /** Ok rows folded, and the runs they became (the runs fold's). */
  okRows: number;
  okRuns: number;
  /** Targets the runs fold found out of time order (and folded again row by row). */
  disordered: string[];
}

export async function compareFolds(dir: string, opts: Omit<ReadOptions, 'exact'> = {}): Promise<FoldComparison> {
  const rawRuns = await readRawArchive(dir, opts);
  let okRows = 0;
  let okRuns = 0;
  for (const s of rawRuns.fold.targets.values()) for (const r of s.ok) (okRuns++, (okRows += r.n));
  const disordered = [...rawRuns.fold.disordered].sort();
  const runs = published(await deriveArchive(rawRuns));
  const rows = published(await deriveArchive(await readRawArchive(dir, { ...opts, exact: true })));
  return { runs, rows, okRows, okRuns, disordered };
}
