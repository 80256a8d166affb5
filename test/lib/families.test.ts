// Contract families (src/lib/families.ts): template keys from tenant-normalised contracts, families as
// day ranges of shared keys that follow joint changes, and the per-name figures counted once per family.
import { describe, expect, it } from 'vitest';
import { detectDrift } from '../../src/lib/detect-drift.ts';
import { contractFamilies, familyNote, familyOnce, familyOnceChanged, familyOnceDrifts, normaliseTenant, platformOf, templateKey, tenantWords, type KeyedInterval } from '../../src/lib/families.ts';
import type { FirstChangeInterval } from '../../src/lib/first-change-intervals.ts';
import { halfLife } from '../../src/lib/survival/half-life.ts';
import { kaplanMeier } from '../../src/lib/survival/kaplan-meier.ts';
import { volatility } from '../../src/lib/volatility.ts';

const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);
/** A documentation template's tools as it writes them for one tenant; `v2` is the platform's next release. */
const docsTools = (tenant: string, v2 = false) => [
  { name: `search_${tenant}`, description: `Search the ${cap(tenant)} docs`, inputSchema: { type: 'object', properties: { query: { type: 'string', description: `What to find in ${cap(tenant)}'s pages` }, ...(v2 ? { limit: { type: 'integer' } } : {}) } } },
  { name: 'get_page', title: `${cap(tenant)} page`, description: 'Reads one page.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
];

describe('templateKey', () => {
  it('takes tenant words from the name, the path and the host below the platform, never stopwords or the platform', () => {
    expect(tenantWords('io.github.acme-corp/docs', 'https://acme.mintlify.app/mcp')).toEqual(['acmecorp', 'acme', 'corp']);
    expect(tenantWords('com.example/x', 'https://mcp.platform.dev/t/initech/mcp')).toEqual(['example', 'initech']);
    // Markup and regex metacharacters are not words: they split tokens, so the pattern never sees them.
    expect(tenantWords('io.github.evil/(a+)+$<script>', null)).toEqual(['ascript', 'script', 'evil']);
    expect(normaliseTenant('search_acme: the ACME docs, not acmetrics', ['acme'])).toBe('search_{tenant}: the {tenant} docs, not acmetrics');
    expect(platformOf('https://acme.mintlify.app:8443/mcp', ['acme'])).toBe('{tenant}.mintlify.app');
  });

  it('gives every tenant of one template the same key, and the key moves with the template', () => {
    const a = templateKey('io.github.acme/docs', 'https://acme.mintlify.app/mcp', docsTools('acme'));
    const g = templateKey('io.github.globex/docs', 'https://globex.mintlify.app/mcp', docsTools('globex'));
    expect(a).not.toBeNull();
    expect(g).toEqual(a);
    expect(a!.platform).toBe('{tenant}.mintlify.app');
    expect(templateKey('io.github.acme/docs', 'https://acme.mintlify.app/mcp', docsTools('acme', true))!.key).not.toBe(a!.key);
  });

  it('near misses: the same echo tool on two hosts, two tenants whose contracts differ, a tenant on another platform', () => {
    const echo = [{ name: 'echo', description: 'Echoes.', inputSchema: { type: 'object' } }];
    expect(templateKey('io.github.alpha/echo-one', 'https://alpha.example.com/mcp', echo)!.key).not.toBe(templateKey('io.github.beta/echo-two', 'https://beta.example.org/mcp', echo)!.key);
    expect(templateKey('io.github.wayne/docs', 'https://wayne.mintlify.app/mcp', [...docsTools('wayne'), { name: 'batcave' }])!.key).not.toBe(templateKey('io.github.stark/docs', 'https://stark.mintlify.app/mcp', docsTools('stark'))!.key);
    expect(templateKey('io.github.acme/docs', 'https://acme.gitbook.io/mcp', docsTools('acme'))!.key).not.toBe(templateKey('io.github.globex/docs', 'https://globex.mintlify.app/mcp', docsTools('globex'))!.key);
  });

  it('has no key without an endpoint or for a contract canonicalJson refuses', () => {
    expect(templateKey('io.github.acme/docs', null, docsTools('acme'))).toBeNull();
    let deep: unknown = 'x';
    for (let k = 0; k < 300; k++) deep = [deep];
    expect(templateKey('io.github.acme/docs', 'https://acme.mintlify.app/mcp', [{ name: 'a', deep }])).toBeNull();
    expect(templateKey('io.github.acme/docs', 'https://acme.mintlify.app/mcp', [{ name: 'a', n: Number.NaN }])).toBeNull();
  });
});

/** One keyed interval: held from `start` to `end` (an event: the next contract starts on `end`). */
function iv(target: string, key: string | null, start: string, end: string, event: boolean): KeyedInterval {
  const duration = Math.round((Date.parse(end) - Date.parse(start)) / 86_400_000);
  return { target, tools_sha256: `${target}-${key}`.padEnd(64, '0'), start_day: start, end_day: end, duration, event, retired: false, key, platform: key === null ? null : 'p' };
}
const K1 = '1'.repeat(64);
const K2 = '2'.repeat(64);
const K3 = '3'.repeat(64);

describe('contractFamilies', () => {
  // acme, globex and initech share K1 from day 1; all move to K2 on day 4; initech leaves for its own K3 on day 7.
  const intervals = ['acme', 'globex', 'initech'].flatMap((t) => [
    iv(t, K1, '2026-01-01', '2026-01-04', true),
    ...(t === 'initech' ? [iv(t, K2, '2026-01-04', '2026-01-07', true), iv(t, K3, '2026-01-07', '2026-01-10', false)] : [iv(t, K2, '2026-01-04', '2026-01-10', false)]),
  ]);

  it('is one family that follows its members across a joint change, and a member that leaves it leaves from that day', () => {
    const [f, ...rest] = contractFamilies(intervals);
    expect(rest).toEqual([]);
    expect(f!.id).toBe(K1.slice(0, 16));
    expect(f!.keys).toEqual([K1, K2]);
    expect(f!.members).toEqual(['acme', 'globex', 'initech']);
    expect([f!.first_day, f!.last_day, f!.size]).toEqual(['2026-01-01', '2026-01-10', 2]);
    expect(f!.memberships.map((m) => [m.target, m.first_day, m.last_day, m.open])).toEqual([
      ['acme', '2026-01-01', '2026-01-10', true],
      ['globex', '2026-01-01', '2026-01-10', true],
      ['initech', '2026-01-01', '2026-01-06', false],
    ]);
    // Three members changed on day 4 (joint), initech alone on day 7.
    expect([f!.changes, f!.joint_days, f!.joint_changes]).toEqual([4, 1, 3]);
  });

  it('near misses: a key held by one target is no family; one member moving alone does not link two families', () => {
    expect(contractFamilies([iv('solo', K1, '2026-01-01', '2026-01-05', false), iv('other', K2, '2026-01-01', '2026-01-05', false)])).toEqual([]);
    // Two targets hold the same key on days that do not meet: no day shared, no family.
    expect(contractFamilies([iv('early', K1, '2026-01-01', '2026-01-03', false), iv('late', K1, '2026-01-04', '2026-01-05', false)])).toEqual([]);
    const twoFamilies = contractFamilies([
      iv('a', K1, '2026-01-01', '2026-01-04', true), iv('a', K2, '2026-01-04', '2026-01-06', false),
      iv('b', K1, '2026-01-01', '2026-01-06', false),
      iv('c', K2, '2026-01-01', '2026-01-06', false), iv('d', K2, '2026-01-01', '2026-01-06', false),
    ]);
    expect(twoFamilies.map((f) => [f.id, f.members])).toEqual([[K1.slice(0, 16), ['a', 'b']], [K2.slice(0, 16), ['a', 'c', 'd']]]);
  });

  it('keeps one held range across a change of tenant words only, and skips contracts without a key', () => {
    const f = contractFamilies([
      iv('a', K1, '2026-01-01', '2026-01-03', true), iv('a', K1, '2026-01-03', '2026-01-05', false),
      iv('b', K1, '2026-01-01', '2026-01-05', false),
      iv('c', null, '2026-01-01', '2026-01-05', false),
    ]);
    expect(f.map((x) => [x.members, x.changes])).toEqual([[['a', 'b'], 0]]);
  });
});

/** First-change intervals as firstChangeOf gives them. */
const fc = (target: string, start: string, end: string, event: boolean): FirstChangeInterval => ({ ...iv(target, null, start, end, event), observed_days: 9 });

describe('familyOnce', () => {
  // Six tenants of one template change on day 4 (first day 0); two echo servers and wayne stay put
  // until stark changes on day 6 and wayne on day 8: the world of the loader's test, by hand.
  const tenants = ['acme', 'globex', 'hooli', 'initech', 'soylent', 'umbrella'];
  const base = '2026-01-01';
  const intervals = tenants.flatMap((t) => [iv(t, K1, base, '2026-01-05', true), iv(t, K2, '2026-01-05', '2026-01-10', false)]);
  const families = contractFamilies(intervals);
  const first = [
    ...tenants.map((t) => fc(t, base, '2026-01-05', true)),
    fc('echo-one', base, '2026-01-10', false), fc('echo-two', base, '2026-01-10', false),
    fc('stark', base, '2026-01-07', true), fc('wayne', base, '2026-01-09', true),
  ];

  it('counts the family once, as its earliest member, and the half-life moves from 4 to 8 days', () => {
    const once = familyOnce(families, first);
    expect(once.intervals.map((i) => i.target)).toEqual(['acme', 'echo-one', 'echo-two', 'stark', 'wayne']);
    expect([...once.unitOf.keys()]).toEqual(tenants);
    const perName = kaplanMeier(first.map((i) => i.duration), first.map((i) => i.event));
    const familyOnceKm = kaplanMeier(once.intervals.map((i) => i.duration), once.intervals.map((i) => i.event));
    // Per name: 6 of 10 change at 4 days, S = 0.4. Once: 1 of 5 at 4 (0.8), 1 of 4 at 6 (0.6), 1 of 3 at 8 (0.4).
    expect(halfLife(perName)!.median).toBe(4);
    expect(halfLife(familyOnceKm)!.median).toBe(8);
    expect(familyOnceKm.map((r) => [r.time, r.atRisk, r.survival])).toEqual([[4, 5, 0.8], [6, 4, 0.8 * 0.75], [8, 3, 0.8 * 0.75 * (1 - 1 / 3)], [9, 2, 0.8 * 0.75 * (1 - 1 / 3)]]);
    expect(once.largest).toEqual({ family: K1.slice(0, 16), platform: 'p', events: 6, total: 8, share: 0.75 });
    expect(familyNote(once.largest, 'first changes')).toBe('6 of the 8 first changes behind this figure (75%) came from one contract family: servers of one template that change on the same day.');
  });

  it('near miss: a tenant that joined the template after its own first contract counts as itself', () => {
    const late = [...intervals.filter((i) => i.target !== 'soylent'), iv('soylent', K3, base, '2026-01-03', true), iv('soylent', K1, '2026-01-03', '2026-01-05', true), iv('soylent', K2, '2026-01-05', '2026-01-10', false)];
    const once = familyOnce(contractFamilies(late), [...first.filter((i) => i.target !== 'soylent'), fc('soylent', base, '2026-01-03', true)]);
    expect(once.unitOf.has('soylent')).toBe(false);
    expect(once.intervals.map((i) => i.target)).toContain('soylent');
  });

  it('says nothing below a quarter of the events', () => {
    expect(familyNote({ family: 'f', platform: 'p', events: 24, total: 100, share: 0.24 }, 'changes')).toBeNull();
    expect(familyNote({ family: 'f', platform: 'p', events: 25, total: 100, share: 0.25 }, 'changes')).toMatch(/^25 of the 100 changes .* \(25%\)/);
    expect(familyNote(null, 'changes')).toBeNull();
  });
});

describe('familyOnceDrifts', () => {
  const row = (target: string, day: string, h: string) => ({ target, outcome: 'ok' as const, day, observed_at: `${day}T06:00:00Z`, run_id: `r-${day}`, tools_sha256: h.repeat(64), body_sha256: h.repeat(64) });
  const days = ['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-04', '2026-01-05'];
  // a and b change jointly on day 3 (a member's change); b changes again alone on day 5 after leaving; c changes twice on its own.
  const drifts = [
    detectDrift(days.map((d) => row('a', d, d < '2026-01-03' ? 'a' : 'b'))),
    detectDrift(days.map((d) => row('b', d, d < '2026-01-03' ? 'c' : d < '2026-01-05' ? 'd' : 'e'))),
    detectDrift(days.map((d) => row('c', d, d === '2026-01-02' || d === '2026-01-03' ? 'f' : 'g'))),
  ];
  const families = contractFamilies([
    iv('a', K1, '2026-01-01', '2026-01-03', true), iv('a', K2, '2026-01-03', '2026-01-05', false),
    iv('b', K1, '2026-01-01', '2026-01-03', true), iv('b', K2, '2026-01-03', '2026-01-05', true), iv('b', K3, '2026-01-05', '2026-01-05', false),
  ]);

  it('counts a joint change once for the family; a change after leaving, and other servers, stay their own', () => {
    const perName = volatility(drifts);
    expect([perName.changes, perName.volatile]).toEqual([5, [{ target: 'b', changes: 2 }, { target: 'c', changes: 2 }]]);
    const once = familyOnceDrifts(families, drifts);
    const v = volatility(once.drifts);
    expect([v.changes, v.volatile]).toEqual([4, [{ target: 'c', changes: 2 }]]);
    expect(v.perTarget.find((t) => t.target === `family:${K1.slice(0, 16)}`)).toEqual({ target: `family:${K1.slice(0, 16)}`, changes: 1 });
    expect(once.largest).toMatchObject({ events: 2, total: 5, share: 0.4 });
  });
});

describe('familyOnceChanged', () => {
  // Six tenants of one template hold K1 from day 1 and move to K2 together on day 5; stark changes alone
  // on day 7; acme (a member) changes alone on day 9, after the joint change, so that one is its own.
  const tenants = ['acme', 'globex', 'hooli', 'initech', 'soylent', 'umbrella'];
  const families = contractFamilies(tenants.flatMap((t) => [iv(t, K1, '2026-01-01', '2026-01-05', true), iv(t, K2, '2026-01-05', '2026-01-12', false)]));
  const changes = [...tenants.map((target) => ({ target, day: '2026-01-05' })), { target: 'stark', day: '2026-01-07' }, { target: 'acme', day: '2026-01-09' }];

  it('counts the joint change once: 7 servers moved in 7 days, 2 units; one family made 6 of the 7', () => {
    const w = familyOnceChanged(families, changes, '2026-01-11', 7);
    expect([w.servers, w.units]).toEqual([7, 2]);
    expect(w.largest).toEqual({ family: K1.slice(0, 16), platform: 'p', events: 6, total: 7, share: 6 / 7 });
    expect(familyNote(w.largest, 'servers that changed')).toMatch(/^6 of the 7 servers that changed behind this figure \(86%\)/);
  });

  it('window edges: the joint day just outside the window leaves only own changes; asOfDay null counts nothing', () => {
    // 2026-01-11 back 6 days is 2026-01-06: the joint day (01-05) is out, acme's solo change (01-09) and stark's are in.
    const w = familyOnceChanged(families, changes, '2026-01-11', 6);
    expect([w.servers, w.units, w.largest]).toEqual([2, 2, null]);
    // A window ending before a change does not count it.
    expect(familyOnceChanged(families, changes, '2026-01-06', 1)).toEqual({ servers: 0, units: 0, largest: null });
    expect(familyOnceChanged(families, changes, null, 30)).toEqual({ servers: 0, units: 0, largest: null });
  });

  it('near misses: two members changing on different days are two units; servers in no family count as themselves', () => {
    const apart = [{ target: 'acme', day: '2026-01-05' }, { target: 'globex', day: '2026-01-06' }, { target: 'echo-one', day: '2026-01-06' }];
    const w = familyOnceChanged(families, apart, '2026-01-11', 30);
    expect([w.servers, w.units, w.largest]).toEqual([3, 3, null]);
    expect(familyOnceChanged([], changes, '2026-01-11', 30)).toMatchObject({ servers: 7, units: 7, largest: null });
  });
});
