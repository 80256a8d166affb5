// badgeText(server, asOfDay) and serverBadge(text): what the README badge says, and that it is an SVG
// that names itself.
import { describe, expect, it } from 'vitest';
import { badgeText, RECENT_DAYS, serverBadge } from '../../src/outputs/server-badge.ts';

const head = { toolsSha256: 'a'.repeat(64), bodySha256: 'b'.repeat(64), firstSeen: '2026-01-03T03:15:00.000Z', lastSeen: '2026-02-10T03:15:00.000Z', toolCount: 3 };
const server = { status: 'ok' as const, head, lastChange: null as string | null, lastOk: '2026-02-10T03:15:00.000Z', lastObserved: '2026-02-10T03:15:00.000Z' };

describe('badgeText(server, asOfDay)', () => {
  it('names the day of the first successful answer when nothing changed', () => {
    expect(badgeText(server, '2026-02-10')).toEqual({ label: 'MCP contract', status: 'unchanged since 2026-01-03', color: 'green' });
  });
  it('names the day of the last change when there was one, and the same text on a later day (it does not move with the runs)', () => {
    const changed = { ...server, lastChange: '2026-01-20T03:15:00.000Z', lastOk: '2026-01-31T03:15:00.000Z' };
    expect(badgeText(changed, '2026-02-10').status).toBe('unchanged since 2026-01-20');
    expect(badgeText({ ...changed, lastOk: '2026-02-10T03:15:00.000Z' }, '2026-02-11')).toEqual(badgeText(changed, '2026-02-10'));
  });
  it(`says "changed on DATE" for ${RECENT_DAYS} days after a change`, () => {
    expect(badgeText({ ...server, lastChange: '2026-02-04T03:15:00.000Z' }, '2026-02-10')).toEqual({ label: 'MCP contract', status: 'changed on 2026-02-04', color: 'blue' });
    expect(badgeText({ ...server, lastChange: '2026-02-03T03:15:00.000Z' }, '2026-02-10').status).toBe('unchanged since 2026-02-03');
  });
  it('says so for a server never seen answering and for one that left the registry', () => {
    expect(badgeText({ ...server, head: null, lastOk: null }, '2026-02-10').status).toBe('not observed yet');
    expect(badgeText({ ...server, status: 'retired', lastObserved: '2026-02-01T03:15:00.000Z' }, '2026-02-10').status).toBe('left the registry 2026-02-01');
  });
});

describe('serverBadge(text)', () => {
  it('is a standalone SVG whose accessible name is the whole badge', () => {
    const svg = serverBadge({ label: 'MCP contract', status: 'unchanged for 38 days', color: 'green' });
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain('aria-label="MCP contract: unchanged for 38 days"');
    expect(svg).toContain('<title>MCP contract: unchanged for 38 days</title>');
  });

  it('writes the same bytes every time, with every url(#id) pointing at an id of its own file', () => {
    const t = { label: 'MCP contract', status: 'changed on 2026-01-02', color: 'blue' };
    const a = serverBadge(t);
    expect(serverBadge(t)).toBe(a);
    const ids = [...a.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]);
    const refs = [...a.matchAll(/url\(#([^)]+)\)/g)].map((m) => m[1]);
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    expect(refs.length).toBeGreaterThan(0);
    for (const r of refs) expect(ids).toContain(r);
    // Another badge text, other ids (two badges inlined in one page cannot collide).
    const b = serverBadge({ ...t, status: 'unchanged for 3 days' });
    expect([...b.matchAll(/\bid="([^"]+)"/g)].some((m) => ids.includes(m[1]))).toBe(false);
  });
});
