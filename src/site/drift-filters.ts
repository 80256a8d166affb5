// The level filters of /drift/: each one is its own paginated list of static pages, so filtering
// works without JavaScript, and has its own feeds (/drift/<key>.xml, .json). Levels come from the
// classification findings (src/lib rules); every change is under exactly one compatibility filter
// (ERR, WARN, INFO or none fired), and reverts have a filter of their own.
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
  { key: 'none', label: 'No rule fired', test: (c) => c.compatibility === null },
  { key: 'security', label: 'Security HIGH', test: (c) => c.security === 'HIGH' },
  { key: 'revert', label: 'Reverts', test: (c) => c.revert },
];

export const PAGE_SIZE = 50;
/**
 * Pages a filter publishes (the site stays under 1 GB): the newest PAGE_SIZE × MAX_PAGES
 * changes; older ones are in /data/changes.jsonl.gz and keep their anchor on their server's page.
 * The numbered pages shift every day anyway: page n is "the n-th fifty newest", never a fixed set.
 */
export const MAX_PAGES = 20;

/** How many pages a filter with `count` changes publishes (at least one, at most MAX_PAGES). */
export function driftPages(count: number): number {
  return Math.min(MAX_PAGES, Math.max(1, Math.ceil(count / PAGE_SIZE)));
}

/** `<filter>/<n>` path segments, page 1 without a number: '', '2', 'err', 'err/2'. */
export function driftPagePath(filter: string, page: number): string {
  return [filter, page > 1 ? String(page) : ''].filter(Boolean).join('/');
}
