// Restated series (data/restatements/<series>/, written by `npm run restate`; methodology v1,
// "Restatements"): the one definition of the manifest (a zod schema: the writer validates what it
// writes, the loader what it reads) and the one reader of the manifests.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { V1_SERIES } from '../lib/index.ts';
import { LAYOUT, manifestFile } from './layout.ts';
import { parseJson, type Problem } from './problems.ts';

const HalfLife = z.object({ median: z.number(), lower: z.number().nullable(), upper: z.number().nullable(), atRisk: z.number().int() }).strict().nullable();

/** A series' figures over the restated rows: what the changelog page shows beside v1's. */
export const SeriesSummary = z
  .object({
    targets_with_ok_rows: z.number().int().nonnegative(),
    changes: z.number().int().nonnegative(),
    targets_changed: z.number().int().nonnegative(),
    intervals: z.number().int().nonnegative(),
    events: z.number().int().nonnegative(),
    half_life: HalfLife,
  })
  .strict();
export type SeriesSummary = z.infer<typeof SeriesSummary>;

/** restatements/<series>/manifest.json: both series' figures side by side, and what was restated. */
export const RestateManifest = z
  .object({
    series: z.enum(V1_SERIES),
    title: z.string().max(200),
    summary: z.string().max(1000),
    basis: z.literal('v1'),
    /** The changelog note that explains the series (content/changelog/<note>.md). */
    note: z.string().max(300),
    source_rows: z.number().int().nonnegative(),
    ok_rows: z.number().int().nonnegative(),
    /** ok rows whose stored body could not be read back. */
    unreadable_rows: z.number().int().nonnegative(),
    /** ok rows whose restated hash differs from the recorded one. */
    differing_rows: z.number().int().nonnegative(),
    days: z.array(z.string().regex(/^\d{4}-\d{2}-\d{2}$/)),
    original: SeriesSummary,
    restated: SeriesSummary,
  })
  .strict();
export type RestateManifest = z.infer<typeof RestateManifest>;

/** Where a series is written. */
export function restatementDir(dir: string, series: string): string {
  return join(dir, LAYOUT.restatements, series);
}

/**
 * Every restated series' manifest, validated, in folder-name order; a manifest that does not validate,
 * or names another series than its folder, is left out and listed. Folders starting with a dot are a
 * restatement being written (or a crashed one): not a series.
 */
export function readManifests(dir: string): { manifests: RestateManifest[]; problems: Problem[] } {
  const manifests: RestateManifest[] = [];
  const problems: Problem[] = [];
  const root = join(dir, LAYOUT.restatements);
  for (const name of existsSync(root) ? readdirSync(root).sort() : []) {
    if (name.startsWith('.')) continue;
    const file = manifestFile(name);
    let text: string;
    try {
      text = readFileSync(join(dir, file), 'utf8');
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      throw error;
    }
    const m = parseJson(text, RestateManifest);
    if (!m.ok) problems.push({ file, line: null, message: m.message });
    else if (m.value.series !== name) problems.push({ file, line: null, message: `manifest names series ${m.value.series}, folder ${name.slice(0, 40)}` });
    else manifests.push(m.value);
  }
  return { manifests, problems };
}
