// `npm run restate -- --methodology v2`: the v2 series' reproducibility check. Every ok row of
// observations-v2/ is re-derived from its raw objects — the contract hash (v1's canonical toolsSha256)
// from the tools of ALL its stored tools/list pages (tools_pages_sha256, in order), and
// instructions_sha256 from the stored handshake (handshake_sha256), and on modern rows that record them
// (from 2026-12-02) the caching fields (src/lib answerCaching over the same answers) — and compared with
// what was recorded. Nothing is written: v2 has no derived series yet (restatements/ holds v1's), so this is the
// check `restate --methodology v1` is for v1. The rows are read through src/archive, under the lock.
import { listDays } from '../../src/archive/day-files.ts';
import { SERIES_FOLDER } from '../../src/archive/layout.ts';
import { readObjectSync } from '../../src/archive/objects.ts';
import { observationV2Lines } from '../../src/archive/observations.ts';
import { valueOrThrow } from '../../src/archive/problems.ts';
import { answerCaching, answerFromBody, cachingRowFields, instructionsHash, isObject, parseToolsList, toolsSha256, type ObservationV2, type Tool } from '../../src/lib/index.ts';
import { HANDSHAKE_ID, TOOLS_LIST_ID } from '../probe-v2/index.ts';
import { Store } from '../store.ts';

export interface V2Reproduction {
  series: 'v2';
  days: string[];
  source_rows: number;
  ok_rows: number;
  /** ok rows with a page or handshake object missing, corrupt or no longer readable as an answer. */
  unreadable_rows: number;
  /** ok rows whose recomputed contract hash differs from the recorded one. */
  differing_rows: number;
  /** ok rows whose recomputed instructions hash differs. */
  differing_instructions: number;
  /** Modern ok rows that record the caching fields (from 2026-12-02) whose re-reading differs. */
  differing_caching: number;
  /** The first rows that differ or are unreadable (file:line and why), at most 50. */
  examples: string[];
}

export async function reproduceV2(dataDir: string): Promise<V2Reproduction> {
  const store = Store.open(dataDir, new Date().toISOString());
  const m: V2Reproduction = { series: 'v2', days: [], source_rows: 0, ok_rows: 0, unreadable_rows: 0, differing_rows: 0, differing_instructions: 0, differing_caching: 0, examples: [] };
  const example = (s: string) => m.examples.length < 50 && m.examples.push(s);
  try {
    for (const day of listDays(dataDir, SERIES_FOLDER.v2)) {
      for await (const l of observationV2Lines(dataDir, day)) {
        if (!l.row) continue;
        // A row that does not validate stops the check: a series is never judged around a hole.
        const row = valueOrThrow(l.row, l.file, l.n);
        m.source_rows++;
        if (row.outcome !== 'ok') continue;
        m.ok_rows++;
        const at = `${l.file}:${l.n}`;
        const again = rederive(dataDir, row);
        if (again === null) {
          m.unreadable_rows++;
          example(`${at}: a stored body is missing or unreadable`);
          continue;
        }
        if (again.tools !== row.tools_sha256) {
          m.differing_rows++;
          example(`${at}: tools_sha256 ${String(row.tools_sha256).slice(0, 12)}…, re-derived ${again.tools.slice(0, 12)}…`);
        }
        if (again.instructions !== row.instructions_sha256) {
          m.differing_instructions++;
          example(`${at}: instructions_sha256 differs`);
        }
        // The caching fields, on the rows that record them (written from 2026-12-02 on).
        if (row.list_cache_scope !== undefined && again.caching !== null) {
          const recorded = JSON.stringify(CACHING_KEYS.map((k) => row[k] ?? null));
          const read = JSON.stringify(CACHING_KEYS.map((k) => again.caching![k]));
          if (recorded !== read) {
            m.differing_caching++;
            example(`${at}: caching fields differ: recorded ${recorded.slice(0, 200)}, re-read ${read.slice(0, 200)}`);
          }
        }
      }
      m.days.push(day.day);
    }
    return m;
  } finally {
    store.close();
  }
}

const CACHING_KEYS = ['list_cache_scope', 'list_ttl_ms', 'list_result_type', 'server_info_name', 'server_info_version', 'caching_missing'] as const;

/** The hashes of an ok row re-derived from its objects (and, for a modern one, its caching fields); null when a body cannot be read back. */
function rederive(dataDir: string, row: ObservationV2): { tools: string; instructions: string | null; caching: ReturnType<typeof cachingRowFields> | null } | null {
  try {
    const tools: Tool[] = [];
    const messages: unknown[] = [];
    for (const [i, sha] of (row.tools_pages_sha256 ?? []).entries()) {
      const bytes = readObjectSync(dataDir, sha);
      if (!bytes) return null;
      const message = answerFromBody(bytes, row.tools_pages_content_types?.[i] ?? null, TOOLS_LIST_ID);
      messages.push(message);
      tools.push(...parseToolsList(message));
    }
    let discover: unknown = null;
    let instructions: string | null = null;
    if (row.handshake_sha256) {
      const bytes = readObjectSync(dataDir, row.handshake_sha256);
      if (!bytes) return null;
      discover = answerFromBody(bytes, row.handshake_content_type, HANDSHAKE_ID);
      const result = (discover as { result?: unknown }).result;
      instructions = instructionsHash(isObject(result) && typeof result.instructions === 'string' ? result.instructions : null);
    }
    return { tools: toolsSha256(tools), instructions, caching: row.era === 'modern' ? cachingRowFields(answerCaching(discover, messages)) : null };
  } catch {
    return null;
  }
}
