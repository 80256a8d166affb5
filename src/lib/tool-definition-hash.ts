// The tool definition hash, version 1: the interoperable fingerprint of MCP tool definitions that
// lockfiles, proxies, scanners and registries can check against each other. Specified, with test
// vectors, in mcp-pin's docs/TOOL_DEFINITION_HASH.md (MIT); the vectors are in
// fixtures/tool-definition-hash/. Published beside our own tools_sha256 (methodology v1,
// "Canonicalisation"), never instead of it: v1 also sorts arrays of objects, which RFC 8785 does not.
//
//   definition hash   = sha256(UTF-8(RFC 8785 form of the definition exactly as sent))       §1–2
//   set hash          = sha256 of `name:hash` lines, sorted by name (UTF-16 code units) then
//                       hash, joined with "\n", no final newline; an empty listing hashes ""   §3
//   instructions hash = sha256(UTF-8(instructions)) as received, no normalisation; null → null §4
// Every hash is 64 lowercase hex characters, unprefixed. UTF-8 encodes a lone surrogate as U+FFFD
// (WHATWG), which is what Node's string hashing does.
//
// Inputs are JSON text because number parsing and repeated member names are part of the recipe: a
// definition that repeats a member name anywhere has no canonical form (parsers disagree on which
// copy wins), and a listing with a definition that has no string `name` has no set hash.
import { isObject, rfc8785Json, sha256Hex } from './canonical.ts';
import { JsonTextError, readJsonText } from './json-text.ts';
import { quote } from './rules/finding.ts';
import { byCodeUnits } from './tool-map.ts';

export class ToolDefinitionHashError extends Error {
  override readonly name = 'ToolDefinitionHashError';
  constructor(
    readonly reason: 'not json' | 'too deep' | 'repeated member name' | 'not an object' | 'no string name' | 'not an array',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** One line of a set hash: a definition's name and its definition hash. */
export interface ToolDefinitionLine {
  name: string;
  hash: string;
}

/** The definition hash of one definition (the JSON text of one object of a `tools` array). */
export function toolDefinitionHash(jsonText: string): string {
  const value = read(jsonText, '');
  if (!isObject(value)) throw new ToolDefinitionHashError('not an object', 'definition is not a json object');
  return sha256Hex(rfc8785Json(value));
}

/** The set hash of a listing, given as pages: each the JSON text of one `tools` array. */
export function toolSetHash(pages: string[]): string {
  return setHashOfLines(toolDefinitionHashes(pages));
}

/** The set hash of lines already made (a lockfile's, a set file's): sorted by name then hash, `name:hash` joined with "\n". */
export function setHashOfLines(lines: readonly ToolDefinitionLine[]): string {
  const sorted = [...lines].sort((a, b) => byCodeUnits(a.name, b.name) || byCodeUnits(a.hash, b.hash));
  return sha256Hex(sorted.map((l) => `${l.name}:${l.hash}`).join('\n'));
}

/** The lines the set hash is made of: every definition's name and hash, in set-hash order. */
export function toolDefinitionHashes(pages: string[]): ToolDefinitionLine[] {
  const lines: ToolDefinitionLine[] = [];
  pages.forEach((page, p) => {
    const tools = read(page, ` in page ${p}`);
    if (!Array.isArray(tools)) throw new ToolDefinitionHashError('not an array', `page ${p} is not a json array`);
    tools.forEach((tool: unknown, i) => {
      const name = isObject(tool) ? tool.name : undefined;
      if (typeof name !== 'string') throw new ToolDefinitionHashError('no string name', `definition ${i} of page ${p} has no string name`);
      lines.push({ name, hash: sha256Hex(rfc8785Json(tool)) });
    });
  });
  return lines.sort((a, b) => byCodeUnits(a.name, b.name) || byCodeUnits(a.hash, b.hash));
}

/**
 * The page to hash from a `tools/list` answer (the JSON text of the JSON-RPC message, see
 * answerTextFromBody): `result.tools` as JSON text. Its definitions read back to exactly the values
 * the served text holds (JSON.stringify writes every double and string so that JSON.parse restores
 * it), so its hashes are those of the served bytes. A repeated member name at `/result`,
 * `/result/tools` or inside a definition is an error: the listing then has no canonical form.
 */
export function toolsPage(answerText: string): string {
  const parsed = parse(answerText, '');
  const hit = parsed.repeated.find((r) => r.path === '/result' || r.path === '/result/tools' || r.path.startsWith('/result/tools/'));
  if (hit) throw new ToolDefinitionHashError('repeated member name', `repeated member name at ${quote(hit.path)}: no canonical form`);
  const result = isObject(parsed.value) ? parsed.value.result : undefined;
  const tools = isObject(result) ? result.tools : undefined;
  if (!Array.isArray(tools)) throw new ToolDefinitionHashError('not an array', 'answer has no result.tools array');
  return JSON.stringify(tools);
}

/** The instructions hash: sha256 of the string exactly as received; no instructions string → null. */
export function instructionsHash(s: string | null): string | null {
  return typeof s === 'string' ? sha256Hex(s) : null;
}

/** Parsed JSON text; a repeated member name anywhere in it is an error (`where` names the page). */
function read(text: string, where: string): unknown {
  const parsed = parse(text, where);
  const first = parsed.repeated[0];
  if (first !== undefined) {
    throw new ToolDefinitionHashError('repeated member name', `repeated member name at ${quote(first.path)}${where}: no canonical form`);
  }
  return parsed.value;
}

function parse(text: string, where: string): ReturnType<typeof readJsonText> {
  try {
    return readJsonText(text);
  } catch (e) {
    if (e instanceof JsonTextError) throw new ToolDefinitionHashError(e.reason, `${e.message}${where}`, { cause: e });
    throw e;
  }
}
