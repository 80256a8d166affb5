import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/lib/rules/finding.ts';
import { githubTools, proxyTools } from '../helpers/fixtures.ts';
import { alone, mutated } from '../helpers/rules.ts';

const base = githubTools('v1.10.1'); // list_issues.state.enum = ['OPEN', 'CLOSED']
const stateEnum = (values: unknown) => mutated(base, 'list_issues', (t) => (t.inputSchema.properties.state.enum = values));

describe('input-enum-value-removed', () => {
  it('fires once, ERR, pointing at the removed value in the old enum', () => {
    expect(alone('input-enum-value-removed', base, stateEnum(['OPEN']))).toEqual([
      {
        rule: 'input-enum-value-removed',
        axis: 'compatibility',
        level: 'ERR',
        tool: 'list_issues',
        path: '/inputSchema/properties/state/enum/1',
        before: 'CLOSED',
        after: undefined,
        fingerprint: fingerprint('input-enum-value-removed', 'list_issues', '/inputSchema/properties/state/enum/1'),
        message: 'Tool "list_issues" no longer accepts the input value "CLOSED": calls that send it may be rejected.',
      },
    ]);
  });
  it('does not fire when the enum is only reordered', () => {
    expect(alone('input-enum-value-removed', base, stateEnum(['CLOSED', 'OPEN']))).toEqual([]);
  });
  it('fires inside array items (list_issues fields[] loses "body")', () => {
    const after = mutated(base, 'list_issues', (t) => (t.inputSchema.properties.fields.items.enum = t.inputSchema.properties.fields.items.enum.filter((v: string) => v !== 'body')));
    expect(alone('input-enum-value-removed', base, after)).toMatchObject([{ path: '/inputSchema/properties/fields/items/enum/2', before: 'body' }]);
  });
});

describe('input-enum-value-added', () => {
  it('fires once, INFO, pointing at the new value in the new enum', () => {
    expect(alone('input-enum-value-added', base, stateEnum(['OPEN', 'CLOSED', 'ALL']))).toEqual([
      expect.objectContaining({
        rule: 'input-enum-value-added',
        level: 'INFO',
        path: '/inputSchema/properties/state/enum/2',
        before: undefined,
        after: 'ALL',
        message: 'Tool "list_issues" accepts a new input value "ALL".',
      }),
    ]);
  });
  it('does not fire when the enum keyword is dropped altogether (a loosened constraint, not a new value)', () => {
    expect(alone('input-enum-value-added', base, stateEnum(undefined))).toEqual([]);
  });
});

describe('output-enum-value-added', () => {
  const fs = proxyTools('server-filesystem'); // read_media_file content[].type enum: image, audio, blob
  const typeEnum = (values: string[]) => mutated(fs, 'read_media_file', (t) => (t.outputSchema.properties.content.items.properties.type.enum = values));
  it('fires once, WARN, when an output may take a new value', () => {
    expect(alone('output-enum-value-added', fs, typeEnum(['image', 'audio', 'blob', 'video']))).toEqual([
      expect.objectContaining({
        rule: 'output-enum-value-added',
        level: 'WARN',
        tool: 'read_media_file',
        path: '/outputSchema/properties/content/items/properties/type/enum/3',
        before: undefined,
        after: 'video',
        message: 'Tool "read_media_file" may now return the value "video": callers that switch on its outputs may not handle it.',
      }),
    ]);
  });
  it('does not fire when an output value is removed (callers see fewer cases)', () => {
    expect(alone('output-enum-value-added', fs, typeEnum(['image', 'audio']))).toEqual([]);
  });
});
