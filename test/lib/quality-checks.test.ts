// The descriptor's quality checks: each check's pass, fail and unknown on the
// observation its rule names, each with a near miss across its boundary, and the evidence it carries.
import { describe, expect, it } from 'vitest';
import { QUALITY_MIN_PROBES, QUALITY_RULES, QUALITY_STATUSES, qualityChecks, qualitySummary, type QualityCheck, type QualityInput } from '../../src/lib/quality-checks.ts';
import type { Tool } from '../../src/lib/tool.ts';

const good: Tool = { name: 'search', description: 'Search the index.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, outputSchema: { type: 'object' }, annotations: { readOnlyHint: true } };
const v2 = (over: Partial<NonNullable<QualityInput['v2']>> = {}): NonNullable<QualityInput['v2']> => ({
  run_id: '2026-12-01T031500Z',
  observed_at: '2026-12-01T03:20:00Z',
  outcome: 'ok',
  status: 'ok',
  era: 'modern',
  protocol_version: '2026-07-28',
  canary_sent: true,
  canary_in_channel: true,
  ...over,
});
const input = (over: Partial<QualityInput> = {}): QualityInput => ({
  asOfDay: '2026-12-01',
  v2Run: true,
  v2: v2(),
  tools: { tools: [good], observed_at: '2026-12-01T03:10:00Z', run_id: null, source: 'v1' },
  health: { probes: 30, ok: 30, fromDay: '2026-11-02', toDay: '2026-12-01' },
  changes: [],
  firstObservedDay: '2026-01-01',
  registry: { status: 'valid', errorsTotal: 0, checkedAgainst: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json', note: null },
  ...over,
});
const check = (i: QualityInput, id: string): QualityCheck => {
  const c = qualityChecks(i).find((x) => x.id === id);
  if (!c) throw new Error(`no check ${id}`);
  return c;
};
const status = (i: QualityInput, id: string) => check(i, id).status;

describe('qualityChecks: the list', () => {
  it('gives every rule once, in the rules order, each with its category', () => {
    const checks = qualityChecks(input());
    expect(checks.map((c) => c.id)).toEqual(QUALITY_RULES.map((r) => r.id));
    expect(checks.map((c) => c.category)).toEqual(QUALITY_RULES.map((r) => r.category));
    // The category is the id's first part (the descriptor leaves it out for that reason).
    for (const r of QUALITY_RULES) expect(r.id.split('.')[0], r.id).toBe(r.category);
    expect(new Set(QUALITY_RULES.map((r) => r.id)).size).toBe(QUALITY_RULES.length);
  });
  it('a server that does everything passes everything; the summary counts statuses', () => {
    const checks = qualityChecks(input());
    expect(checks.filter((c) => c.status !== 'pass').map((c) => c.id)).toEqual(['auth.challenge_followable']); // no wall: not applicable
    expect(qualitySummary(checks)).toEqual({ pass: checks.length - 1, fail: 0, unknown: 1 });
    expect(Object.keys(qualitySummary([]))).toEqual([...QUALITY_STATUSES]);
  });
  it('an archive with nothing observed of a server says unknown everywhere, never pass or fail', () => {
    const checks = qualityChecks(input({ v2Run: false, v2: null, tools: null, health: null, firstObservedDay: '2026-12-01', registry: null }));
    expect(checks.every((c) => c.status === 'unknown')).toBe(true);
    expect(check(input({ v2Run: false, v2: null }), 'protocol.modern').detail).toBe('no full methodology v2 run yet');
    expect(check(input({ v2: null }), 'protocol.modern').detail).toBe('not in the latest full v2 run');
    // Every check read off the v2 row says the same when there is none.
    for (const id of ['protocol.revision_published', 'auth.challenge_followable', 'errors.in_channel']) {
      expect(check(input({ v2: null }), id), id).toMatchObject({ status: 'unknown', detail: 'not in the latest full v2 run', source: null });
      expect(check(input({ v2Run: false, v2: null }), id).detail, id).toBe('no full methodology v2 run yet');
    }
  });
});

describe('qualityChecks: what each check says, whole', () => {
  const said = (i: QualityInput) => qualityChecks(i).map((c) => [c.id, c.status, c.detail, c.source]);
  it('for a server that does everything, in order', () => {
    expect(said(input())).toEqual([
      ['protocol.modern', 'pass', 'era modern: answered server/discover', 'v2'],
      ['protocol.revision_published', 'pass', 'revision 2026-07-28', 'v2'],
      ['auth.challenge_followable', 'unknown', 'not applicable: no auth challenge was met', 'v2'],
      ['hygiene.strict_input_schemas', 'pass', '1 of 1 tools have a strict input schema', 'v1'],
      ['hygiene.safety_annotations', 'pass', '1 of 1 tools have a readOnlyHint or destructiveHint', 'v1'],
      ['hygiene.descriptions', 'pass', '1 of 1 tools have a description', 'v1'],
      ['hygiene.output_schemas', 'pass', '1 of 1 tools have an output schema', 'v1'],
      ['errors.in_channel', 'pass', 'the error for an unknown tool came back in JSON-RPC', 'v2'],
      ['liveness.uptime_30d', 'pass', '30 of 30 probes ok (100%), 2026-11-02 to 2026-12-01', 'probes'],
      ['stability.no_breaking_change_30d', 'pass', 'no breaking change 2026-11-02 to 2026-12-01', 'probes'],
      ['registry.entry_valid', 'pass', 'valid against https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json', 'registry'],
    ]);
  });
  it('for a legacy server behind a wall it cannot pass, with nothing else known', () => {
    expect(said(input({ v2: v2({ outcome: 'error', status: 'auth_noncompliant', era: 'legacy', protocol_version: null, canary_sent: false, canary_in_channel: null }), tools: null, health: { probes: 3, ok: 0, fromDay: '2026-11-02', toDay: '2026-12-01' }, firstObservedDay: '2026-11-29', registry: { status: 'unknown_schema', errorsTotal: 0, checkedAgainst: null, note: null } }))).toEqual([
      ['protocol.modern', 'fail', 'era legacy: initialize only', 'v2'],
      ['protocol.revision_published', 'unknown', 'no handshake settled on a revision', 'v2'],
      ['auth.challenge_followable', 'fail', 'status auth_noncompliant: the challenge is not Bearer, or its protected-resource metadata is missing or invalid', 'v2'],
      ['hygiene.strict_input_schemas', 'unknown', 'no successful tools/list answer yet', null],
      ['hygiene.safety_annotations', 'unknown', 'no successful tools/list answer yet', null],
      ['hygiene.descriptions', 'unknown', 'no successful tools/list answer yet', null],
      ['hygiene.output_schemas', 'unknown', 'no successful tools/list answer yet', null],
      ['errors.in_channel', 'unknown', 'the unknown-tool call was not sent (no complete tool list in that probe)', 'v2'],
      ['liveness.uptime_30d', 'unknown', '0 of 3 probes ok, 2026-11-02 to 2026-12-01: fewer than 7 probes', 'probes'],
      ['stability.no_breaking_change_30d', 'unknown', 'no breaking change since 2026-11-29, but observed for 3 days, fewer than 30', 'probes'],
      ['registry.entry_valid', 'unknown', 'it names no schema the archive holds', 'registry'],
    ]);
  });
  it('for a server the latest v2 run did not probe, and one it probed without an answer', () => {
    const notProbed = said(input({ v2: v2({ outcome: 'not_attempted', status: null, era: 'none', protocol_version: null }) }));
    for (const id of ['protocol.modern', 'protocol.revision_published', 'auth.challenge_followable', 'errors.in_channel']) expect(notProbed.find((c) => c[0] === id)).toEqual([id, 'unknown', 'the latest full v2 run did not probe it', 'v2']);
    const silent = said(input({ v2: v2({ outcome: 'error', status: 'unreachable', era: 'none', protocol_version: null, canary_sent: false, canary_in_channel: null }) }));
    expect(silent.slice(0, 2)).toEqual([
      ['protocol.modern', 'unknown', 'no handshake answer (status unreachable)', 'v2'],
      ['protocol.revision_published', 'unknown', 'no handshake settled on a revision', 'v2'],
    ]);
    expect(said(input({ v2: v2({ outcome: 'error', status: null, era: 'none' }) }))[0]).toEqual(['protocol.modern', 'unknown', 'no handshake answer (status none)', 'v2']);
    expect(said(input({ v2: v2({ era: 'legacy_sse', outcome: 'error', status: 'legacy_sse' }) }))[0]).toEqual(['protocol.modern', 'fail', 'era legacy_sse: only the deprecated HTTP+SSE transport', 'v2']);
    expect(said(input({ v2: v2({ era: 'legacy', protocol_version: 'soon' }) }))[1]).toEqual(['protocol.revision_published', 'fail', 'revision "soon" is no MCP revision', 'v2']);
    expect(said(input({ v2: v2({ outcome: 'error', status: 'auth_compliant' }) }))[2]).toEqual(['auth.challenge_followable', 'pass', 'status auth_compliant: a Bearer challenge with valid protected-resource metadata', 'v2']);
    expect(said(input({ v2: v2({ canary_in_channel: false }) }))[7]).toEqual(['errors.in_channel', 'fail', 'the error for an unknown tool did not come back in JSON-RPC', 'v2']);
    expect(said(input({ health: null }))[8]).toEqual(['liveness.uptime_30d', 'unknown', '0 probes in the window, fewer than 7', null]);
    expect(said(input({ registry: null }))[10]).toEqual(['registry.entry_valid', 'unknown', 'no registry entry could be read back', null]);
    expect(said(input({ registry: { status: 'valid', errorsTotal: 0, checkedAgainst: null, note: null } }))[10]).toEqual(['registry.entry_valid', 'pass', 'valid against the schema it names', 'registry']);
  });
});

describe('qualityChecks: protocol', () => {
  it('modern passes, legacy and HTTP+SSE fail, no handshake or no probe is unknown', () => {
    expect(status(input(), 'protocol.modern')).toBe('pass');
    expect(status(input({ v2: v2({ era: 'legacy', protocol_version: '2025-06-18' }) }), 'protocol.modern')).toBe('fail');
    expect(check(input({ v2: v2({ era: 'legacy', protocol_version: '2025-06-18' }) }), 'protocol.modern').detail).toBe('era legacy: initialize only (2025-06-18)');
    expect(status(input({ v2: v2({ era: 'legacy_sse', outcome: 'error', status: 'legacy_sse' }) }), 'protocol.modern')).toBe('fail');
    expect(status(input({ v2: v2({ era: 'none', outcome: 'error', status: 'unreachable', protocol_version: null }) }), 'protocol.modern')).toBe('unknown');
    expect(status(input({ v2: v2({ outcome: 'not_attempted', status: null, era: 'none' }) }), 'protocol.modern')).toBe('unknown');
  });
  it('the evidence names the v2 run and its time', () => {
    expect(check(input(), 'protocol.modern')).toMatchObject({ detail: 'era modern: answered server/discover', source: 'v2', run_id: '2026-12-01T031500Z', observed_at: '2026-12-01T03:20:00Z' });
  });
  it('a published revision passes; a date after the last legacy one that is not 2026-07-28, or not a date, fails', () => {
    expect(status(input({ v2: v2({ era: 'legacy', protocol_version: '2024-11-05' }) }), 'protocol.revision_published')).toBe('pass');
    expect(status(input({ v2: v2({ era: 'legacy', protocol_version: '2025-11-25' }) }), 'protocol.revision_published')).toBe('pass');
    expect(status(input({ v2: v2({ era: 'legacy', protocol_version: '2025-12-01' }) }), 'protocol.revision_published')).toBe('fail');
    expect(status(input({ v2: v2({ era: 'legacy', protocol_version: 'latest' }) }), 'protocol.revision_published')).toBe('fail');
    expect(check(input({ v2: v2({ era: 'legacy', protocol_version: 'x'.repeat(100) }) }), 'protocol.revision_published').detail.length).toBeLessThan(100);
    expect(status(input({ v2: v2({ protocol_version: null, era: 'none', outcome: 'error', status: 'unreachable' }) }), 'protocol.revision_published')).toBe('unknown');
  });
});

describe('qualityChecks: auth and errors', () => {
  it('auth: compliant passes, non-compliant fails, no wall is unknown (not applicable)', () => {
    expect(status(input({ v2: v2({ outcome: 'error', status: 'auth_compliant' }) }), 'auth.challenge_followable')).toBe('pass');
    expect(status(input({ v2: v2({ outcome: 'error', status: 'auth_noncompliant' }) }), 'auth.challenge_followable')).toBe('fail');
    expect(check(input(), 'auth.challenge_followable')).toMatchObject({ status: 'unknown', detail: 'not applicable: no auth challenge was met' });
  });
  it('in-channel errors: in channel passes, out of channel fails, not sent is unknown', () => {
    expect(status(input(), 'errors.in_channel')).toBe('pass');
    expect(status(input({ v2: v2({ canary_in_channel: false }) }), 'errors.in_channel')).toBe('fail');
    expect(status(input({ v2: v2({ canary_in_channel: null }) }), 'errors.in_channel')).toBe('fail');
    expect(status(input({ v2: v2({ canary_sent: false, canary_in_channel: null }) }), 'errors.in_channel')).toBe('unknown');
    expect(status(input({ v2: null }), 'errors.in_channel')).toBe('unknown');
  });
});

describe('qualityChecks: the tools of the latest answer', () => {
  const withTools = (tools: Tool[]) => input({ tools: { tools, observed_at: '2026-12-01T03:10:00Z', run_id: null, source: 'v1' } });
  it('every tool must pass for the check to pass; one short fails with the figure', () => {
    const loose: Tool = { name: 'loose', inputSchema: { type: 'object', properties: { q: {} } } };
    const c = check(withTools([good, loose]), 'hygiene.strict_input_schemas');
    expect(c).toEqual({ id: 'hygiene.strict_input_schemas', category: 'hygiene', status: 'fail', detail: '1 of 2 tools have a strict input schema', source: 'v1', run_id: null, observed_at: '2026-12-01T03:10:00Z' });
    expect(status(withTools([good, loose]), 'hygiene.descriptions')).toBe('fail');
    expect(status(withTools([good, loose]), 'hygiene.output_schemas')).toBe('fail');
    expect(status(withTools([good, loose]), 'hygiene.safety_annotations')).toBe('fail');
    expect(status(withTools([good, good]), 'hygiene.strict_input_schemas')).toBe('pass');
  });
  it('a safety annotation is readOnlyHint or destructiveHint, as a boolean of either value', () => {
    const t = (annotations: unknown): Tool => ({ ...good, annotations } as Tool);
    expect(status(withTools([t({ destructiveHint: false })]), 'hygiene.safety_annotations')).toBe('pass');
    expect(status(withTools([t({ readOnlyHint: false })]), 'hygiene.safety_annotations')).toBe('pass');
    expect(status(withTools([t({ readOnlyHint: 'true' })]), 'hygiene.safety_annotations')).toBe('fail');
    expect(status(withTools([t({ idempotentHint: true })]), 'hygiene.safety_annotations')).toBe('fail');
  });
  it('a blank description is none', () => {
    expect(status(withTools([{ ...good, description: '  ' }]), 'hygiene.descriptions')).toBe('fail');
  });
  it('no answer, an unreadable one, or an empty list is unknown', () => {
    expect(status(input({ tools: null }), 'hygiene.descriptions')).toBe('unknown');
    expect(check(input({ tools: 'raw body missing' }), 'hygiene.descriptions').detail).toBe('the latest answer could not be read: raw body missing');
    expect(check(input({ tools: 'raw body missing' }), 'hygiene.output_schemas')).toMatchObject({ status: 'unknown', source: null, run_id: null, observed_at: null });
    expect(check(input({ tools: null }), 'hygiene.strict_input_schemas')).toMatchObject({ status: 'unknown', detail: 'no successful tools/list answer yet', source: null });
    expect(check(withTools([]), 'hygiene.descriptions')).toMatchObject({ status: 'unknown', detail: 'the latest answer listed no tool' });
  });
});

describe('qualityChecks: uptime and stability', () => {
  const h = (probes: number, ok: number) => input({ health: { probes, ok, fromDay: '2026-11-02', toDay: '2026-12-01' } });
  it('uptime passes at 95% of at least seven probes, fails below, is unknown with fewer', () => {
    expect(status(h(20, 19), 'liveness.uptime_30d')).toBe('pass'); // exactly 95%
    expect(status(h(40, 37), 'liveness.uptime_30d')).toBe('fail'); // 92.5%
    expect(check(h(20, 18), 'liveness.uptime_30d')).toMatchObject({ status: 'fail', detail: '18 of 20 probes ok (90%), 2026-11-02 to 2026-12-01' });
    expect(status(h(QUALITY_MIN_PROBES, QUALITY_MIN_PROBES), 'liveness.uptime_30d')).toBe('pass');
    expect(check(h(QUALITY_MIN_PROBES - 1, QUALITY_MIN_PROBES - 1), 'liveness.uptime_30d')).toMatchObject({ status: 'unknown', detail: '6 of 6 probes ok, 2026-11-02 to 2026-12-01: fewer than 7 probes', source: 'probes' });
    expect(check(input({ health: null }), 'liveness.uptime_30d')).toMatchObject({ status: 'unknown', source: null });
  });
  it('a breaking change inside the 30 days ending on the as-of day fails, one the day before the window does not', () => {
    const c = (day: string, breaking = true) => ({ day, id: `${day}-abc`, breaking });
    expect(check(input({ changes: [c('2026-11-02')] }), 'stability.no_breaking_change_30d')).toMatchObject({ status: 'fail', detail: '1 breaking change 2026-11-02 to 2026-12-01, the latest on 2026-11-02 (2026-11-02-abc)' });
    expect(status(input({ changes: [c('2026-11-01')] }), 'stability.no_breaking_change_30d')).toBe('pass');
    expect(status(input({ changes: [c('2026-11-20', false)] }), 'stability.no_breaking_change_30d')).toBe('pass');
    expect(check(input({ changes: [c('2026-11-03'), c('2026-11-30'), c('2026-11-10')] }), 'stability.no_breaking_change_30d').detail).toBe('3 breaking changes 2026-11-02 to 2026-12-01, the latest on 2026-11-30 (2026-11-30-abc)');
  });
  it('two breaking changes on the latest day: the detail names the first given', () => {
    const c = (day: string, id: string) => ({ day, id, breaking: true });
    expect(check(input({ changes: [c('2026-11-20', 'early'), c('2026-11-30', 'first'), c('2026-11-30', 'second')] }), 'stability.no_breaking_change_30d').detail).toBe('3 breaking changes 2026-11-02 to 2026-12-01, the latest on 2026-11-30 (first)');
    expect(check(input({ changes: [c('2026-11-30', 'second'), c('2026-11-30', 'first'), c('2026-11-20', 'early')] }), 'stability.no_breaking_change_30d').detail).toBe('3 breaking changes 2026-11-02 to 2026-12-01, the latest on 2026-11-30 (second)');
  });
  it('the window ends on the as-of day: a breaking change dated after it is not counted, one on it is', () => {
    const c = (day: string) => ({ day, id: `${day}-x`, breaking: true });
    expect(status(input({ changes: [c('2026-12-02')] }), 'stability.no_breaking_change_30d')).toBe('pass');
    expect(check(input({ changes: [c('2026-12-01'), c('2026-12-02')] }), 'stability.no_breaking_change_30d').detail).toBe('1 breaking change 2026-11-02 to 2026-12-01, the latest on 2026-12-01 (2026-12-01-x)');
  });
  it('a first observation after the as-of day reads as 0 days observed, never a negative count', () => {
    expect(check(input({ firstObservedDay: '2026-12-05' }), 'stability.no_breaking_change_30d').detail).toBe('no breaking change since 2026-12-05, but observed for 0 days, fewer than 30');
    // Near miss: first observed on the as-of day itself is one day.
    expect(check(input({ firstObservedDay: '2026-12-01' }), 'stability.no_breaking_change_30d').detail).toBe('no breaking change since 2026-12-01, but observed for 1 days, fewer than 30');
  });
  it('without a breaking change, fewer than 30 days of observation is unknown; 30 days pass', () => {
    expect(check(input({ firstObservedDay: '2026-11-03' }), 'stability.no_breaking_change_30d')).toMatchObject({ status: 'unknown', detail: 'no breaking change since 2026-11-03, but observed for 29 days, fewer than 30' });
    expect(status(input({ firstObservedDay: '2026-11-02' }), 'stability.no_breaking_change_30d')).toBe('pass');
    // A breaking change is a failure however short the observation.
    expect(status(input({ firstObservedDay: '2026-11-28', changes: [{ day: '2026-11-30', id: 'x', breaking: true }] }), 'stability.no_breaking_change_30d')).toBe('fail');
  });
});

describe('qualityChecks: the registry entry', () => {
  it('valid passes, invalid fails with the error count, an unknown schema or no entry is unknown', () => {
    expect(status(input(), 'registry.entry_valid')).toBe('pass');
    expect(check(input({ registry: { status: 'invalid', errorsTotal: 3, checkedAgainst: 'S', note: null } }), 'registry.entry_valid')).toMatchObject({ status: 'fail', detail: '3 errors against S', source: 'registry' });
    expect(check(input({ registry: { status: 'invalid', errorsTotal: 1, checkedAgainst: null, note: null } }), 'registry.entry_valid').detail).toBe('1 error against the schema it names');
    expect(check(input({ registry: { status: 'unknown_schema', errorsTotal: 0, checkedAgainst: null, note: 'no $schema' } }), 'registry.entry_valid')).toMatchObject({ status: 'unknown', detail: 'no $schema' });
    expect(status(input({ registry: null }), 'registry.entry_valid')).toBe('unknown');
  });
});
