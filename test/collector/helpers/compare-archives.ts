// Two archives of the same world and clocks, compared file by file with the fields that carry wall-clock
// timings taken out: the proof that a refactoring of the collector (or a sharded run against a
// single-job run) writes the same archive. Rows are compared sorted by (run_id, target), since the order
// of a day file follows probe completion. Run as a script:
//   npx tsx test/collector/helpers/compare-archives.ts <archive-a> <archive-b>
// prints the differing files and exits 1 when there is any.
import fs from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

/**
 * Fields that differ between two runs of the same code on the same world and clocks:
 *  - wall-clock times and durations (observed_at, latencies, finished_at, fetched_at, sealed_at);
 *  - scheduling.slowest_hosts: the ten hosts with the longest wall time, ranked by wall time;
 *  - in chain.jsonl, the hashes of files whose bytes hold those times: `prev` and the sha256 of
 *    runs.jsonl, the roster and the day files (the objects list's hash stays compared).
 * A legacy SSE endpoint carries the world's random session id: `sessionId=` is compared without it.
 */
export const TIMING_FIELDS = ['observed_at', 'latency_ms', 'handshake_latency_ms', 'finished_at', 'fetched_at', 'wall_ms', 'sealed_at', 'slowest_hosts'] as const;
const CHAIN_HASHED = ['runs', 'roster', 'rows'];

/** A JSON value with every timing field (at any depth) replaced by a marker. */
export function untimed(value: unknown, chain = false): unknown {
  if (Array.isArray(value)) return value.map((v) => untimed(v, chain));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        if ((TIMING_FIELDS as readonly string[]).includes(k)) return [k, '<timing>'];
        if (chain && k === 'prev') return [k, v === null ? null : '<hash>'];
        if (chain && CHAIN_HASHED.includes(k) && v !== null) return [k, (Array.isArray(v) ? v : [v]).map((x: Record<string, unknown>) => ({ ...x, sha256: '<hash>' }))];
        if (k === 'legacy_sse_endpoint' && typeof v === 'string') return [k, v.replace(/sessionId=[^&]*/, 'sessionId=<session>')];
        return [k, untimed(v, chain)];
      }),
    );
  }
  return value;
}

/** JSON Lines rows without their timings, sorted by (run_id, target) when they have them. */
export function untimedRows(text: string, chain = false): unknown[] {
  const rows = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const key = (r: Record<string, unknown>) => `${String(r.run_id ?? '')}\0${String(r.target ?? '')}\0${String(r.methodology_version ?? '')}`;
  const sorted = rows.every((r) => 'target' in r) ? [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)) : rows;
  return sorted.map((r) => untimed(r, chain));
}

function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

export interface ArchiveDiff {
  onlyA: string[];
  onlyB: string[];
  /** Files present in both that differ after timings are taken out. */
  differ: string[];
  /** Files equal only once timings are taken out (their bytes differ). */
  timingOnly: string[];
  same: number;
}

/** `skip`: relative paths (prefixes) left out of the comparison, e.g. a lock file. */
export function compareArchives(a: string, b: string, skip: readonly string[] = []): ArchiveDiff {
  const keep = (f: string) => !skip.some((s) => f.startsWith(s));
  const fa = files(a).filter(keep);
  const fb = files(b).filter(keep);
  const diff: ArchiveDiff = { onlyA: fa.filter((f) => !fb.includes(f)), onlyB: fb.filter((f) => !fa.includes(f)), differ: [], timingOnly: [], same: 0 };
  for (const f of fa.filter((x) => fb.includes(x))) {
    const ba = fs.readFileSync(join(a, f));
    const bb = fs.readFileSync(join(b, f));
    if (ba.equals(bb)) {
      diff.same++;
      continue;
    }
    const same = f.endsWith('.jsonl')
      ? JSON.stringify(untimedRows(ba.toString('utf8'), f === 'chain.jsonl')) === JSON.stringify(untimedRows(bb.toString('utf8'), f === 'chain.jsonl'))
      : f.endsWith('.json') && JSON.stringify(untimed(JSON.parse(ba.toString('utf8')))) === JSON.stringify(untimed(JSON.parse(bb.toString('utf8'))));
    (same ? diff.timingOnly : diff.differ).push(f);
  }
  return diff;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [a, b, ...skip] = process.argv.slice(2);
  if (!a || !b) {
    process.stderr.write('usage: npx tsx test/collector/helpers/compare-archives.ts <archive-a> <archive-b> [skip-prefix…]\n');
    process.exit(2);
  }
  const d = compareArchives(a, b, skip);
  process.stdout.write(JSON.stringify(d, null, 1) + '\n');
  process.exitCode = d.onlyA.length + d.onlyB.length + d.differ.length > 0 ? 1 : 0;
}
