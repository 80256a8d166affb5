import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { toolsSha256 } from '../../src/lib/canonical.ts';
import { contractSha256, proseSha256, toolSurfaceHashes } from '../../src/lib/surface-hashes.ts';
import { githubTools, proxyTools, tool } from './helpers/fixtures.ts';

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

describe('toolSurfaceHashes(tool)', () => {
  it('hashes each present surface as sha256 of its canonical JSON and gives null for absent ones', () => {
    const h = toolSurfaceHashes({ name: 'x', description: 'Hi', annotations: { readOnlyHint: true, title: 'T' } });
    expect(h).toEqual({
      inputSchema: null,
      outputSchema: null,
      description: sha('"Hi"'),
      annotations: sha('{"readOnlyHint":true,"title":"T"}'),
      title: null,
    });
  });
  it('hashes a present null (annotations: null) instead of treating it as absent', () => {
    expect(toolSurfaceHashes({ name: 'x', annotations: null }).annotations).toBe(sha('null'));
  });
});

describe('contractSha256(tools) and proseSha256(tools)', () => {
  const base = githubTools('v1.10.1');
  it('a description edit over an identical schema moves prose only', () => {
    const after = structuredClone(base);
    tool(after, 'list_issues').description += ' Now with more words.';
    expect(contractSha256(after)).toBe(contractSha256(base));
    expect(proseSha256(after)).not.toBe(proseSha256(base));
    expect(toolsSha256(after)).not.toBe(toolsSha256(base));
  });
  it('a schema change under a byte-identical description moves contract only', () => {
    const after = structuredClone(base);
    (tool(after, 'list_issues').inputSchema as { required: string[] }).required.push('state');
    expect(contractSha256(after)).not.toBe(contractSha256(base));
    expect(proseSha256(after)).toBe(proseSha256(base));
  });
  it('an outputSchema edit moves contract only (server-filesystem read_file)', () => {
    const fs = proxyTools('server-filesystem');
    const after = structuredClone(fs);
    (tool(after, 'read_file').outputSchema as { required: string[] }).required.push('extra');
    expect([contractSha256(after) === contractSha256(fs), proseSha256(after) === proseSha256(fs)]).toEqual([false, true]);
  });
  it('a title edit moves prose only; an annotations edit moves contract only', () => {
    const titled = structuredClone(base);
    tool(titled, 'list_issues').title = 'List issues';
    expect([contractSha256(titled) === contractSha256(base), proseSha256(titled) === proseSha256(base)]).toEqual([true, false]);
    const annotated = structuredClone(base);
    (tool(annotated, 'list_issues').annotations as Record<string, unknown>).readOnlyHint = false;
    expect([contractSha256(annotated) === contractSha256(base), proseSha256(annotated) === proseSha256(base)]).toEqual([false, true]);
  });
  it('are the hashes of the documented projections', () => {
    const tools = [{ name: 'b', description: 'd', title: 't', inputSchema: { type: 'object' }, icons: [] }, { name: 'a' }];
    expect(contractSha256(tools)).toBe(sha('[{"inputSchema":{"type":"object"},"name":"b"},{"name":"a"}]'));
    expect(proseSha256(tools)).toBe(sha('[{"description":"d","name":"b","title":"t"},{"name":"a"}]'));
  });
});
