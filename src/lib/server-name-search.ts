// Finding a server by name without a full-text index (DESIGN "Incremental server pages", search):
// at the registry's size Pagefind writes a file per page and ~78 kB of index a page, so it cannot run
// over every server page daily. Instead each server name is split into tokens, and the names are
// published in shards by the tokens' first characters under /api/server-names/ (src/outputs/
// server-name-index.ts); the search page fetches one shard and filters it. Pure: names in, shards out.
//
// A token is a run of [a-z0-9] in the lowercased name (NFKC), two characters or more. A query matches
// a name when each query token is the start of one of the name's tokens. A shard holds the names with
// a token starting with its prefix; a shard over `maxBytes` (its JSON) is split by one more character,
// and so on. A token whose names alone exceed `maxBytes` at its full length (a word in most names:
// "io", "github", "mcp") is not indexed: it is listed as too common, and a query of it alone is
// answered by the paged server list.

export const SERVER_NAME_INDEX_DIR = '/api/server-names';
/** The first shard prefixes are this long. */
export const NAME_SHARD_START = 2;

/** A name's search tokens, in order of first appearance, without repeats. */
export function nameTokens(name: string): string[] {
  const out: string[] = [];
  for (const m of name.normalize('NFKC').toLowerCase().matchAll(/[a-z0-9]+/g)) if (m[0].length >= 2 && !out.includes(m[0])) out.push(m[0]);
  return out;
}

/** Whether every token of `query` starts a token of `name` (an empty query matches nothing). */
export function nameMatches(name: string, query: string): boolean {
  const want = nameTokens(query);
  if (want.length === 0) return false;
  const have = nameTokens(name);
  return want.every((q) => have.some((t) => t.startsWith(q)));
}

/** A shard's entry: a server's name and its page's slug (src/lib/slug.ts; the page needs no hashing to link it). */
export type NameEntry = [name: string, slug: string];

export interface NameShards {
  /** Prefix → the entries (sorted by name, each once) whose name has a token starting with it. */
  shards: Map<string, NameEntry[]>;
  /** Tokens left out: their names alone are over the bound. */
  tooCommon: string[];
}

/** The JSON size of a shard of these entries, as written (what the bound is on). */
export function shardBytes(servers: readonly NameEntry[]): number {
  return new TextEncoder().encode(JSON.stringify({ servers })).length;
}

/** Shard the servers by their names so no shard's JSON is over `maxBytes` (see the header for how). */
export function shardServerNames(servers: Iterable<{ name: string; slug: string }>, maxBytes: number): NameShards {
  const byToken = new Map<string, Set<string>>();
  const slugs = new Map<string, string>();
  for (const { name, slug } of servers) {
    slugs.set(name, slug);
    for (const t of nameTokens(name)) (byToken.get(t) ?? byToken.set(t, new Set()).get(t)!).add(name);
  }
  const entries = (names: Iterable<string>): NameEntry[] => [...new Set(names)].sort().map((n) => [n, slugs.get(n)!]);
  const tooCommon = [...byToken].filter(([, set]) => shardBytes(entries(set)) > maxBytes).map(([t]) => t).sort();
  for (const t of tooCommon) byToken.delete(t);
  const shards = new Map<string, NameEntry[]>();
  const place = (prefix: string, tokens: string[]): void => {
    const names = entries(tokens.flatMap((t) => [...byToken.get(t)!]));
    // Split while the shard is too big and a longer prefix can tell its tokens apart.
    if (shardBytes(names) > maxBytes && tokens.some((t) => t.length > prefix.length)) {
      const sub = new Map<string, string[]>();
      const here: string[] = [];
      for (const t of tokens) {
        if (t.length === prefix.length) here.push(t);
        else (sub.get(t.slice(0, prefix.length + 1)) ?? sub.set(t.slice(0, prefix.length + 1), []).get(t.slice(0, prefix.length + 1))!).push(t);
      }
      // A token exactly as long as the prefix goes in a shard of its own, `<prefix>_`.
      if (here.length > 0) shards.set(`${prefix}_`, entries(here.flatMap((t) => [...byToken.get(t)!])));
      for (const [p, ts] of sub) place(p, ts);
      return;
    }
    shards.set(prefix, names);
  };
  const start = new Map<string, string[]>();
  for (const t of byToken.keys()) (start.get(t.slice(0, NAME_SHARD_START)) ?? start.set(t.slice(0, NAME_SHARD_START), []).get(t.slice(0, NAME_SHARD_START))!).push(t);
  for (const [p, ts] of start) place(p, ts);
  return { shards, tooCommon };
}

/**
 * Where a query token is answered: `{ shard }`, the longest published prefix it starts with; `{ more:
 * true }` when it is shorter than the shards of a crowded prefix (its names are in several: a longer
 * query is needed); null when no shard can hold it (no name has such a token, or it is too common).
 */
export function shardFor(token: string, prefixes: ReadonlySet<string>): { shard: string } | { more: true } | null {
  for (let n = token.length; n >= NAME_SHARD_START; n--) if (prefixes.has(token.slice(0, n))) return { shard: token.slice(0, n) };
  for (const p of prefixes) if (p.startsWith(token)) return { more: true };
  return null;
}
