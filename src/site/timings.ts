// Stage timings of one site build, for bench/build.ts: when MCP_SCHEMA_TIMINGS names a file, each
// stage appends one JSON line `{ stage, ms, ... }` to it and to stderr. Stages: startup (Astro and
// Vite before the loader runs), load (reading/validating day files or their cached day summaries), fold,
// rows (full rows read back), derive, render (pages, between derive and the post-build hook),
// server-files, bundles, objects, search. performance.now() counts from process start in every module
// instance. The loader takes these as its Timings (src/loader/views.ts).
import { appendFileSync } from 'node:fs';
import type { Timings } from '../loader/views.ts';
import { timingsFile } from './settings.ts';

const LAST = Symbol.for('mcp-schema.timings.last');
type Holder = { [LAST]?: number };

export function mark(stage: string, ms: number, extra: Record<string, unknown> = {}): void {
  (globalThis as Holder)[LAST] = performance.now();
  const file = timingsFile();
  if (!file) return;
  const line = JSON.stringify({ stage, ms: Math.round(ms), ...extra });
  appendFileSync(file, `${line}\n`);
  process.stderr.write(`[timing] ${line}\n`);
}

/** Time since the previous mark (or process start), as a stage of its own. */
export function markSince(stage: string): void {
  mark(stage, performance.now() - ((globalThis as Holder)[LAST] ?? 0));
}

/** Time an async stage. */
export async function timed<T>(stage: string, work: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await work();
  } finally {
    mark(stage, performance.now() - t0);
  }
}

export const buildTimings: Timings = { mark, markSince };
