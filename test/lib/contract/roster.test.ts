// The roster contract (methodology v1, "Roster"): data/rosters/<day>.json, one per run.
// The target below is a real registry entry (fixtures/registry/real, official listing of 2025-12-12).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/lib/canonical.ts';
import { OFFICIAL_META, Roster } from '../../../src/lib/contract/roster.ts';

const page = sha256Hex('page 1');

const roster = () => ({
  day: '2026-04-01',
  run_id: '2026-04-01-a1b2c3',
  fetched_at: '2026-04-01T06:00:02.114Z',
  source: 'https://registry.modelcontextprotocol.io',
  complete: false,
  incomplete_reason: 'page 2 failed after 3 attempts: http 503',
  pages: [
    { cursor: null, url: 'https://registry.modelcontextprotocol.io/v0.1/servers?limit=100', http_status: 200, sha256: page, count: 100, next_cursor: 'ai.alpic.test/test-mcp-server:0.0.1', attempts: 1, error: null },
    { cursor: 'ai.alpic.test/test-mcp-server:0.0.1', url: 'https://registry.modelcontextprotocol.io/v0.1/servers?limit=100&cursor=ai.alpic.test%2Ftest-mcp-server%3A0.0.1', http_status: 503, sha256: null, count: null, next_cursor: null, attempts: 3, error: 'http 503' },
  ],
  counts: { pages: 2, entries: 100, targets: 1, with_endpoint: 1 },
  targets: [
    { name: 'ai.alpic.test/test-mcp-server', version: '0.0.1', status: 'active', endpoint: 'https://test.alpic.ai/', endpoint_problem: null, page_sha256: page, page_index: 0 },
  ],
});
type R = ReturnType<typeof roster>;

describe('Roster', () => {
  it('accepts a roster as the collector writes one, an incomplete one with a failed page included', () => {
    expect(Roster.safeParse(roster()).success).toBe(true);
  });
  it('accepts a target without an endpoint, with the reason', () => {
    const r = roster();
    r.targets[0] = { ...r.targets[0]!, endpoint: null, endpoint_problem: 'no_streamable_http' } as unknown as R['targets'][number];
    expect(Roster.safeParse(r).success).toBe(true);
  });
  it('accepts fetched_at with an offset (RFC 3339)', () => {
    expect(Roster.safeParse({ ...roster(), fetched_at: '2026-04-01T08:00:02+02:00' }).success).toBe(true);
  });
  it.each<[string, (r: R) => void]>([
    ['a page hash with text before it', (r) => (r.pages[0]!.sha256 = `x${page}`)],
    ['a page hash with a 65th digit', (r) => (r.pages[0]!.sha256 = `${page}0`)],
    ['a page hash of one digit', (r) => (r.pages[0]!.sha256 = 'a')],
    ['a target page hash that is not hex', (r) => (r.targets[0]!.page_sha256 = 'g'.repeat(64))],
    ['a day with text before it', (r) => (r.day = `x${r.day}`)],
    ['a day with text after it', (r) => (r.day = `${r.day}x`)],
    ['a day with a one-digit month', (r) => (r.day = '2026-4-01')],
    ['a day with a two-digit year', (r) => (r.day = '26-04-01')],
    ['a day with a one-digit day', (r) => (r.day = '2026-04-1')],
    ['a day of letters', (r) => (r.day = 'yyyy-mm-dd')],
    ['an empty run_id', (r) => (r.run_id = '')],
    ['an empty target name', (r) => (r.targets[0]!.name = '')],
    ['a page with zero attempts', (r) => (r.pages[0]!.attempts = 0)],
    ['an unknown field on a page', (r) => Object.assign(r.pages[0]!, { note: 'x' })],
    ['an unknown field on a target', (r) => Object.assign(r.targets[0]!, { note: 'x' })],
    ['an unknown field in counts', (r) => Object.assign(r.counts, { note: 'x' })],
    ['an unknown field on the roster', (r) => Object.assign(r, { note: 'x' })],
  ])('refuses %s', (_what, edit) => {
    const r = roster();
    edit(r);
    expect(Roster.safeParse(r).success).toBe(false);
  });
});

describe('OFFICIAL_META', () => {
  it("is the key the registry's listing puts its own metadata under (isLatest, status) on every entry", () => {
    const listing = JSON.parse(readFileSync(new URL('../../../fixtures/registry/real/official-v0-listing-2025-12-12.json', import.meta.url), 'utf8')) as { servers: { _meta?: Record<string, { isLatest?: unknown; status?: unknown }> }[] };
    expect(listing.servers.length).toBeGreaterThan(0);
    for (const entry of listing.servers) {
      const official = entry._meta?.[OFFICIAL_META];
      expect(typeof official?.isLatest).toBe('boolean');
      expect(typeof official?.status).toBe('string');
    }
  });
});
