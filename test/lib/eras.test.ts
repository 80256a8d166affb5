// The era rules of methodology v2: what a server/discover answer says, the -32022 rule, revisions.
import { describe, expect, it } from 'vitest';
import {
  advertisesLegacy,
  definesProtocolVersionHeader,
  discoverVerdict,
  isLegacyRevision,
  modernErrorOf,
} from '../../src/lib/eras.ts';

const err = (code: number, data?: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, error: data === undefined ? { code, message: 'x' } : { code, message: 'x', data } });

describe('discoverVerdict(message, id)', () => {
  // Captured answers (v2-protocol notes §2, §8) and the study's Deviation 2.
  it.each([
    ['SDK v2 DiscoverResult', { jsonrpc: '2.0', id: 1, result: { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, resultType: 'complete', ttlMs: 0, cacheScope: 'private' } }, { kind: 'result', supportedVersions: ['2026-07-28'] }],
    ['a dual-era advertisement', { jsonrpc: '2.0', id: 1, result: { supportedVersions: ['2026-07-28', '2025-11-25', 7] } }, { kind: 'result', supportedVersions: ['2026-07-28', '2025-11-25'] }],
    ['-32020 HeaderMismatch (id null)', err(-32020, undefined, null), { kind: 'rejected', error: { code: -32020, supportedVersions: null } }],
    ['-32021 MissingRequiredClientCapability', err(-32021, { requiredCapabilities: {} }), { kind: 'rejected', error: { code: -32021, supportedVersions: null } }],
    ['-32022 naming only a modern revision we do not speak', err(-32022, { supported: ['2027-01-01'], requested: '2026-07-28' }), { kind: 'rejected', error: { code: -32022, supportedVersions: ['2027-01-01'] } }],
    ['-32022 naming 2026-07-28 itself (self-contradictory: recorded as rejected)', err(-32022, { supported: ['2026-07-28'] }), { kind: 'rejected', error: { code: -32022, supportedVersions: ['2026-07-28'] } }],
  ])('%s is modern', (_l, msg, want) => {
    expect(discoverVerdict(msg, 1)).toEqual(want);
  });

  it.each([
    ['404 + -32601 (modern servers MUST implement discover: Deviation 2)', err(-32601, undefined, 1)],
    ['-32022 naming only legacy revisions', err(-32022, { supported: ['2025-11-25', '2025-06-18', '2025-03-26'], requested: '2026-07-28' })],
    ['-32022 naming a legacy and an unknown modern revision (any legacy → fall back)', err(-32022, { supported: ['2027-01-01', '2025-11-25'] })],
    ['-32022 naming a legacy draft (2024-10-07)', err(-32022, { supported: ['2024-10-07'] })],
    ['-32022 without a supported list', err(-32022)],
    ['-32022 with an empty supported list', err(-32022, { supported: [] })],
    ['SDK v1 stateful: -32000 "Server not initialized"', err(-32000, undefined, null)],
    ['SDK v1 stateless: -32000 "Unsupported protocol version"', err(-32000, undefined, null)],
    ['draft-era -32001 (also SDK v1 "Session not found")', err(-32001)],
    ['draft-era -32003', err(-32003)],
    ['draft-era -32004 (the draft UnsupportedProtocolVersion)', err(-32004, { supported: ['2027-01-01'] })],
    ['an empty result', { jsonrpc: '2.0', id: 1, result: {} }],
    ['a result for another id', { jsonrpc: '2.0', id: 9, result: { supportedVersions: ['2026-07-28'] } }],
    ['a modern error for another id', err(-32020, undefined, 9)],
    ['no JSON-RPC at all', undefined],
    ['JSON that is not JSON-RPC', { status: 'ok' }],
  ])('%s falls back to initialize', (_l, msg) => {
    expect(discoverVerdict(msg, 1).kind).toBe('fallback');
  });
});

describe('modernErrorOf(message, id)', () => {
  it('applies the same -32022 rule to an initialize answer', () => {
    expect(modernErrorOf(err(-32022, { supported: ['2026-07-28'], requested: '2025-11-25' }), 1)).toEqual({ code: -32022, supportedVersions: ['2026-07-28'] });
    expect(modernErrorOf(err(-32022, { supported: ['2025-03-26', '2024-11-05'] }), 1)).toBeNull();
    expect(modernErrorOf(err(-32602, { supported: ['2026-07-28'] }), 1)).toBeNull();
  });
  it('clips a hostile supported list (strings only, 32 of 64 characters at most)', () => {
    const got = modernErrorOf(err(-32022, { supported: ['x'.repeat(100), ...Array(40).fill('2027-01-01'), null] }), 1)!;
    expect(got.supportedVersions).toHaveLength(32);
    expect(got.supportedVersions![0]).toHaveLength(64);
  });
});

describe('revisions', () => {
  it.each([
    ['2024-11-05', true],
    ['2025-03-26', true],
    ['2025-06-18', true],
    ['2025-11-25', true],
    ['2024-10-07', true],
    ['2026-07-28', false],
    ['2027-01-01', false],
    ['1.0.0', false],
    ['', false],
  ])('isLegacyRevision(%s) is %s', (v, want) => expect(isLegacyRevision(v)).toBe(want));

  it.each([
    ['2025-03-26', false],
    ['2024-11-05', false],
    ['2025-06-18', true],
    ['2025-11-25', true],
    ['garbage', false],
  ])('definesProtocolVersionHeader(%s) is %s', (v, want) => expect(definesProtocolVersionHeader(v)).toBe(want));

  it('advertisesLegacy: dual-era as advertised (a lower bound)', () => {
    expect(advertisesLegacy('modern', ['2026-07-28', '2025-11-25'])).toBe(true);
    expect(advertisesLegacy('modern', ['2026-07-28'])).toBe(false); // SDK v2 dual-era servers look like this
    expect(advertisesLegacy('legacy', ['2025-11-25'])).toBe(false);
    expect(advertisesLegacy('modern', null)).toBe(false);
  });
});

describe('discoverVerdict: the reason a fallback records', () => {
  it.each([
    ['a JSON-RPC error names its code', err(-32601), 'json-rpc error -32601'],
    ['an error with a string code has no code', { jsonrpc: '2.0', id: 1, error: { code: '-32020', message: 'x' } }, 'json-rpc error without a code'],
    ['an error with a fractional code has no code', { jsonrpc: '2.0', id: 1, error: { code: -32020.5, message: 'x' } }, 'json-rpc error without a code'],
    ['an error without a code', { jsonrpc: '2.0', id: 1, error: { message: 'x' } }, 'json-rpc error without a code'],
    ['an error to another id is no answer to ours', err(-32601, undefined, 9), 'json that is not a discover result'],
    ['JSON that is not JSON-RPC', { status: 'ok' }, 'json that is not a discover result'],
    ['no JSON at all', undefined, 'no json-rpc answer'],
    ['a JSON string', 'Not Found', 'no json-rpc answer'],
  ])('%s', (_what, msg, reason) => {
    expect(discoverVerdict(msg, 1)).toEqual({ kind: 'fallback', reason });
  });
  it('reads an error without an id as an answer to ours (the server could not read it), like id null', () => {
    expect(discoverVerdict({ jsonrpc: '2.0', error: { code: -32020, message: 'x' } }, 1)).toEqual({ kind: 'rejected', error: { code: -32020, supportedVersions: null } });
    expect(discoverVerdict({ jsonrpc: '2.0', error: { code: -32601, message: 'x' } }, 1)).toEqual({ kind: 'fallback', reason: 'json-rpc error -32601' });
    expect(modernErrorOf({ jsonrpc: '2.0', error: { code: -32021, message: 'x' } }, 1)).toEqual({ code: -32021, supportedVersions: null });
  });
});

describe('revisions are whole dates', () => {
  it.each([
    ['a date with text before it', '1 2024-10-07'],
    ['a date with text after it', '2024-10-07x'],
  ])('%s is not a legacy revision and defines no header', (_what, v) => {
    expect(isLegacyRevision(v)).toBe(false);
    expect(definesProtocolVersionHeader(v.replace('2024-10-07', '2025-06-18'))).toBe(false);
  });
});
