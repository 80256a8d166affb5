// Real drift between consecutive github-mcp-server releases. Every expectation below was read off the
// fixture files with a separate Python script (json.load and set differences), not from our output.
import { describe, expect, it } from 'vitest';
import { classifyChange } from '../../../src/lib/rules/registry.ts';
import { summariseDiff } from '../../../src/lib/summarise-diff.ts';
import { githubReleases, githubTools } from '../helpers/fixtures.ts';

const fileOf = (tag: string) => githubReleases().find((r) => r.tag === tag)!.file.replace(/^tools-|\.json$/g, '');
const byRule = (fs: { rule: string }[]) => fs.reduce<Record<string, number>>((m, f) => ((m[f.rule] = (m[f.rule] ?? 0) + 1), m), {});

describe('classifyChange(before, after) on github-mcp-server v0.23.0 → v0.24.0', () => {
  // v0.21.0, v0.22.0 and v0.23.0 share one file (manifest.json).
  const before = githubTools(fileOf('v0.23.0'));
  const after = githubTools(fileOf('v0.24.0'));
  const classify = () => classifyChange(before, after);

  it('maps v0.23.0 to the v0.21.0 file', () => expect(fileOf('v0.23.0')).toBe('v0.21.0'));
  it('reports dismiss_notification.state becoming required as the one ERR', () => {
    const c = classify();
    expect(c.compatibility.filter((f) => f.level === 'ERR')).toEqual([
      expect.objectContaining({ rule: 'input-property-became-required', tool: 'dismiss_notification', path: '/inputSchema/properties/state', before: false, after: true }),
    ]);
  });
  it('reports the 31 new tools on both axes and no removal', () => {
    const c = classify();
    expect(byRule(c.compatibility)['tool-added']).toBe(31);
    // 33: schema or annotations changes on 29 tools whose description stayed byte-identical.
    expect(byRule(c.security)).toEqual({ 'tool-capability-added': 31, 'tool-contract-changed-description-identical': 33 });
    expect(c.compatibility.some((f) => f.rule === 'tool-removed')).toBe(false);
  });
  it('reports push_files losing additionalProperties: false in files[] as loosened', () => {
    const c = classify();
    expect(c.compatibility).toContainEqual(
      expect.objectContaining({ rule: 'input-constraint-loosened', tool: 'push_files', path: '/inputSchema/properties/files/items/additionalProperties', before: false, after: undefined }),
    );
  });
  it('raises nothing on the 27 tools that dropped an explicit readOnlyHint: false (the default)', () => {
    const c = classify();
    expect(c.security.filter((f) => f.level === 'HIGH')).toEqual([]);
    const d = summariseDiff(before, after);
    expect(d.changed.filter((t) => t.surfaces.join() === 'annotations')).toHaveLength(23); // the other 4 also changed inputSchema
  });
});

describe('classifyChange(before, after) on github-mcp-server v0.10.0 → v0.11.0', () => {
  it('sees list_issues enums change case as 5 removed and 4 added values', () => {
    const c = classifyChange(githubTools('v0.10.0'), githubTools('v0.11.0'));
    const removed = c.compatibility.filter((f) => f.rule === 'input-enum-value-removed').map((f) => f.before);
    const added = c.compatibility.filter((f) => f.rule === 'input-enum-value-added').map((f) => f.after);
    expect(removed.sort()).toEqual(['all', 'asc', 'closed', 'desc', 'open']);
    expect(added.sort()).toEqual(['ASC', 'CLOSED', 'DESC', 'OPEN']);
  });
});

describe('classifyChange(before, after) on github-mcp-server v0.7.0 → v0.8.0', () => {
  it('sees the pending-review comment tool renamed as one removal and one addition', () => {
    const c = classifyChange(githubTools('v0.7.0'), githubTools('v0.8.0'));
    expect(c.compatibility.filter((f) => f.rule === 'tool-removed').map((f) => f.tool)).toEqual(['add_pull_request_review_comment_to_pending_review']);
    expect(c.compatibility.filter((f) => f.rule === 'tool-added').map((f) => f.tool)).toEqual(['add_comment_to_pending_review']);
  });
  it('sees that pair as a rename on the security axis (the input schemas are equal)', () => {
    const c = classifyChange(githubTools('v0.7.0'), githubTools('v0.8.0'));
    expect(c.security.filter((f) => f.rule === 'tool-renamed').map((f) => [(f.before as { name: string }).name, f.tool])).toEqual([
      ['add_pull_request_review_comment_to_pending_review', 'add_comment_to_pending_review'],
    ]);
  });
});
