// Drift feeds: one item per change, built from ChangeView. RSS 2.0 goes through @astrojs/rss;
// JSON Feed 1.1 is written here because `feed` 5 only writes JSON Feed 1.0. Items carry plain text
// only (content_text, escaped RSS descriptions): registry names never become feed HTML.
import type { RSSFeedItem } from '@astrojs/rss';
import { clip } from '../lib/index.ts';
import type { ChangeView } from '../loader/load-archive.ts';
import { permalink } from '../site/settings.ts';

/** Items per feed: enough for a weekly reader on a busy day, small enough to fetch often. */
export const FEED_ITEMS = 200;

export function changeTitle(c: ChangeView): string {
  const level = [c.compatibility, c.security && `security ${c.security}`].filter(Boolean).join(', ');
  return `${clip(c.target, 200)} changed its tools${level ? ` (${level})` : ''}`;
}

export function changeSummary(c: ChangeView): string {
  const d = c.diff;
  const parts: string[] = [];
  if (d) {
    if (d.added.length) parts.push(`added ${list(d.added)}`);
    if (d.removed.length) parts.push(`removed ${list(d.removed)}`);
    if (d.changed.length) parts.push(`changed ${list(d.changed.map((t) => t.name))}`);
    if (d.returned.length) parts.push(`returned ${list(d.returned.map((t) => t.name))}`);
  } else if (c.diffProblem) parts.push(`diff unavailable: ${c.diffProblem}`);
  const findings = c.findings.slice(0, 10).map((f) => `${f.level} ${f.rule}: ${clip(f.message, 300)}`);
  return [`On ${c.day}: ${parts.join('; ') || 'contract hash changed'}.`, ...findings, c.findings.length > 10 ? `…and ${c.findings.length - 10} more findings.` : '']
    .filter(Boolean)
    .join('\n');
}

export function changeUrl(c: ChangeView): string {
  return permalink(`/servers/${c.slug}/`) + `#change-${c.id}`;
}

export function rssItems(changes: readonly ChangeView[]): RSSFeedItem[] {
  return changes.slice(0, FEED_ITEMS).map((c) => ({
    title: changeTitle(c),
    link: changeUrl(c),
    pubDate: new Date(c.observedAt),
    description: changeSummary(c),
    categories: [c.compatibility, c.security && `security-${c.security}`].filter((x): x is string => Boolean(x)),
  }));
}

export interface JsonFeedOptions {
  title: string;
  homePath: string;
  feedPath: string;
  description: string;
}

export function jsonFeed(changes: readonly ChangeView[], o: JsonFeedOptions): string {
  const feed = {
    version: 'https://jsonfeed.org/version/1.1',
    title: o.title,
    home_page_url: permalink(o.homePath),
    feed_url: permalink(o.feedPath),
    description: o.description,
    language: 'en',
    items: changes.slice(0, FEED_ITEMS).map((c) => ({
      id: `${c.target}#${c.id}`,
      url: changeUrl(c),
      title: changeTitle(c),
      content_text: changeSummary(c),
      date_published: new Date(c.observedAt).toISOString(),
      tags: [c.compatibility, c.security && `security-${c.security}`].filter(Boolean),
      _mcp_schema: {
        target: c.target,
        before_tools_sha256: c.beforeSha256,
        after_tools_sha256: c.afterSha256,
        revert: c.revert,
        findings: c.findings.map((f) => ({ rule: f.rule, axis: f.axis, level: f.level, tool: f.tool, path: f.path, fingerprint: f.fingerprint })),
      },
    })),
  };
  return JSON.stringify(feed, null, 2);
}

function list(names: string[]): string {
  const shown = names.slice(0, 8).map((n) => clip(n, 80));
  return names.length > 8 ? `${shown.join(', ')} and ${names.length - 8} more` : shown.join(', ');
}
