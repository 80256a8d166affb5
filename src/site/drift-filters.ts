// The level filters of /drift/: each one is its own paginated list of static pages, so filtering
// works without JavaScript. Levels come from the classification findings (src/lib rules).
import type { ChangeView } from '../loader/load-archive.ts';

export interface DriftFilter {
  /** URL segment ('' = all changes). */
  key: string;
  label: string;
  test: (c: ChangeView) => boolean;
}

export const DRIFT_FILTERS: DriftFilter[] = [
  { key: '', label: 'All changes', test: () => true },
  { key: 'err', label: 'ERR: breaks callers', test: (c) => c.compatibility === 'ERR' },
  { key: 'warn', label: 'WARN', test: (c) => c.compatibility === 'WARN' },
  { key: 'info', label: 'INFO only', test: (c) => c.compatibility === 'INFO' },
  { key: 'security', label: 'Security HIGH', test: (c) => c.security === 'HIGH' },
];

export const PAGE_SIZE = 50;

/** `<filter>/<n>` path segments, page 1 without a number: '', '2', 'err', 'err/2'. */
export function driftPagePath(filter: string, page: number): string {
  return [filter, page > 1 ? String(page) : ''].filter(Boolean).join('/');
}
