// Contract families (src/lib/families.ts): template keys from tenant-normalised contracts, families as
// day ranges of shared keys that follow joint changes, and the per-name figures counted once per family.
import { describe, expect, it } from 'vitest';
import { detectDrift } from '../../src/lib/detect-drift.ts';
import { contractFamilies, familyNote, familyOnce, familyOnceChanged, familyOnceDrifts, normaliseTenant, platformOf, templateKey, tenantWords, type Family, type KeyedInterval } from '../../src/lib/families.ts';
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

// The definition's edges, one rule at a time (methodology, "Contract families").
describe('tenant words and template keys at their edges', () => {
  it('never takes a stopword; keeps three-letter words and words with digits, drops all-digit ones', () => {
    // The stopword list written out here, not read from the module: a word dropped from it shows.
    const stop = ['api', 'app', 'com', 'dev', 'docs', 'documentation', 'github', 'gitlab', 'http', 'https', 'mcp', 'net', 'org', 'remote', 'search', 'server', 'servers', 'sse', 'the', 'tools', 'www'];
    expect(tenantWords(stop.join('.'), null)).toEqual([]);
    expect(tenantWords(`${stop.join('/')}/acme`, null)).toEqual(['acme']);
    expect(tenantWords('io.github.here/was', null)).toEqual(['here', 'was']);
    expect(tenantWords('com.example/ibm', null)).toEqual(['example', 'ibm']);
    expect(tenantWords('io.github.acme2/3scale/2024', null)).toEqual(['3scale', 'acme2']);
  });

  it('keeps at most 64 words, longest first then by code units', () => {
    const name = Array.from({ length: 70 }, (_, k) => `w${String(k).padStart(3, '0')}`).join('.');
    const words = tenantWords(name, null);
    expect(words).toHaveLength(64);
    expect([words[0], words[63]]).toEqual(['w000', 'w063']);
  });

  it('never takes a word of the platform (the host\'s last two labels), and takes every host label below them', () => {
    expect(tenantWords('io.github.mintlify/acme', 'https://acme.mintlify.app/mcp')).toEqual(['acme']);
    // The platform label's words joined ('my-host' → 'myhost') are not a tenant's either.
    expect(tenantWords('io.github.acme/x', 'https://acme.my-host.app/')).toEqual(['acme']);
    expect(tenantWords('io.github.x/y', 'https://eu.west.initech.platform.app/')).toEqual(['initech', 'west']);
  });

  it('an endpoint that is not a URL gives no words, no platform and no key; no endpoint gives no platform', () => {
    expect(tenantWords('io.github.acme/docs', 'not a url')).toEqual(['acme']);
    expect(platformOf('not a url', ['acme'])).toBe('');
    expect(platformOf(null, [])).toBe('');
    expect(templateKey('io.github.acme/docs', 'not a url', docsTools('acme'))).toBeNull();
  });

  it('normalises every listed word, and nothing without words', () => {
    expect(normaliseTenant('a - b: acme, globex', [])).toBe('a - b: acme, globex');
    expect(normaliseTenant('acme and globex', ['globex', 'acme'])).toBe('{tenant} and {tenant}');
  });

  it('makes a key for tools nested exactly as deep as canonicalJson allows, and none one level deeper', () => {
    const nest = (n: number) => {
      let v: unknown = 'x';
      for (let k = 0; k < n; k++) v = [v];
      return v;
    };
    // tools is level 1, its element level 2: 254 arrays put the string at level 256.
    expect(templateKey('io.github.acme/docs', 'https://acme.mintlify.app/mcp', [nest(254)])).not.toBeNull();
    expect(templateKey('io.github.acme/docs', 'https://acme.mintlify.app/mcp', [nest(255)])).toBeNull();
  });
});

/** A keyed interval on a named platform. */
const ivp = (target: string, key: string | null, start: string, end: string, event: boolean, platform: string | null): KeyedInterval => ({ ...iv(target, key, start, end, event), platform });
const row4 = (f: { target: string; first_day: string; last_day: string; open: boolean }) => [f.target, f.first_day, f.last_day, f.open];

describe('contractFamilies at its edges', () => {
  it('is membership only on days the key is shared: a gap in holding it, or days left alone with it, are not', () => {
    const [f, ...rest] = contractFamilies([
      iv('a', K1, '2026-01-01', '2026-01-03', false), iv('a', K1, '2026-01-06', '2026-01-08', false),
      iv('b', K1, '2026-01-01', '2026-01-10', false),
    ]);
    expect(rest).toEqual([]);
    expect(f!.memberships.map(row4)).toEqual([
      ['a', '2026-01-01', '2026-01-03', false], ['a', '2026-01-06', '2026-01-08', true],
      ['b', '2026-01-01', '2026-01-03', false], ['b', '2026-01-06', '2026-01-08', false],
    ]);
    expect([f!.first_day, f!.last_day, f!.size, f!.changes]).toEqual(['2026-01-01', '2026-01-08', 1, 0]);
  });

  it('keeps the id and key order of the first key shared, membership from the day a member first shares it, the platform of the latest key', () => {
    const KB = '9'.repeat(64); // shared first, though it sorts after KA by code units
    const KA = '1'.repeat(64);
    const fams = contractFamilies([
      ivp('z', KA, '2026-01-05', '2026-01-10', false, 'new.example'),
      ...['x', 'y', 'w'].flatMap((t, k) => [ivp(t, KB, `2026-01-0${k + 1}`, '2026-01-05', true, 'old.example'), ivp(t, KA, '2026-01-05', '2026-01-10', false, 'new.example')]),
    ]);
    expect(fams).toHaveLength(1);
    const f = fams[0]!;
    expect([f.id, f.keys, f.platform, f.members]).toEqual([KB.slice(0, 16), [KB, KA], 'new.example', ['w', 'x', 'y', 'z']]);
    // x held KB alone on day 1: it is a member from day 2, when y joined; w from day 3.
    expect(f.memberships.map(row4)).toEqual([
      ['w', '2026-01-03', '2026-01-10', true], ['x', '2026-01-02', '2026-01-10', true],
      ['y', '2026-01-02', '2026-01-10', true], ['z', '2026-01-05', '2026-01-10', true],
    ]);
    expect([f.first_day, f.last_day, f.size, f.changes, f.joint_days, f.joint_changes]).toEqual(['2026-01-02', '2026-01-10', 4, 3, 1, 3]);
  });

  it('takes the platform of the key shared last even when it sorts first by code units', () => {
    const [f] = contractFamilies(['a', 'b'].flatMap((t) => [ivp(t, K1, '2026-01-01', '2026-01-04', true, 'old.example'), ivp(t, K3, '2026-01-04', '2026-01-08', false, 'new.example')]));
    expect([f!.keys, f!.platform]).toEqual([[K1, K3], 'new.example']);
  });

  it('two members moving together link the keys and make a joint day of two', () => {
    const fams = contractFamilies(['a', 'b'].flatMap((t) => [iv(t, K1, '2026-01-01', '2026-01-04', true), iv(t, K2, '2026-01-04', '2026-01-08', false)]));
    expect(fams.map((f) => [f.id, f.keys, f.changes, f.joint_days, f.joint_changes])).toEqual([[K1.slice(0, 16), [K1, K2], 2, 1, 2]]);
  });

  it('near misses: a move through a keyless contract, or after a censored end, does not link the keys', () => {
    const through = contractFamilies(['a', 'b'].flatMap((t) => [iv(t, K1, '2026-01-01', '2026-01-03', true), iv(t, null, '2026-01-03', '2026-01-05', true), iv(t, K2, '2026-01-05', '2026-01-08', false)]));
    expect(through.map((f) => [f.keys, f.first_day, f.last_day])).toEqual([[[K1], '2026-01-01', '2026-01-02'], [[K2], '2026-01-05', '2026-01-08']]);
    const censored = contractFamilies(['a', 'b'].flatMap((t) => [iv(t, K1, '2026-01-01', '2026-01-03', false), iv(t, K2, '2026-01-04', '2026-01-08', false)]));
    expect(censored.map((f) => f.keys)).toEqual([[K1], [K2]]);
  });

  it('a contract held on no whole day is skipped: the members moving across it still link the keys', () => {
    const fams = contractFamilies([
      iv('a', K1, '2026-01-01', '2026-01-03', true), iv('a', K3, '2026-01-03', '2026-01-03', true), iv('a', K2, '2026-01-03', '2026-01-08', false),
      iv('b', K1, '2026-01-01', '2026-01-03', true), iv('b', K2, '2026-01-03', '2026-01-08', false),
    ]);
    expect(fams.map((f) => [f.keys, f.members, f.changes])).toEqual([[[K1, K2], ['a', 'b'], 2]]);
  });

  it('a member leaving for a keyless contract leaves that day; no interval without a key or a platform is in a family', () => {
    const [f, ...rest] = contractFamilies([
      iv('a', K1, '2026-01-01', '2026-01-04', true), iv('a', null, '2026-01-04', '2026-01-08', false),
      iv('b', K1, '2026-01-01', '2026-01-08', false), iv('c', K1, '2026-01-01', '2026-01-08', false),
      ivp('d', null, '2026-01-01', '2026-01-08', false, 'p'), ivp('e', null, '2026-01-01', '2026-01-08', false, 'p'),
      ivp('g', K2, '2026-01-01', '2026-01-08', false, null), ivp('h', K2, '2026-01-01', '2026-01-08', false, null),
      iv('i', null, '2026-01-01', '2026-01-08', false), iv('j', null, '2026-01-01', '2026-01-08', false),
    ]);
    expect(rest).toEqual([]);
    expect(f!.memberships.map(row4)).toEqual([['a', '2026-01-01', '2026-01-03', false], ['b', '2026-01-01', '2026-01-08', true], ['c', '2026-01-01', '2026-01-08', true]]);
    expect([f!.changes, f!.joint_days]).toEqual([1, 0]);
  });

  it('is not open for a last contract that ended in a change or for the one left alone with the key; counts only changes made as a member', () => {
    const [f, ...rest] = contractFamilies([
      iv('a', K1, '2026-01-01', '2026-01-05', true), // its last interval ends in a change
      iv('b', K1, '2026-01-01', '2026-01-03', true), iv('b', K2, '2026-01-03', '2026-01-06', true), iv('b', K3, '2026-01-06', '2026-01-08', false), // changes again after leaving
      iv('c', K1, '2026-01-01', '2026-01-08', false), // alone with K1 from day 5
      // d joins on day 4 (that change is not a member's) and leaves on day 5 (a member the day before).
      iv('d', '7'.repeat(64), '2026-01-01', '2026-01-04', true), iv('d', K1, '2026-01-04', '2026-01-05', true), iv('d', '8'.repeat(64), '2026-01-05', '2026-01-08', false),
    ]);
    expect(rest).toEqual([]);
    expect(f!.memberships.map(row4)).toEqual([
      ['a', '2026-01-01', '2026-01-04', false], ['b', '2026-01-01', '2026-01-02', false],
      ['c', '2026-01-01', '2026-01-04', false], ['d', '2026-01-04', '2026-01-04', false],
    ]);
    // Day 3: b; day 5: a and d (joint). Not d's change on day 4, nor b's on day 6.
    expect([f!.size, f!.changes, f!.joint_days, f!.joint_changes]).toEqual([0, 3, 1, 2]);
  });

  it('a change of tenant words only keeps one held range to its end: open when it is the last, not when a later contract follows', () => {
    const [f] = contractFamilies([iv('a', K1, '2026-01-01', '2026-01-03', true), iv('a', K1, '2026-01-03', '2026-01-05', false), iv('b', K1, '2026-01-01', '2026-01-05', false)]);
    expect(f!.memberships.map(row4)).toEqual([['a', '2026-01-01', '2026-01-05', true], ['b', '2026-01-01', '2026-01-05', true]]);
    // a's K1 ends censored on day 5 and a later contract (K2) follows: no longer a member at its last observation.
    const [g] = contractFamilies([
      iv('a', K1, '2026-01-01', '2026-01-03', true), iv('a', K1, '2026-01-03', '2026-01-05', false), iv('a', K2, '2026-01-07', '2026-01-09', false),
      iv('b', K1, '2026-01-01', '2026-01-10', false),
    ]);
    expect(g!.memberships.map(row4)).toEqual([['a', '2026-01-01', '2026-01-05', false], ['b', '2026-01-01', '2026-01-05', false]]);
  });

  it('near miss: a key shared again later by others; the days a server held it alone in between are not membership', () => {
    const [f] = contractFamilies([
      iv('a', K1, '2026-01-01', '2026-01-03', false), iv('b', K1, '2026-01-01', '2026-01-03', false),
      iv('c', K1, '2026-01-04', '2026-01-08', false), iv('d', K1, '2026-01-06', '2026-01-08', false),
    ]);
    expect(f!.memberships.map(row4)).toEqual([
      ['a', '2026-01-01', '2026-01-03', true], ['b', '2026-01-01', '2026-01-03', true],
      ['c', '2026-01-06', '2026-01-08', true], ['d', '2026-01-06', '2026-01-08', true],
    ]);
  });

  it('sorts families by first day, then id, whatever order the intervals come in', () => {
    const KP = '9'.repeat(64);
    const KQ = '1'.repeat(64);
    const KQ2 = '7'.repeat(64);
    const KR = '5'.repeat(64);
    const fams = contractFamilies([
      iv('r1', KR, '2026-01-03', '2026-01-08', false), iv('r2', KR, '2026-01-03', '2026-01-08', false),
      // q1's intervals come newest first.
      iv('q1', KQ2, '2026-01-06', '2026-01-08', false), iv('q1', KQ, '2026-01-03', '2026-01-06', true),
      iv('q2', KQ, '2026-01-03', '2026-01-06', true), iv('q2', KQ2, '2026-01-06', '2026-01-08', false),
      iv('p1', KP, '2026-01-01', '2026-01-08', false), iv('p2', KP, '2026-01-01', '2026-01-08', false),
    ]);
    expect(fams.map((f) => [f.id, f.first_day, f.keys.length, f.size])).toEqual([[KP.slice(0, 16), '2026-01-01', 1, 2], [KQ.slice(0, 16), '2026-01-03', 2, 2], [KR.slice(0, 16), '2026-01-03', 1, 2]]);
  });
});

/** A family by hand: every member from `first` to `last`. */
const fam = (id: string, members: readonly string[], first = '2026-01-01', last = '2026-01-10'): Family => ({
  id, platform: `p-${id}`, keys: [id.padEnd(64, '0')], members: [...members], size: members.length, first_day: first, last_day: last,
  changes: 0, joint_days: 0, joint_changes: 0,
  memberships: members.map((target) => ({ family: id, target, first_day: first, last_day: last, open: true })),
});
/** Families by hand with one membership each: [family id, target, first day, last day]. */
const famOf = (rows: readonly [string, string, string, string][]): Family[] => [...new Set(rows.map((r) => r[0]))].map((id) => {
  const own = rows.filter((r) => r[0] === id);
  return { ...fam(id, own.map((r) => r[1])), memberships: own.map(([family, target, first_day, last_day]) => ({ family, target, first_day, last_day, open: true })) };
});

describe('familyOnce at its edges', () => {
  it('represents a family by its earliest first observation, then code units, whatever the order given', () => {
    const f = fam('f', ['zeta', 'alpha', 'beta'], '2026-01-03');
    const first = [fc('alpha', '2026-01-03', '2026-01-06', true), fc('zeta', '2026-01-01', '2026-01-06', true), fc('beta', '2026-01-03', '2026-01-06', true)];
    expect(familyOnce([f], first).intervals.map((i) => i.target)).toEqual(['zeta']);
    const g = fam('g', ['beta', 'alpha'], '2026-01-03');
    expect(familyOnce([g], [fc('beta', '2026-01-03', '2026-01-06', true), fc('alpha', '2026-01-03', '2026-01-06', true)]).intervals.map((i) => i.target)).toEqual(['alpha']);
  });

  it('matches a membership that began on the first contract\'s first to last held day, not before or after', () => {
    const fams = famOf([
      ['f', 'm1', '2026-01-04', '2026-01-09'], // first contract ends in a change on day 5: day 4 is its last
      ['f', 'm2', '2026-01-01', '2026-01-09'], // began before m2's first contract
      ['f', 'm3', '2026-01-04', '2026-01-09'], // censored on day 4: held through it
      ['f', 'm4', '2026-01-05', '2026-01-09'], // began with the next contract
    ]);
    const once = familyOnce(fams, [fc('m1', '2026-01-01', '2026-01-05', true), fc('m2', '2026-01-02', '2026-01-05', true), fc('m3', '2026-01-01', '2026-01-04', false), fc('m4', '2026-01-01', '2026-01-05', true)]);
    expect([...once.unitOf.keys()]).toEqual(['m1', 'm3']);
  });

  it('finds a target\'s first-contract membership among several families', () => {
    const fams = famOf([['f1', 'a', '2026-01-01', '2026-01-04'], ['f1', 'b', '2026-01-01', '2026-01-04'], ['f2', 'a', '2026-01-06', '2026-01-09'], ['f2', 'c', '2026-01-06', '2026-01-09']]);
    expect(familyOnce(fams, [fc('a', '2026-01-01', '2026-01-05', true)]).unitOf).toEqual(new Map([['a', 'f1']]));
  });

  it('names the family with the most events; on a tie the smaller id, whatever the order of families', () => {
    const firsts = (targets: string[]) => targets.map((t) => fc(t, '2026-01-01', '2026-01-05', true));
    const largest = (fams: Family[]) => familyOnce(fams, firsts(fams.flatMap((f) => f.members))).largest;
    expect(largest([fam('2222', ['a', 'b', 'c']), fam('3333', ['d', 'e'])])).toEqual({ family: '2222', platform: 'p-2222', events: 3, total: 5, share: 0.6 });
    expect(largest([fam('1111', ['a', 'b']), fam('9999', ['c', 'd', 'e'])])).toMatchObject({ family: '9999', events: 3 });
    expect(largest([fam('9999', ['a', 'b']), fam('1111', ['c', 'd'])])).toMatchObject({ family: '1111', events: 2, total: 4 });
    expect(largest([fam('1111', ['a', 'b']), fam('9999', ['c', 'd'])])).toMatchObject({ family: '1111', events: 2, total: 4 });
  });
});

/** A drift from one hash letter per day from 2026-01-01. */
const driftOf = (target: string, hashes: string) => detectDrift([...hashes].map((h, k) => {
  const day = `2026-01-${String(k + 1).padStart(2, '0')}`;
  return { target, outcome: 'ok' as const, day, observed_at: `${day}T06:00:00Z`, run_id: `r-${day}`, tools_sha256: h.repeat(64), body_sha256: h.repeat(64) };
}));

describe('familyOnceDrifts at its edges', () => {
  it('gives the family one change per joint day, the code-unit-first member\'s, and leaves every other change and drift as it was', () => {
    const f = fam('ffff', ['a', 'b', 'c']);
    const [b, a, c, d, e] = [driftOf('b', '001122333'), driftOf('a', '001111111'), driftOf('c', '001111122'), driftOf('d', '011122222'), driftOf('e', '000022222')];
    const once = familyOnceDrifts([f], [b!, a!, c!, d!, e!]);
    expect(once.drifts.map((x) => [x.target, x.changes.map((ch) => ch.day), x.repeatMover])).toEqual([
      ['b', ['2026-01-05', '2026-01-07'], true], ['a', [], false], ['c', ['2026-01-08'], false],
      ['d', ['2026-01-02', '2026-01-05'], true], ['e', ['2026-01-05'], false],
      ['family:ffff', ['2026-01-03'], false],
    ]);
    // Non-members d and e changing on one day stay their own: d's drift is passed on as given.
    expect(once.drifts[3]).toBe(d);
    const fd = once.drifts[5]!;
    expect([fd.head, fd.versions, fd.changes[0]]).toEqual([null, [], a!.changes[0]]);
    expect(fd.changes[0]).toBe(a!.changes[0]);
    expect(once.largest).toEqual({ family: 'ffff', platform: 'p-ffff', events: 3, total: 9, share: 3 / 9 });
  });

  it('orders a family\'s joint changes by day, whatever the order of the drifts', () => {
    const f = fam('ffff', ['a', 'b', 'c']);
    const once = familyOnceDrifts([f], [driftOf('b', '000000111'), driftOf('a', '001111111'), driftOf('c', '001111222')]);
    const fd = once.drifts.find((x) => x.target === 'family:ffff')!;
    expect([fd.changes.map((ch) => [ch.target, ch.day]), fd.repeatMover]).toEqual([[['a', '2026-01-03'], ['b', '2026-01-07']], true]);
  });
});

describe('familyOnceChanged at its edges', () => {
  const f = famOf([['ffff', 'a', '2026-01-05', '2026-01-08'], ['ffff', 'b', '2026-01-05', '2026-01-08']]);
  const both = (day: string) => [{ target: 'a', day }, { target: 'b', day }];

  it('counts a change as joint only when both were members the day before: not on the day they joined, nor after they left', () => {
    const on = (day: string) => { const w = familyOnceChanged(f, both(day), day, 1); return [w.servers, w.units]; };
    expect(on('2026-01-05')).toEqual([2, 2]); // joined that day
    expect(on('2026-01-06')).toEqual([2, 1]); // the first member day was the day before
    expect(on('2026-01-09')).toEqual([2, 1]); // the last member day was the day before
    expect(on('2026-01-10')).toEqual([2, 2]); // left two days before
    const w = familyOnceChanged(f, both('2026-01-06'), '2026-01-06', 1);
    expect(w.largest).toEqual({ family: 'ffff', platform: 'p-ffff', events: 2, total: 2, share: 1 });
    expect(familyNote(w.largest, 'servers that changed')).toBe('2 of the 2 servers that changed behind this figure (all of them) came from one contract family: servers of one template that change on the same day.');
  });

  it('a server with its own change and then a joint one counts as its family', () => {
    const w = familyOnceChanged(f, [{ target: 'a', day: '2026-01-06' }, ...both('2026-01-08')], '2026-01-08', 7);
    expect([w.servers, w.units]).toEqual([2, 1]);
  });

  it('a server in two families counts as the one of its earliest joint change in the window, whatever the order given', () => {
    const fams = famOf([
      ['1111', 'a', '2026-01-01', '2026-01-05'], ['1111', 'b', '2026-01-01', '2026-01-05'],
      ['2222', 'a', '2026-01-06', '2026-01-12'], ['2222', 'c', '2026-01-06', '2026-01-12'], ['2222', 'd', '2026-01-06', '2026-01-12'],
    ]);
    const changes = [{ target: 'a', day: '2026-01-08' }, { target: 'c', day: '2026-01-08' }, { target: 'd', day: '2026-01-08' }, { target: 'a', day: '2026-01-03' }, { target: 'b', day: '2026-01-03' }];
    const w = familyOnceChanged(fams, changes, '2026-01-12', 30);
    expect([w.servers, w.units]).toEqual([4, 2]);
    expect(w.largest).toEqual({ family: '1111', platform: 'p-1111', events: 2, total: 4, share: 0.5 });
  });
});

describe('familyNote at its edges', () => {
  const note = (events: number, total: number) => familyNote({ family: 'f', platform: 'p', events, total, share: events / total }, 'changes');
  it('says "all of them", "over 99%" when rounding would say 100, the rounded percent otherwise, nothing without events', () => {
    expect(note(3, 3)).toMatch(/^3 of the 3 changes behind this figure \(all of them\)/);
    expect(note(249, 250)).toMatch(/^249 of the 250 changes behind this figure \(over 99%\)/);
    expect(note(994, 1000)).toMatch(/\(99%\)/);
    expect(note(0, 0)).toBeNull();
  });
});
