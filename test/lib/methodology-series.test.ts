import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toolsSha256 } from '../../src/lib/canonical.ts';
import { METHODOLOGY_SERIES, SERIES, V1_SERIES } from '../../src/lib/methodology-series.ts';
import { contractSha256 } from '../../src/lib/surface-hashes.ts';
import { githubTools, tool } from './helpers/fixtures.ts';

const changelog = (note: string) => new URL(`../../content/changelog/${note}.md`, import.meta.url);

describe('SERIES, METHODOLOGY_SERIES', () => {
  it('lists v1 (what the collector records), its contract-only restatement and v2, each under its own id', () => {
    expect(METHODOLOGY_SERIES).toEqual(['v1', 'v1-contract', 'v2']);
    expect(V1_SERIES).toEqual(['v1', 'v1-contract']);
    expect(Object.keys(SERIES)).toEqual([...METHODOLOGY_SERIES]);
    for (const id of METHODOLOGY_SERIES) expect(SERIES[id].id).toBe(id);
  });
  it('hashes v1 and v2 with toolsSha256 and v1-contract with contractSha256', () => {
    const tools = githubTools('v1.10.1');
    expect(SERIES.v1.hash(tools)).toBe(toolsSha256(tools));
    expect(SERIES.v2.hash(tools)).toBe(toolsSha256(tools));
    expect(SERIES['v1-contract'].hash(tools)).toBe(contractSha256(tools));
  });
  it('counts a description edit as a change in v1 but not in v1-contract', () => {
    const before = githubTools('v1.10.1');
    const after = structuredClone(before);
    tool(after, 'list_issues').description += ' (edited)';
    expect(SERIES.v1.hash(after)).not.toBe(SERIES.v1.hash(before));
    expect(SERIES['v1-contract'].hash(after)).toBe(SERIES['v1-contract'].hash(before));
  });
  it.each(V1_SERIES)('%s names a changelog note that exists, a title and a one-sentence summary', (id) => {
    const s = SERIES[id];
    expect(existsSync(changelog(s.note))).toBe(true);
    expect(s.title).toMatch(/^v1\b/);
    expect(s.summary).toMatch(/^[A-Z][^.]*[^.\s]\.$/);
  });
  // v2's changelog entry is written when v2 ships: its note is not checked for a file yet.
  it('v2 has a title and a one-sentence summary of its own', () => {
    expect(SERIES.v2.title).toMatch(/^v2\b/);
    expect(SERIES.v2.summary).toMatch(/^[A-Z][^.]*[^.\s]\.$/);
  });
  it('v2 names the changelog note it will have, a file name of its own', () => {
    expect(SERIES.v2.note).toBe('methodology-v2');
    expect(new Set(METHODOLOGY_SERIES.map((id) => SERIES[id].note)).size).toBe(METHODOLOGY_SERIES.length);
  });
});
