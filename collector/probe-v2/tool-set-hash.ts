// The tool definition set hash of a listing (src/lib toolSetHash), read from the raw page bodies as
// stored — the JSON-RPC text of each answer (answerTextFromBody), then its `result.tools` text
// (toolsPage) — so the hash is of the served bytes and restate can recompute it from objects/.
import { AnswerBodyError, answerTextFromBody, toolSetHash, ToolDefinitionHashError, toolsPage } from '../../src/lib/index.ts';
import type { Page } from './pages.ts';

export function toolSetHashOf(pages: readonly Page[], id: number): { hash: string | null; problem: string | null } {
  try {
    return { hash: toolSetHash(pages.map((p) => toolsPage(answerTextFromBody(p.body, p.contentType, id)))), problem: null };
  } catch (e) {
    if (e instanceof ToolDefinitionHashError || e instanceof AnswerBodyError) return { hash: null, problem: e.message.slice(0, 200) };
    throw e;
  }
}
