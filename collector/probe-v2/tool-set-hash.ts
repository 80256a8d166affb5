// The tool definition set hash of a listing (src/lib toolSetHash), read from the raw page bodies as
// stored — the JSON-RPC text of each answer (answerTextFromBody), then its `result.tools` text
// (toolsPage) — so the hash is of the served bytes and restate can recompute it from objects/.
import { servedListingSetHash } from '../../src/lib/index.ts';
import type { Page } from './pages.ts';

export function toolSetHashOf(pages: readonly Page[], id: number): { hash: string | null; problem: string | null } {
  const r = servedListingSetHash(pages, id);
  return { hash: r.setHash, problem: r.problem?.slice(0, 200) ?? null };
}
