// The site stays under 1 GB (docs/DESIGN.md "The site's size"): what grows with time is
// bounded. A server page lists its newest RECENT_VERSIONS versions and RECENT_CHANGES changes (older
// changes keep an anchor), the drift lists publish MAX_PAGES pages per filter, and with an object store
// configured (MCP_SCHEMA_OBJECTS_URL) the site carries only the raw bodies its pages show, linking the
// rest at their key in the store. Without one, every body stays on the site, as before. A server's
// feeds carry its newest SERVER_FEED_ITEMS items.
import { describe, expect, it } from 'vitest';
import type { Archive, ChangeView, ServerView, VersionView } from '../../src/loader/views.ts';
import { bodyLocation, bodyUrl, FULL_CHANGES, serverPageBodies, siteBodies } from '../../src/outputs/linked-objects.ts';
import { driftPages, MAX_PAGES, PAGE_SIZE } from '../../src/site/drift-filters.ts';
import { FEED_ITEMS, jsonFeed, SERVER_FEED_ITEMS } from '../../src/outputs/feeds.ts';
import { serverFeeds } from '../../src/outputs/server-files.ts';
import { TEST_PUBLICATION } from '../helpers/publication.ts';

const sha = (i: number) => i.toString(16).padStart(64, '0');

/** A server with `n` versions, each a new body, and a change between each two (newest first, as the loader gives them). */
function volatileServer(n: number): ServerView {
  const versions = Array.from({ length: n }, (_, i) => ({ toolsSha256: sha(1000 + i), bodySha256: sha(i), firstSeen: `2025-01-01T00:00:${i}Z`, lastSeen: `2025-01-01T00:00:${i}Z`, toolCount: 1 }) as unknown as VersionView);
  const changes = versions.slice(1).map((v, i) => ({ id: `c${i}`, beforeBody: versions[i]!.bodySha256, afterBody: v.bodySha256 }) as unknown as ChangeView).reverse();
  const head = versions.at(-1)!;
  return { name: 'x', slug: 'x', versions, changes, head, current: { bodySha256: head.bodySha256! } } as unknown as ServerView;
}

const archiveOf = (servers: ServerView[]) => ({ servers, contentType: () => 'application/json' }) as unknown as Archive;

describe('raw bodies on the site', () => {
  const s = volatileServer(200);
  const a = archiveOf([s]);

  it('are every body when no object store is configured (the default: links unchanged)', () => {
    expect(bodyLocation(a, sha(0), null)).toEqual({ sitePath: `/objects/00/${sha(0)}.json` });
    expect(bodyUrl(a, sha(0), undefined, (p) => `https://site.example${p}`)).toBe(`https://site.example/objects/00/${sha(0)}.json`);
  });

  it('with a store, are only what the server page shows in full: the latest answer and the changes with a diff', () => {
    const shown = siteBodies(a);
    expect(shown.has(s.current!.bodySha256)).toBe(true);
    expect(serverPageBodies(s).length).toBeLessThanOrEqual(2 + 2 * FULL_CHANGES);
    // 200 versions, a change between each two: the newest FULL_CHANGES changes touch FULL_CHANGES + 1 bodies.
    expect(shown.size).toBe(FULL_CHANGES + 1);
    for (const c of s.changes.slice(0, FULL_CHANGES)) expect(shown.has(c.beforeBody!) && shown.has(c.afterBody!)).toBe(true);
    expect(shown.has(s.changes[FULL_CHANGES + 1]!.beforeBody!)).toBe(false);
    expect(bodyLocation(a, s.current!.bodySha256, 'https://bucket.example/objects')).toEqual({ sitePath: `/objects/${s.current!.bodySha256.slice(0, 2)}/${s.current!.bodySha256}.json` });
    // An old body is linked at its archive key in the store (the trailing slash is added once).
    expect(bodyLocation(a, sha(0), 'https://bucket.example/objects')).toEqual({ url: `https://bucket.example/objects/00/${sha(0)}` });
    expect(bodyUrl(a, sha(0), 'https://bucket.example/objects///', (p) => p)).toBe(`https://bucket.example/objects/00/${sha(0)}`);
  });

  it('stay bounded per server however long the history', () => {
    const bounded = (n: number) => siteBodies(archiveOf([volatileServer(n)])).size;
    expect(bounded(1000)).toBe(bounded(100));
  });
});

describe('drift lists', () => {
  it('publish at most MAX_PAGES pages per filter, at least one', () => {
    expect(driftPages(0)).toBe(1);
    expect(driftPages(PAGE_SIZE + 1)).toBe(2);
    expect(driftPages(PAGE_SIZE * MAX_PAGES)).toBe(MAX_PAGES);
    expect(driftPages(PAGE_SIZE * MAX_PAGES * 10)).toBe(MAX_PAGES);
  });
});

describe('server feeds', () => {
  const change = (i: number) => ({
    id: `c${i}`, target: 'io.github.x/y', slug: 'io.github.x_y', day: '2026-01-01', observedAt: new Date(Date.UTC(2026, 0, 1) + (1000 - i) * 86_400_000).toISOString(), runId: 'run',
    beforeSha256: 'a'.repeat(64), afterSha256: 'b'.repeat(64), beforeBody: null, afterBody: null, revert: false, compatibility: 'INFO', security: null,
    diff: { added: ['t'], removed: [], changed: [], returned: [] }, diffProblem: null, protocolMigration: false, findings: [],
  }) as unknown as ChangeView;

  it('carry the newest SERVER_FEED_ITEMS however many changes a server has (the drift feeds keep FEED_ITEMS)', async () => {
    const s = { name: 'io.github.x/y', slug: 'io.github.x_y', changes: Array.from({ length: FEED_ITEMS + 50 }, (_, i) => change(i)), instructionChanges: [] } as unknown as ServerView;
    const f = await serverFeeds(s, TEST_PUBLICATION);
    const items = (JSON.parse(f.json) as { items: { id: string }[] }).items;
    expect(items).toHaveLength(SERVER_FEED_ITEMS);
    expect(items[0]!.id).toBe('io.github.x/y#c0');
    expect(f.rss.match(/<item>/g)).toHaveLength(SERVER_FEED_ITEMS);
    const drift = JSON.parse(jsonFeed(s.changes, { title: 'drift', description: 'all', homePath: '/drift/', feedPath: '/drift.json' }, TEST_PUBLICATION)) as { items: unknown[] };
    expect(drift.items).toHaveLength(FEED_ITEMS);
  });
});
