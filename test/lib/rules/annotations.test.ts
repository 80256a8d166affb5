import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/lib/rules/finding.ts';
import { githubTools, tool } from '../helpers/fixtures.ts';
import { alone, mutated } from '../helpers/rules.ts';

// v1.10.1: list_issues { idempotentHint: false, readOnlyHint: true, title }; create_issue { destructiveHint: false, readOnlyHint: false, … }
const base = githubTools('v1.10.1');
const annotate = (name: string, edit: (a: Record<string, unknown>) => void) => mutated(base, name, (t) => edit(t.annotations));

describe('read-only-hint-dropped', () => {
  it('fires once, HIGH, when readOnlyHint goes from true to false', () => {
    expect(alone('read-only-hint-dropped', base, annotate('list_issues', (a) => (a.readOnlyHint = false)))).toEqual([
      {
        rule: 'read-only-hint-dropped',
        axis: 'security',
        level: 'HIGH',
        tool: 'list_issues',
        path: '/annotations/readOnlyHint',
        before: true,
        after: false,
        fingerprint: fingerprint('read-only-hint-dropped', 'list_issues', '/annotations/readOnlyHint'),
        message: 'Tool "list_issues" no longer declares itself read-only: it may now modify its environment.',
      },
    ]);
  });
  it('fires when readOnlyHint: true is deleted (the default is false)', () => {
    expect(alone('read-only-hint-dropped', base, annotate('list_issues', (a) => delete a.readOnlyHint))).toMatchObject([{ before: true, after: undefined }]);
  });
  it('does not fire when readOnlyHint: false is deleted (false is the default: nothing changed)', () => {
    expect(alone('read-only-hint-dropped', base, annotate('create_issue', (a) => delete a.readOnlyHint))).toEqual([]);
  });
});

describe('destructive-hint-raised', () => {
  it('fires once, HIGH, when destructiveHint goes from false to true', () => {
    expect(alone('destructive-hint-raised', base, annotate('create_issue', (a) => (a.destructiveHint = true)))).toEqual([
      expect.objectContaining({
        rule: 'destructive-hint-raised',
        axis: 'security',
        level: 'HIGH',
        tool: 'create_issue',
        path: '/annotations/destructiveHint',
        before: false,
        after: true,
        message: 'Tool "create_issue" no longer declares itself non-destructive: it may now delete or overwrite data.',
      }),
    ]);
  });
  it('fires when destructiveHint: false is deleted (the default is true)', () => {
    expect(alone('destructive-hint-raised', base, annotate('create_issue', (a) => delete a.destructiveHint))).toHaveLength(1);
  });
  it('does not fire when the tool becomes read-only at the same time (destructiveHint is then meaningless)', () => {
    const after = annotate('create_issue', (a) => {
      a.destructiveHint = true;
      a.readOnlyHint = true;
    });
    expect(alone('destructive-hint-raised', base, after)).toEqual([]);
  });
});

describe('annotations-removed', () => {
  it('fires once, WARN, when a tool drops all its annotations', () => {
    const after = mutated(base, 'list_issues', (t) => delete t.annotations);
    expect(alone('annotations-removed', base, after)).toEqual([
      expect.objectContaining({
        rule: 'annotations-removed',
        axis: 'security',
        level: 'WARN',
        tool: 'list_issues',
        path: '/annotations',
        before: tool(base, 'list_issues').annotations,
        after: undefined,
        message: 'Tool "list_issues" dropped all its annotations: clients lose its safety hints.',
      }),
    ]);
  });
  it('counts annotations: null (a serialisation quirk) as none', () => {
    const after = mutated(base, 'list_issues', (t) => (t.annotations = null));
    expect(alone('annotations-removed', base, after)).toMatchObject([{ after: null }]);
  });
  it('counts annotations: {} as none, both ways', () => {
    const emptied = mutated(base, 'list_issues', (t) => (t.annotations = {}));
    expect(alone('annotations-removed', base, emptied)).toMatchObject([{ after: {} }]);
    expect(alone('annotations-removed', emptied, mutated(base, 'list_issues', (t) => delete t.annotations))).toEqual([]);
  });
  it('does not fire when some annotations remain', () => {
    expect(alone('annotations-removed', base, annotate('list_issues', (a) => delete a.idempotentHint))).toEqual([]);
  });
});
