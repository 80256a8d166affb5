// mcp-lock.json v1 read and written (src/lib mcp-lock.ts): the shape, one entry per name, each entry's
// set hash held to its own lines, re-pinning that keeps a hand-set fail_on, and the small helpers.
import { describe, expect, it } from 'vitest';
import { emptyLock, lockEntryProblem, lockFailOn, lockText, lockWith, McpLockError, parseSetLine, readLock, stableDays, type McpLockServer } from '../../src/lib/mcp-lock.ts';
import { setHashOfLines } from '../../src/lib/tool-definition-hash.ts';

const h = (c: string) => c.repeat(64);
function entry(name: string, tools: [string, string][], extra: Partial<McpLockServer> = {}): McpLockServer {
  const lines = tools.map(([n, x]) => ({ name: n, definition_sha256: x }));
  return {
    name,
    endpoint: 'https://example.com/mcp',
    set_sha256: setHashOfLines(lines.map((l) => ({ name: l.name, hash: l.definition_sha256 }))),
    tools: lines,
    pinned: { at: '2026-12-01T00:00:00.000Z', from: 'archive', archive: 'https://a.example/', descriptor_url: null, set_url: null, observed_at: null, first_seen: null, last_seen: null, stable_days: null },
    ...extra,
  };
}

describe('readLock', () => {
  it('reads back what lockText writes', () => {
    const lock = lockWith(emptyLock('https://a.example/api/schema/mcp-lock.v1.json'), [entry('b', [['t', h('1')]]), entry('a', [])]);
    expect(lock.servers.map((s) => s.name)).toEqual(['a', 'b']);
    expect(readLock(lockText(lock))).toEqual(lock);
    expect(lockText(lock).endsWith('}\n')).toBe(true);
  });

  it('refuses, in one sentence naming the entry: not JSON, another version, a wrong shape, a repeated name, a hash that is not its lines', () => {
    const good = lockWith(emptyLock(), [entry('a', [['t', h('1')]])]);
    const bad = (v: unknown) => () => readLock(JSON.stringify(v));
    expect(() => readLock('nope')).toThrow(McpLockError);
    expect(bad({ ...good, lock_version: 2 })).toThrow(/lock_version is 2/);
    expect(bad({ ...good, extra: 1 })).toThrow(/does not have the mcp-lock v1 shape: the file: Unrecognized key/);
    expect(bad({ ...good, servers: [{ ...good.servers[0], fail_on: 'LOUD' }] })).toThrow(/servers\.0\.fail_on/);
    expect(bad({ ...good, servers: [good.servers[0], good.servers[0]] })).toThrow(/names "a" twice \(servers\.1\)/);
    expect(bad({ ...good, servers: [{ ...good.servers[0], tools: [{ name: 't', definition_sha256: h('2') }] }] })).toThrow(/^servers\.0: its set_sha256 is not the set hash of its tools/);
  });
});

describe('lockEntryProblem', () => {
  it('is null when the lines make the hash, whatever their order; a sentence otherwise', () => {
    const e = entry('a', [['x', h('1')], ['y', h('2')]]);
    expect(lockEntryProblem(e)).toBeNull();
    expect(lockEntryProblem({ ...e, tools: [...e.tools].reverse() })).toBeNull();
    expect(lockEntryProblem({ ...e, tools: e.tools.slice(1) })).toMatch(/^its set_sha256 is not the set hash of its tools \(they hash to [0-9a-f]{64}\)/);
  });
});

describe('lockWith', () => {
  it("replaces an entry of the same name, keeping its fail_on unless the new one sets one, and keeps the others", () => {
    const lock = lockWith(emptyLock(), [entry('a', [], { fail_on: 'WARN' }), entry('b', [])]);
    const again = lockWith(lock, [entry('a', [['t', h('3')]])]);
    expect(again.servers.map((s) => [s.name, s.fail_on, s.tools.length])).toEqual([['a', 'WARN', 1], ['b', undefined, 0]]);
    expect(lockWith(lock, [entry('a', [], { fail_on: 'INFO' })]).servers[0]!.fail_on).toBe('INFO');
  });
});

describe('helpers', () => {
  it('stableDays counts whole days, null when missing or reversed', () => {
    expect(stableDays('2026-11-01T00:00:00Z', '2026-11-01T23:59:59Z')).toBe(0);
    expect(stableDays('2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z')).toBe(1);
    expect(stableDays(null, '2026-11-02T00:00:00Z')).toBeNull();
    expect(stableDays('2026-11-02T00:00:00Z', '2026-11-01T00:00:00Z')).toBeNull();
  });
  it('parseSetLine takes the last 64 hex digits as the hash', () => {
    expect(parseSetLine(`a:b:${h('c')}`)).toEqual({ name: 'a:b', hash: h('c') });
    expect(parseSetLine(`:${h('0')}`)).toEqual({ name: '', hash: h('0') });
    expect(parseSetLine(`a:${h('C')}`)).toBeNull();
    expect(parseSetLine(`a${h('0')}`)).toBeNull();
  });
  it('lockFailOn: the entry, the lock, the fallback', () => {
    expect(lockFailOn({ fail_on: 'WARN' }, { fail_on: 'INFO' })).toBe('INFO');
    expect(lockFailOn({ fail_on: 'WARN' }, {})).toBe('WARN');
    expect(lockFailOn({}, {})).toBe('ERR');
    expect(lockFailOn({}, {}, 'INFO')).toBe('INFO');
  });
});
