// The tool definition hash, version 1 (tool-definition-hash.ts) of one stored tools/list body: what the
// collector writes as `tools_set_hash` on an ok row and what the site derives again from the raw
// objects for every ok row, old rows included (methodology v1, "Canonicalisation"). One function, so
// the two can never disagree. It reads the served JSON text (answerTextFromBody), never a
// re-serialised parse: number spelling and repeated member names are part of the recipe.
//
// v1 reads the first page of tools/list only. Definition hashes of that page are exact (a definition
// does not depend on its page), but a set hash of part of a listing matches no client's set hash, so a
// body that offers a next page has none.
import { AnswerBodyError, answerTextFromBody } from './answer-body.ts';
import { isObject } from './canonical.ts';
import { ToolDefinitionHashError, toolDefinitionHash, toolSetHash, toolsPage, type ToolDefinitionLine } from './tool-definition-hash.ts';

export interface ServedToolHashes {
  /** The set hash of the listing; null when it has none (`problem` says why). */
  setHash: string | null;
  /** Each definition's name and definition hash, in served order; null when the page has no canonical form. */
  definitions: ToolDefinitionLine[] | null;
  /** Why `setHash` is null: no answer in the body, no canonical form (e.g. a repeated member name), a partial listing. */
  problem: string | null;
}

/** Say why a listing that offers a next page has no set hash. */
export const PARTIAL_LISTING = 'listing has more pages and v1 reads the first only: a set hash of part of a listing matches no client’s';

export function servedToolHashes(body: string | Uint8Array, contentType: string | null): ServedToolHashes {
  let text: string;
  let page: string;
  let setHash: string;
  try {
    text = answerTextFromBody(body, contentType);
    page = toolsPage(text);
    setHash = toolSetHash([page]);
  } catch (e) {
    if (e instanceof AnswerBodyError || e instanceof ToolDefinitionHashError) return { setHash: null, definitions: null, problem: e.message };
    throw e;
  }
  // toolsPage's text reads back to exactly the served values, so each definition re-written from it
  // hashes as the served bytes do (toolSetHash itself hashes the same text).
  const definitions = (JSON.parse(page) as { name: string }[]).map((t) => ({ name: t.name, hash: toolDefinitionHash(JSON.stringify(t)) }));
  const result = (JSON.parse(text) as { result?: unknown }).result;
  const partial = isObject(result) && result.nextCursor !== undefined && result.nextCursor !== null;
  return partial ? { setHash: null, definitions, problem: PARTIAL_LISTING } : { setHash, definitions, problem: null };
}
