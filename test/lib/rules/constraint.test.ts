import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/lib/index.ts';
import { githubTools } from '../helpers/fixtures.ts';
import { alone, mutated } from '../helpers/rules.ts';

const base = githubTools('v1.10.1'); // list_issues.perPage: { minimum: 1, maximum: 100 }; repo: { type: 'string' }
const on = (prop: string, edit: (p: Record<string, unknown>) => void) => mutated(base, 'list_issues', (t) => edit(t.inputSchema.properties[prop]));
const P = '/inputSchema/properties';

describe('input-constraint-tightened', () => {
  it('fires once, ERR, when maximum decreases', () => {
    expect(alone('input-constraint-tightened', base, on('perPage', (p) => (p.maximum = 50)))).toEqual([
      {
        rule: 'input-constraint-tightened',
        axis: 'compatibility',
        level: 'ERR',
        tool: 'list_issues',
        path: `${P}/perPage/maximum`,
        before: 100,
        after: 50,
        fingerprint: fingerprint('input-constraint-tightened', 'list_issues', `${P}/perPage/maximum`),
        message: 'Tool "list_issues": input maximum at /inputSchema/properties/perPage tightened (100 → 50): values valid before may now be rejected.',
      },
    ]);
  });
  it.each([
    ['minimum increased', 'perPage', (p: any) => (p.minimum = 10), `${P}/perPage/minimum`, 1, 10],
    ['maxLength added', 'repo', (p: any) => (p.maxLength = 100), `${P}/repo/maxLength`, undefined, 100],
    ['minLength added', 'repo', (p: any) => (p.minLength = 1), `${P}/repo/minLength`, undefined, 1],
    ['pattern added', 'repo', (p: any) => (p.pattern = '^[a-z]+$'), `${P}/repo/pattern`, undefined, '^[a-z]+$'],
    ['enum added', 'repo', (p: any) => (p.enum = ['a']), `${P}/repo/enum`, undefined, ['a']],
    ['maxItems added', 'labels', (p: any) => (p.maxItems = 5), `${P}/labels/maxItems`, undefined, 5],
    ['uniqueItems added', 'labels', (p: any) => (p.uniqueItems = true), `${P}/labels/uniqueItems`, undefined, true],
  ])('fires for %s', (_what, prop, edit, path, before, after) => {
    expect(alone('input-constraint-tightened', base, on(prop, edit))).toMatchObject([{ path, before, after }]);
  });
  it('fires for additionalProperties: false added at the root', () => {
    const after = mutated(base, 'list_issues', (t) => (t.inputSchema.additionalProperties = false));
    expect(alone('input-constraint-tightened', base, after)).toMatchObject([{ path: '/inputSchema/additionalProperties', before: undefined, after: false }]);
  });
  it('does not fire when maximum increases', () => {
    expect(alone('input-constraint-tightened', base, on('perPage', (p) => (p.maximum = 200)))).toEqual([]);
  });
});

describe('input-constraint-loosened', () => {
  it('fires once, INFO, when maximum increases', () => {
    expect(alone('input-constraint-loosened', base, on('perPage', (p) => (p.maximum = 200)))).toEqual([
      expect.objectContaining({
        rule: 'input-constraint-loosened',
        level: 'INFO',
        path: `${P}/perPage/maximum`,
        before: 100,
        after: 200,
        message: 'Tool "list_issues": input maximum at /inputSchema/properties/perPage loosened (100 → 200).',
      }),
    ]);
  });
  it('fires when minimum is dropped', () => {
    expect(alone('input-constraint-loosened', base, on('perPage', (p) => delete p.minimum))).toMatchObject([{ path: `${P}/perPage/minimum`, before: 1, after: undefined }]);
  });
  it('does not fire when only the description next to the bounds changes', () => {
    expect(alone('input-constraint-loosened', base, on('perPage', (p) => (p.description = 'Per page')))).toEqual([]);
  });
});
