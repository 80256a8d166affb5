// badgeText(server, asOfDay) and serverBadge(text): what the README badge says, and that it is an SVG
// that names itself.
import { describe, expect, it } from 'vitest';
import { badgeText, RECENT_DAYS, serverBadge } from '../../src/outputs/server-badge.ts';

const head = { toolsSha256: 'a'.repeat(64), bodySha256: 'b'.repeat(64), firstSeen: '2026-01-03T03:15:00.000Z', lastSeen: '2026-02-10T03:15:00.000Z', toolCount: 3 };
const server = { status: 'ok' as const, head, lastChange: null as string | null, lastOk: '2026-02-10T03:15:00.000Z', lastObserved: '2026-02-10T03:15:00.000Z' };

describe('badgeText(server, asOfDay)', () => {
  it('counts whole days unchanged from the first successful answer to the last one', () => {
    expect(badgeText(server, '2026-02-10')).toEqual({ label: 'MCP contract', status: 'unchanged for 38 days', color: 'green' });
  });
  it('counts from the last change when there was one, and stops at the last successful answer', () => {
    expect(badgeText({ ...server, lastChange: '2026-01-20T03:15:00.000Z', lastOk: '2026-01-31T03:15:00.000Z' }, '2026-02-10').status).toBe('unchanged for 11 days');
  });
  it(`says "changed on DATE" for ${RECENT_DAYS} days after a change`, () => {
    expect(badgeText({ ...server, lastChange: '2026-02-04T03:15:00.000Z' }, '2026-02-10')).toEqual({ label: 'MCP contract', status: 'changed on 2026-02-04', color: 'blue' });
    expect(badgeText({ ...server, lastChange: '2026-02-03T03:15:00.000Z' }, '2026-02-10').status).toBe('unchanged for 7 days');
  });
  it('says so for a server never seen answering and for one that left the registry', () => {
    expect(badgeText({ ...server, head: null, lastOk: null }, '2026-02-10').status).toBe('not observed yet');
    expect(badgeText({ ...server, status: 'retired', lastObserved: '2026-02-01T03:15:00.000Z' }, '2026-02-10').status).toBe('left the registry 2026-02-01');
  });
  it('writes 1 day, not 1 days', () => {
    expect(badgeText({ ...server, lastOk: '2026-01-04T03:15:00.000Z' }, '2026-01-04').status).toBe('unchanged for 1 day');
  });
});

describe('serverBadge(text)', () => {
  it('is a standalone SVG whose accessible name is the whole badge', () => {
    const svg = serverBadge({ label: 'MCP contract', status: 'unchanged for 38 days', color: 'green' });
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain('aria-label="MCP contract: unchanged for 38 days"');
    expect(svg).toContain('<title>MCP contract: unchanged for 38 days</title>');
  });
});
