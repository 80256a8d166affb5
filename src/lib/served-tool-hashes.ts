// The tool definition hash, version 1 (tool-definition-hash.ts) of one stored tools/list body: what the
// collector writes as `tools_set_hash` on an ok row and what the site derives again from the raw
// objects for every ok row, old rows included (methodology v1, "Canonicalisation"). One reading, so
// the two can never disagree. It reads the served JSON text (answerTextFromBody), never a
// re-serialised parse: number spelling and repeated member names are part of the recipe.
//
// v1 reads the first page of tools/list only. Definition hashes of that page are exact (a definition
// does not depend on its page), but a set hash of part of a listing matches no client's set hash, so a
// body that offers a next page has none.
import { AnswerBodyError, answerTextFromBody } from './answer-body.ts';
import { isObject } from './canonical.ts';
import { ToolDefinitionHashError, toolDefinitionHash, toolDefinitionHashes, toolSetHash, toolsPage, type ToolDefinitionLine } from './tool-definition-hash.ts';

export interface ServedSetHash {
  /** The set hash of the listing; null when it has none (`problem` says why). */
  setHash: string | null;
  /** Why `setHash` is null: no answer in the body, no canonical form (e.g. a repeated member name), a partial listing. */
  problem: string | null;
}

export interface ServedToolHashes extends ServedSetHash {
  /** Each definition's name and definition hash, in served order; null when the page has no canonical form. */
  definitions: ToolDefinitionLine[] | null;
  /** The `name:hash` lines the set hash is made of, in set-hash order (joined with "\n" they hash to it); null as definitions. */
  lines: string[] | null;
}

/** Say why a listing that offers a next page has no set hash. */
export const PARTIAL_LISTING = 'listing has more pages and v1 reads the first only: a set hash of part of a listing matches no client’s';

/** The set hash of a stored body (what the collector records and the site's loader derives). */
export function servedSetHash(body: string | Uint8Array, contentType: string | null): ServedSetHash {
  const p = servedPage(body, contentType);
  if ('problem' in p) return { setHash: null, problem: p.problem };
  let setHash: string;
  try {
    setHash = toolSetHash([p.page]);
  } catch (e) {
    if (e instanceof ToolDefinitionHashError) return { setHash: null, problem: e.message };
    throw e;
  }
  return p.partial ? { setHash: null, problem: PARTIAL_LISTING } : { setHash, problem: null };
}

/** The set hash and every definition hash of a stored body (what the site's tools and set files show). */
export function servedToolHashes(body: string | Uint8Array, contentType: string | null): ServedToolHashes {
  const p = servedPage(body, contentType);
  if ('problem' in p) return { setHash: null, problem: p.problem, definitions: null, lines: null };
  return hashesOfPages([p.page], p.partial);
}

/**
 * The same for a listing methodology v2 read over several tools/list pages (each stored body in order):
 * every definition of every page, and the set hash of all of them (servedListingSetHash's).
 */
export function servedListingToolHashes(pages: readonly { body: string | Uint8Array; contentType: string | null }[]): ServedToolHashes {
  const texts: string[] = [];
  for (const page of pages) {
    const p = servedPage(page.body, page.contentType);
    if ('problem' in p) return { setHash: null, problem: p.problem, definitions: null, lines: null };
    texts.push(p.page);
  }
  return hashesOfPages(texts, false);
}

function hashesOfPages(pages: string[], partial: boolean): ServedToolHashes {
  let lines: string[];
  try {
    lines = toolDefinitionHashes(pages).map((l) => `${l.name}:${l.hash}`);
  } catch (e) {
    if (e instanceof ToolDefinitionHashError) return { setHash: null, problem: e.message, definitions: null, lines: null };
    throw e;
  }
  // toolsPage's text reads back to exactly the served values, so each definition re-written from it
  // hashes as the served bytes do (toolDefinitionHashes hashes the same text).
  const definitions = pages.flatMap((page) => (JSON.parse(page) as { name: string }[]).map((t) => ({ name: t.name, hash: toolDefinitionHash(JSON.stringify(t)) })));
  return { setHash: partial ? null : toolSetHash(pages), problem: partial ? PARTIAL_LISTING : null, definitions, lines };
}

/** The page to hash (toolsPage of the answer's text) and whether the listing goes on, or why there is none. */
/**
 * The set hash of a listing read over several tools/list pages (methodology v2 reads every page): the
 * set hash over all pages' `tools` text, in order. What the v2 collector records as `tools_set_hash`
 * and what the site derives again from the stored pages — one reading for both.
 */
export function servedListingSetHash(pages: readonly { body: string | Uint8Array; contentType: string | null }[], id?: number): ServedSetHash {
  try {
    return { setHash: toolSetHash(pages.map((p) => toolsPage(answerTextFromBody(p.body, p.contentType, id)))), problem: null };
  } catch (e) {
    if (e instanceof ToolDefinitionHashError || e instanceof AnswerBodyError) return { setHash: null, problem: e.message };
    throw e;
  }
}

function servedPage(body: string | Uint8Array, contentType: string | null): { page: string; partial: boolean } | { problem: string } {
  try {
    const text = answerTextFromBody(body, contentType);
    const page = toolsPage(text);
    const result = (JSON.parse(text) as { result?: unknown }).result;
    return { page, partial: isObject(result) && result.nextCursor !== undefined && result.nextCursor !== null };
  } catch (e) {
    if (e instanceof AnswerBodyError || e instanceof ToolDefinitionHashError) return { problem: e.message };
    throw e;
  }
}
