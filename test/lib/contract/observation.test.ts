// The row contract (methodology v1, "Rows"): what it accepts is what readers of data/ may rely on.
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/lib/canonical.ts';
import { ERROR_CLASSES, NOT_ATTEMPTED_REASONS, Observation, OUTCOMES, PROBE_STEPS } from '../../../src/lib/contract/observation.ts';
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

describe('Observation: not_attempted rows (changelog "Deviation from v1: scheduling")', () => {
  const na = (reason: 'host_unresponsive' | 'run_deadline' = 'run_deadline') => row(day, { notAttempted: reason });
  it('accepts a not_attempted row for either reason, with no probe results', () => {
    expect(issues(na('host_unresponsive'))).toEqual([]);
    expect(issues(na('run_deadline'))).toEqual([]);
    expect(issues({ ...na(), tools_set_hash: null })).toEqual([]);
  });
  it('refuses a not_attempted row without its reason, null or absent', () => {
    expect(issues({ ...na(), not_attempted_reason: null })).toEqual(['not_attempted row needs a not_attempted_reason']);
    const { not_attempted_reason: _, ...absent } = na();
    expect(issues(absent)).toEqual(['not_attempted row needs a not_attempted_reason']);
    expect(Observation.safeParse({ ...na(), not_attempted_reason: 'crash' }).success).toBe(false);
  });
  it.each<[string, Record<string, unknown>]>([
    ['an error_class', { error_class: 'timeout' }],
    ['tools_sha256', { tools_sha256: hex }],
    ['body_sha256', { body_sha256: hex }],
    ['an http_status', { http_status: 503 }],
    ['tools_set_hash', { tools_set_hash: hex }],
  ])('refuses a not_attempted row carrying %s', (_what, change) => {
    expect(issues({ ...na(), ...change })).toEqual(['not_attempted row carries probe results']);
  });
  it.each<[string, Observation]>([
    ['ok', row(day, { ok: 'A' })],
    ['error', row(day, { error: 'timeout' })],
    ['no_endpoint', row(day, 'no_endpoint')],
    ['retired', row(day, 'retired')],
    ['excluded', row(day, 'excluded')],
  ])('a reason goes with not_attempted only: refuses an %s row with one, accepts it with null or none', (outcome, r) => {
    expect(issues({ ...r, not_attempted_reason: 'host_unresponsive' })).toEqual([`${outcome} row carries a not_attempted_reason`]);
    expect(issues({ ...r, not_attempted_reason: null })).toEqual([]);
    const { not_attempted_reason: _, ...absent } = r;
    expect(issues(absent)).toEqual([]);
  });
});

describe('Observation: tools_set_hash and the rest of the rules', () => {
  it('goes with ok rows only; null or absent on every other row', () => {
    expect(issues({ ...row(day, { ok: 'A' }), tools_set_hash: hex })).toEqual([]);
    expect(issues({ ...row(day, { error: 'parse' }), tools_set_hash: hex })).toEqual(['error row carries tools_set_hash']);
    expect(issues({ ...row(day, { error: 'parse' }), tools_set_hash: null })).toEqual([]);
    expect(issues({ ...row(day, 'retired'), tools_set_hash: hex })).toEqual(['retired row carries probe results']);
    expect(issues({ ...row(day, 'excluded'), tools_set_hash: hex })).toEqual(['excluded row carries probe results']);
    expect(issues({ ...row(day, 'excluded'), tools_set_hash: null })).toEqual([]);
  });
  it('refuses an excluded row with an error_class and a no_endpoint row without one', () => {
    expect(issues({ ...row(day, 'excluded'), error_class: 'auth' })).toEqual(['excluded row carries probe results']);
    expect(issues({ ...row(day, 'no_endpoint'), error_class: null })).toEqual(['no_endpoint row must have error_class no_endpoint']);
  });
  it('accepts an ok row with zero tools, and a restated row of series v1-contract', () => {
    expect(issues({ ...row(day, { ok: 'A' }), tool_count: 0 })).toEqual([]);
    expect(issues({ ...row(day, { ok: 'A' }), methodology_version: 'v1-contract' })).toEqual([]);
  });
  it('takes every error class and probe step it names, and nothing else', () => {
    for (const c of ERROR_CLASSES.filter((c) => c !== 'no_endpoint')) expect(issues({ ...row(day, { error: 'auth' }), error_class: c })).toEqual([]);
    expect(ERROR_CLASSES).toEqual(['timeout', 'tls', 'http_4xx', 'http_5xx', 'auth', 'rate_limited', 'no_endpoint', 'parse']);
    for (const step of PROBE_STEPS) expect(issues({ ...row(day, { error: 'auth' }), step })).toEqual([]);
    expect(PROBE_STEPS).toEqual(['roster', 'address', 'initialize', 'initialized', 'tools/list']);
    expect(OUTCOMES).toEqual(['ok', 'error', 'no_endpoint', 'retired', 'excluded', 'not_attempted']);
    expect(NOT_ATTEMPTED_REASONS).toEqual(['host_unresponsive', 'run_deadline', 'shard_lost']);
    expect(Observation.safeParse({ ...row(day, { error: 'auth' }), step: 'discover' }).success).toBe(false);
  });
});
