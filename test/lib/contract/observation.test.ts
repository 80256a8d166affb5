// The row contract (methodology v1, "Rows"): what it accepts is what readers of data/ may rely on.
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/lib/canonical.ts';
import { Observation } from '../../../src/lib/contract/observation.ts';
import { row } from '../helpers/rows.ts';

const day = '2026-04-01';
const hex = sha256Hex('x');

/** An auth failure with every text field filled, as the collector writes one (collector/rows.ts). */
const authRow = () => ({
  ...row(day, { error: 'auth' }, { target: 'ai.alpic.test/test-mcp-server', endpoint: 'https://test.alpic.ai/' }),
  registry_status: 'active',
  registry_page_sha256: hex,
  registry_page_index: 0,
  step: 'initialize',
  detail: 'http 401 from initialize',
  http_status: 401,
  jsonrpc_code: -32001,
  www_authenticate: 'Bearer resource_metadata="https://test.alpic.ai/.well-known/oauth-protected-resource"',
  retry_after: '120',
  final_url: 'https://test.alpic.ai/mcp',
  redirects: 1,
  protocol_version: '2025-06-18',
  server_name: 'alpic-test',
  server_version: '0.0.1',
  session: true,
  body_content_type: 'application/json',
  latency_ms: 87.5,
});
const issues = (value: unknown) => {
  const r = Observation.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => i.message);
};

describe('Observation', () => {
  it('accepts a row of each outcome as the collector writes them, every text field filled', () => {
    expect(issues(authRow())).toEqual([]);
    for (const r of [row(day, { ok: 'A' }), row(day, { error: 'timeout' }), row(day, 'no_endpoint'), row(day, 'retired'), row(day, 'excluded')]) {
      expect(issues(r)).toEqual([]);
    }
  });
  it('accepts an instant with an offset and any number of fraction digits (RFC 3339)', () => {
    expect(issues({ ...authRow(), observed_at: '2026-04-01T08:00:00.123456+02:00' })).toEqual([]);
  });
  it.each([
    ['an ok row with an error_class', { ...row(day, { ok: 'A' }), error_class: 'timeout' }, 'ok row carries an error_class'],
    ['an ok row without tools_sha256', { ...row(day, { ok: 'A' }), tools_sha256: null }, 'ok row lacks hashes or tool_count'],
    ['an ok row without body_sha256', { ...row(day, { ok: 'A' }), body_sha256: null }, 'ok row lacks hashes or tool_count'],
    ['an ok row without tool_count', { ...row(day, { ok: 'A' }), tool_count: null }, 'ok row lacks hashes or tool_count'],
    ['an error row without an error_class', { ...row(day, { error: 'auth' }), error_class: null }, 'error row needs a probe error_class'],
    ['an error row of class no_endpoint', { ...row(day, { error: 'auth' }), error_class: 'no_endpoint' }, 'error row needs a probe error_class'],
    ['an error row with tools_sha256', { ...row(day, { error: 'parse' }), tools_sha256: hex }, 'error row carries tools_sha256'],
    ['a no_endpoint row of another class', { ...row(day, 'no_endpoint'), error_class: 'auth' }, 'no_endpoint row must have error_class no_endpoint'],
    ['a retired row with an error_class', { ...row(day, 'retired'), error_class: 'timeout' }, 'retired row carries probe results'],
    ['a retired row with tools_sha256', { ...row(day, 'retired'), tools_sha256: hex }, 'retired row carries probe results'],
    ['an excluded row with tools_sha256', { ...row(day, 'excluded'), tools_sha256: hex }, 'excluded row carries probe results'],
  ])('refuses %s', (_what, value, message) => {
    expect(issues(value)).toEqual([message]);
  });
  it.each([
    ['a hash with 65 hex digits', { tools_sha256: `${hex}0` }],
    ['a hash with text before it', { tools_sha256: `x${hex}` }],
    ['a hash in upper case', { tools_sha256: hex.toUpperCase() }],
    ['a day with text after it', { day: `${day}x` }],
    ['a day with text before it', { day: `x${day}` }],
    ['an observed_at that is a day', { observed_at: day }],
    ['an empty target', { target: '' }],
    ['an unknown field', { note: 'x' }],
    ['a negative redirect count', { redirects: -1 }],
  ])('refuses %s', (_what, change) => {
    expect(Observation.safeParse({ ...row(day, { ok: 'A' }), ...change }).success).toBe(false);
  });
});
