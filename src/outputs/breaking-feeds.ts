// Breaking-only feeds: per server, the items of its feeds that break a caller — a change whose
// compatibility level is ERR or whose security level is HIGH, a served answer with a HIGH finding, an
// instructions change with a HIGH finding — as RSS 2.0 (/servers/<slug>/breaking.xml) and JSON Feed
// 1.1 (/servers/<slug>/breaking.json), beside the server's full feeds. They are written by the same
// writers (feeds.ts rssFeed, jsonFeed): this file is a filter and a channel, never a second writer.
// The lockfile's OPML of these feeds is collector/check/opml.ts (the check reads published files only).
import { clip } from '../lib/index.ts';
import type { BodyFindingView, ChangeView, InstructionsChangeView } from '../loader/views.ts';
import { jsonFeed, rssFeed, SERVER_FEED_ITEMS, type FeedChannel } from './feeds.ts';
import type { Publication } from './publication.ts';

/** Site paths of a server's breaking-only feeds. */
export function breakingFeedPaths(slug: string): { rss: string; json: string } {
  return { rss: `/servers/${slug}/breaking.xml`, json: `/servers/${slug}/breaking.json` };
}

/** A change a caller breaks on: compatibility ERR, or security HIGH. */
export function isBreakingChange(c: Pick<ChangeView, 'compatibility' | 'security'>): boolean {
  return c.compatibility === 'ERR' || c.security === 'HIGH';
}

/** A served answer or an instructions change with a HIGH finding. */
function hasHigh(x: { findings: readonly { level: string }[] }): boolean {
  return x.findings.some((f) => f.level === 'HIGH');
}

/** The items of a server's feeds that are breaking (the filter; the order is kept). */
export function breakingOnly(changes: readonly ChangeView[], bodyFindings: readonly BodyFindingView[], instructions: readonly InstructionsChangeView[]): { changes: ChangeView[]; bodyFindings: BodyFindingView[]; instructions: InstructionsChangeView[] } {
  return { changes: changes.filter(isBreakingChange), bodyFindings: bodyFindings.filter(hasHigh), instructions: instructions.filter(hasHigh) };
}

/** One server's breaking-only channel: its name is registry text like any other. */
export function breakingChannel(name: string, slug: string): FeedChannel {
  const p = breakingFeedPaths(slug);
  return {
    title: `mcp-schema: breaking changes of ${clip(name, 200)}`,
    description: "Only the changes of this server's tools/list contract that break a caller (compatibility ERR, security HIGH), and HIGH security findings of its answers, newest first.",
    homePath: `/servers/${slug}/`,
    feedPath: p.json,
    rssPath: p.rss,
  };
}

/** A server's breaking-only feeds, through the site's feed writers. Items are newest first, as its full feeds' are. */
export async function serverBreakingFeeds(
  s: { name: string; slug: string; changes: readonly ChangeView[]; instructionChanges: readonly InstructionsChangeView[] },
  pub: Pick<Publication, 'permalink' | 'simulated'>,
  bodyFindings: readonly BodyFindingView[] = [],
): Promise<{ rss: string; json: string }> {
  const findings = [...bodyFindings].sort((x, y) => Date.parse(y.observedAt) - Date.parse(x.observedAt));
  const b = breakingOnly(s.changes, findings, s.instructionChanges);
  const channel = breakingChannel(s.name, s.slug);
  return { rss: await rssFeed(b.changes, channel, pub, b.bodyFindings, b.instructions, SERVER_FEED_ITEMS), json: jsonFeed(b.changes, channel, pub, b.bodyFindings, b.instructions, SERVER_FEED_ITEMS) };
}
