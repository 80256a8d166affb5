// The status files' shard rule and shape (src/lib server-status.ts): the name indexes' rule on the slug,
// and a shape that refuses what format 1's per-server files carried (a date field) or another version.
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/canonical.ts';
import { nameIndexShard } from '../../src/lib/name-index.ts';
import { statusPath, statusShard, StatusShard, STATUS_SHARD_RULE, type ServerStatusEntry } from '../../src/lib/server-status.ts';

const entry: ServerStatusEntry = {
  slug: 'io.github.x_y',
  name: 'io.github.x/y',
  status: 'ok',
  last_observed_at: '2026-12-07T03:15:00Z',
  last_probe_at: '2026-12-07T03:15:00Z',
  last_ok_at: '2026-12-07T03:15:00Z',
  consecutive_failures: 0,
  window: { from_day: '2026-11-08', to_day: '2026-12-07', days: 30 },
  probes: 30,
  ok: 30,
  ok_share: 1,
  ok_share_ci95: [0.88, 1],
  latency_ms: { n: 30, median: 120.5, p90: 300 },
  tools_observed_at: '2026-12-07T03:15:00Z',
  set_observations: 30,
  v2_run_id: null,
  v2_observed_at: null,
  v2_probe_shared_with: null,
  quality: [{ id: 'liveness.uptime_30d', detail: '30 of 30 probes ok (100%), 2026-11-08 to 2026-12-07' }],
};
const shard = () => ({ version: 1, kind: 'status', shard: statusShard(entry.slug), shard_rule: STATUS_SHARD_RULE, methodology: 'v1', as_of: '2026-12-07T03:20:00Z', as_of_day: '2026-12-07', servers: [entry] });

describe('statusShard', () => {
  it('is the name indexes\' rule applied to the slug: the first 2 hex digits of its SHA-256', () => {
    expect(statusShard(entry.slug)).toBe(sha256Hex(entry.slug).slice(0, 2));
    expect(statusShard(entry.slug)).toBe(nameIndexShard(entry.slug));
    expect(statusShard('io.github.x_z')).not.toBe(statusShard(entry.slug)); // a neighbouring slug may land elsewhere (here it does)
    expect(statusPath('0a')).toBe('/api/status/0a.json');
  });
});

describe('StatusShard', () => {
  it('accepts a shard as the writer makes it, of an empty archive, and the simulated flag', () => {
    expect(StatusShard.safeParse(shard()).success).toBe(true);
    expect(StatusShard.safeParse({ ...shard(), as_of: null, as_of_day: null, servers: [] }).success).toBe(true);
    expect(StatusShard.safeParse({ ...shard(), simulated: true }).success).toBe(true);
  });

  it.each([
    ['another version', { version: 2 }],
    ['a date field of format 1', { generated_at: '2026-12-07T03:20:00Z' }],
    ['another kind', { kind: 'tool-names' }],
    ['an uppercase shard', { shard: 'AB' }],
    ['simulated false', { simulated: false }],
    ['an as-of day that is an instant', { as_of_day: '2026-12-07T03:20:00Z' }],
  ])('refuses %s', (_about, change) => {
    expect(StatusShard.safeParse({ ...shard(), ...change }).success).toBe(false);
  });

  it('refuses an entry with an unknown member or without its window figures', () => {
    expect(StatusShard.safeParse({ ...shard(), servers: [{ ...entry, extra: 1 }] }).success).toBe(false);
    const { probes: _probes, ...without } = entry;
    expect(StatusShard.safeParse({ ...shard(), servers: [without] }).success).toBe(false);
  });
});
