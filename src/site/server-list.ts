// /servers/ in pages by name: one table of every server was 137 KB of HTML for the demo's
// 382 servers, about 15 MB at the registry's 42,000. The list is cut, in name order, into pages of
// SERVERS_PER_PAGE: /servers/ is the first, /servers/page-<n>/ the others (a server slug always holds
// `_` or `~`, so `page-<n>` is never a server's page). Each page names the first and last name of
// every page, so a reader without JavaScript finds any server by its name; the filter's submit
// button searches every server (/search/).
import type { ServerRow } from '../loader/views.ts';

/** Servers one page of /servers/ lists: about 180 KB of HTML at the demo's ~360 bytes a row. */
export const SERVERS_PER_PAGE = 500;

export interface ServerListPage<S> {
  /** 1-based. */
  n: number;
  /** Site path (without the base): `/servers/` for the first page, `/servers/page-<n>/` for the others. */
  path: string;
  /** The first and last names on the page, as the registry spells them. */
  first: string;
  last: string;
  servers: S[];
}

export function serverListPath(n: number): string {
  return n === 1 ? '/servers/' : `/servers/page-${n}/`;
}

/** The pages of the server list: every server once, in name order (case-insensitive, then exact), at least one page. */
export function serverListPages<S extends Pick<ServerRow, 'name'>>(servers: readonly S[], perPage: number = SERVERS_PER_PAGE): ServerListPage<S>[] {
  const key = (s: S) => s.name.toLowerCase();
  const sorted = [...servers].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const pages: ServerListPage<S>[] = [];
  for (let i = 0; i < sorted.length || pages.length === 0; i += perPage) {
    const chunk = sorted.slice(i, i + perPage);
    const n = pages.length + 1;
    pages.push({ n, path: serverListPath(n), first: chunk[0]?.name ?? '', last: chunk.at(-1)?.name ?? '', servers: chunk });
  }
  return pages;
}
