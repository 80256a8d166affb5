// A registry entry against the server.json schema it names: real entries of the
// 2025-12-12 listing (fixtures/registry/real/) against the official schema files (fixtures/registry/spec/),
// each failure beside a near miss that passes.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  REGISTRY_SCHEMA_MAX_ERRORS,
  registryHygiene,
  registrySchemaChecker,
  type RegistrySchemaCheck,
} from '../../src/lib/registry-schema.ts';

const FIXTURES = path.join(import.meta.dirname, '..', '..', 'fixtures', 'registry');
const SPEC = path.join(FIXTURES, 'spec');
const schemas = readdirSync(SPEC)
  .filter((n) => n.startsWith('server.schema.') && n.endsWith('.json'))
  .map((n) => JSON.parse(readFileSync(path.join(SPEC, n), 'utf8')) as Record<string, unknown>);
const checker = registrySchemaChecker(schemas);
const listing = JSON.parse(readFileSync(path.join(FIXTURES, 'real', 'official-v0-listing-2025-12-12.json'), 'utf8')) as { servers: { server: Record<string, unknown>; _meta: Record<string, { isLatest: boolean }> }[] };
/** A real entry's server.json, by name and version, as a fresh copy to edit. */
const real = (name: string, version: string): Record<string, unknown> => {
  const item = listing.servers.find((s) => s.server.name === name && s.server.version === version);
  if (!item) throw new Error(`${name}@${version} is not in the listing`);
  return structuredClone(item.server);
};
const V1009 = 'https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json';
const V1017 = 'https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json';
const pairs = (c: RegistrySchemaCheck) => c.errors.map((e) => [e.keyword, e.instancePath]);

describe('registrySchemaChecker', () => {
  it('knows every schema file by its own $id, the draft too', () => {
    expect(checker.ids).toHaveLength(7);
    expect(checker.ids).toContain('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
    expect(checker.ids).toContain('https://raw.githubusercontent.com/modelcontextprotocol/registry/main/docs/reference/server-json/draft/server.schema.json');
  });

  it('an empty repository fails `required` at /repository; with its url and source back it is valid', () => {
    const bad = checker.check(real('ai.alpic.test/test-mcp-server', '0.0.1'));
    expect(bad.status).toBe('invalid');
    expect(bad.schema).toBe(V1009);
    expect(bad.checkedAgainst).toBe(V1009);
    expect(pairs(bad)).toEqual([['required', '/repository'], ['required', '/repository']]);
    expect(bad.errors.map((e) => e.message)).toEqual(["must have required property 'url'", "must have required property 'source'"]);
    expect(bad.errors[0]!.schemaPath).toMatch(/^#\/definitions\/Repository\/required$/);
    const fixed = real('ai.alpic.test/test-mcp-server', '0.0.1');
    fixed.repository = { url: 'https://github.com/example/x', source: 'github' };
    expect(checker.check(fixed)).toEqual({ status: 'valid', schema: V1009, checkedAgainst: V1009, note: null, errors: [], errorsTotal: 0 });
  });

  it('a package without a version fails `required` at /packages/0; with one it is valid', () => {
    const bad = checker.check(real('ai.aliengiraffe/spotdb', '0.1.0'));
    expect(pairs(bad)).toEqual([['required', '/packages/0']]);
    const fixed = real('ai.aliengiraffe/spotdb', '0.1.0');
    (fixed.packages as Record<string, unknown>[])[0]!.version = '0.1.0';
    expect(checker.check(fixed).status).toBe('valid');
  });

  it('version "latest" and an sse package transport fail where they are; the same entry with a pinned version and stdio passes', () => {
    const bad = checker.check(real('io.github.bytedance/mcp-server-browser', '1.0.0'));
    expect(bad.status).toBe('invalid');
    expect(pairs(bad)).toContainEqual(['not', '/packages/0/version']);
    expect(pairs(bad)).toContainEqual(['not', '/packages/2/version']);
    expect(pairs(bad)).toContainEqual(['enum', '/packages/1/transport/type']);
    expect(bad.errors.find((e) => e.keyword === 'not')!.message).toBe('must NOT be valid');
    const fixed = real('io.github.bytedance/mcp-server-browser', '1.0.0');
    for (const p of fixed.packages as Record<string, unknown>[]) {
      p.version = '1.0.0';
      p.transport = { type: 'stdio' };
    }
    expect(checker.check(fixed)).toMatchObject({ status: 'valid', errors: [] });
  });

  it('a remote of type sse with a non-URI url fails the dated schema that lists no such remote shape', () => {
    const bad = checker.check(real('io.foqal/Foqal', '2.0.1'));
    expect(pairs(bad)).toEqual([['enum', '/remotes/0/type'], ['format', '/remotes/0/url'], ['anyOf', '/remotes/0']]);
  });

  it('a $schema naming #/definitions/ServerDetail is checked against that definition; an unknown definition is an unknown schema', () => {
    const entry = real('com.smartbear/smartbear-mcp', '0.12.1');
    expect(entry.$schema).toBe(`${V1017}#/definitions/ServerDetail`);
    const c = checker.check(entry);
    expect(c.checkedAgainst).toBe(`${V1017}#/definitions/ServerDetail`);
    expect(c.status).toBe(checker.check({ ...entry, $schema: V1017 }).status);
    expect(checker.check({ ...entry, $schema: `${V1017}#/definitions/NoSuchThing` })).toMatchObject({ status: 'unknown_schema', checkedAgainst: null, errors: [] });
    expect(checker.check({ ...entry, $schema: `${V1017}#/definitions/Repository/properties` }).status).toBe('unknown_schema');
    // An empty fragment is the schema itself.
    expect(checker.check({ ...entry, $schema: `${V1017}#` }).checkedAgainst).toBe(V1017);
  });

  it('an empty, absent, non-string or unknown $schema is said so, never a failure', () => {
    const entry = real('io.github.OtherVibes/mcp-as-a-judge', '0.3.12');
    expect(entry.$schema).toBe('');
    expect(checker.check(entry)).toEqual({ status: 'unknown_schema', schema: '', checkedAgainst: null, note: 'its $schema is the empty string', errors: [], errorsTotal: 0 });
    const { $schema: _drop, ...none } = entry;
    expect(checker.check(none)).toMatchObject({ status: 'unknown_schema', schema: null, note: 'the entry names no $schema' });
    expect(checker.check({ ...entry, $schema: 7 })).toMatchObject({ status: 'unknown_schema', schema: null, note: 'its $schema is not a string' });
    // A schema date the registry may publish later, and the http:// twin of a known one: unknown until its file is added.
    expect(checker.check({ ...entry, $schema: 'https://static.modelcontextprotocol.io/schemas/2026-01-01/server.schema.json' })).toMatchObject({ status: 'unknown_schema', note: 'its $schema names no server.json schema the archive holds' });
    expect(checker.check({ ...entry, $schema: V1009.replace('https:', 'http:') }).status).toBe('unknown_schema');
    // The near miss: the same entry naming a schema we hold is checked.
    expect(checker.check({ ...entry, $schema: V1009 }).checkedAgainst).toBe(V1009);
    expect(checker.check('not an object')).toMatchObject({ status: 'unknown_schema', note: 'the entry is not an object' });
  });

  it('a known schema whose `required` the entry breaks: invalid with the missing property named', () => {
    const entry = real('ai.aliengiraffe/spotdb', '0.1.0');
    (entry.packages as Record<string, unknown>[])[0]!.version = '0.1.0';
    delete entry.description;
    const c = checker.check(entry);
    expect(c.status).toBe('invalid');
    expect(c.errors).toEqual([{ keyword: 'required', instancePath: '', schemaPath: expect.stringMatching(/\/required$/), message: "must have required property 'description'" }]);
  });

  it('bounds what a hostile entry makes it say: 20 errors at most, the total counted, long paths and $schema cut', () => {
    const entry = real('ai.aliengiraffe/spotdb', '0.1.0');
    entry.packages = Array.from({ length: 50 }, () => ({}));
    const c = checker.check(entry);
    expect(c.errors).toHaveLength(REGISTRY_SCHEMA_MAX_ERRORS);
    expect(c.errorsTotal).toBeGreaterThan(REGISTRY_SCHEMA_MAX_ERRORS);
    const long = checker.check({ ...entry, $schema: `${'x'.repeat(5000)}<script>` });
    expect(long.schema!.length).toBe(301);
    expect(long.schema!.endsWith('…')).toBe(true);
    const key = 'k'.repeat(2000);
    const deep = checker.check({ ...real('ai.alpic.test/test-mcp-server', '0.0.1'), repository: { [key]: 1 } });
    expect(deep.errors.every((e) => e.instancePath.length <= 301)).toBe(true);
  });

  it('refuses schemas it cannot key or compile', () => {
    expect(() => registrySchemaChecker([{ type: 'object' }])).toThrow(/without an \$id/);
    expect(() => registrySchemaChecker([schemas[0], schemas[0]])).toThrow(/given twice/);
    expect(() => registrySchemaChecker([{ $id: 'https://x.invalid/s.json', type: 'no-such-type' }])).toThrow();
  });
});

describe('registryHygiene', () => {
  const latest = listing.servers.filter((s) => s._meta['io.modelcontextprotocol.registry/official']!.isLatest).map((s) => checker.check(s.server));

  it('counts the latest entries of the real listing: valid, invalid and unknown add up to the denominator', () => {
    const h = registryHygiene(latest);
    expect(h.entries).toBe(1055);
    expect(h.valid + h.invalid + h.unknownSchema).toBe(1055);
    // Counted apart with plain ajv over the same files: five latest entries name the empty string; the
    // one latest #/definitions/ServerDetail entry (com.smartbear/smartbear-mcp) is checked, not unknown.
    expect(h).toMatchObject({ valid: 864, invalid: 186, unknownSchema: 5 });
    expect(h.failures[0]).toEqual({ keyword: 'required', path: '/repository', entries: 145 });
    expect(h.failures).toContainEqual({ keyword: 'required', path: '/packages/*', entries: 36 });
    expect(h.keywords[0]).toEqual({ keyword: 'required', entries: expect.any(Number) });
    expect(h.schemas.reduce((n, s) => n + s.entries, 0)).toBe(h.valid + h.invalid); // unknown ones name no schema we hold
    expect(h.schemas.reduce((n, s) => n + s.valid, 0)).toBe(h.valid);
  });

  it('counts an entry once per failing keyword and path, however often it fails there, and leaves valid and unknown entries out of the failures', () => {
    const twice = checker.check(real('ai.alpic.test/test-mcp-server', '0.0.1'));
    expect(twice.errors).toHaveLength(2);
    const unknown = checker.check({ name: 'x', $schema: '' });
    const h = registryHygiene([twice, unknown, checker.check({ ...real('ai.alpic.test/test-mcp-server', '0.0.1'), repository: { url: 'https://github.com/e/x', source: 'github' } })]);
    expect(h).toEqual({
      entries: 3,
      valid: 1,
      invalid: 1,
      unknownSchema: 1,
      failures: [{ keyword: 'required', path: '/repository', entries: 1 }],
      keywords: [{ keyword: 'required', entries: 1 }],
      schemas: [{ schema: V1009, entries: 2, valid: 1 }],
    });
    expect(registryHygiene([])).toMatchObject({ entries: 0, valid: 0, invalid: 0, unknownSchema: 0, failures: [] });
  });

  it('keeps the top failures only, most first', () => {
    const h = registryHygiene(latest, 2);
    expect(h.failures).toHaveLength(2);
    expect(h.failures[0]!.entries).toBeGreaterThanOrEqual(h.failures[1]!.entries);
  });
});

describe('registrySchemaChecker over schemas of its own', () => {
  const ID = 'https://x.invalid/s.json';
  const own = (extra: Record<string, unknown> = {}) => registrySchemaChecker([{ $id: ID, type: 'object', ...extra }]);
  const unknownNote = (note: string) => ({ status: 'unknown_schema', schema: expect.any(String), checkedAgainst: null, note, errors: [], errorsTotal: 0 });

  it('refuses a schema that is not an object, or whose $id is empty or not a string; names a repeated one', () => {
    for (const bad of [null, 'https://x.invalid/s.json', { $id: '' }, { $id: 7 }]) expect(() => registrySchemaChecker([bad])).toThrow('a server.json schema without an $id');
    expect(() => registrySchemaChecker([{ $id: ID }, { $id: ID }])).toThrow(`server.json schema ${ID} given twice`);
  });
  it('lists the ids in the order given', () => {
    expect(registrySchemaChecker([{ $id: 'https://x.invalid/b.json' }, { $id: 'https://x.invalid/a.json' }]).ids).toEqual(['https://x.invalid/b.json', 'https://x.invalid/a.json']);
    expect(registrySchemaChecker([]).ids).toEqual([]);
  });
  it('checks a fragment only when it is exactly /definitions/<one name> of an object definition', () => {
    const c = own({ definitions: { Detail: { type: 'object', required: ['name'] }, Flag: true } });
    expect(c.check({ $schema: `${ID}#/definitions/Detail`, name: 'x' })).toEqual({ status: 'valid', schema: `${ID}#/definitions/Detail`, checkedAgainst: `${ID}#/definitions/Detail`, note: null, errors: [], errorsTotal: 0 });
    // The same definition twice: the second check reads the compiled part back.
    expect(c.check({ $schema: `${ID}#/definitions/Detail` })).toMatchObject({ status: 'invalid', errorsTotal: 1, errors: [{ keyword: 'required', instancePath: '' }] });
    const notADefinition = unknownNote(`its $schema names a part of ${ID} that is not one of its definitions`);
    for (const fragment of ['definitions/Detail', 'x/definitions/Detail', '/definitions/Detail/', '/definitions/', '/definitions/Det~0ail', '/definitions/DetailX', '/definitions/Flag', '/definitions/__proto__', '/definitions/toString', '/properties/name']) {
      expect(c.check({ $schema: `${ID}#${fragment}` }), fragment).toEqual(notADefinition);
    }
    expect(own().check({ $schema: `${ID}#/definitions/Detail` })).toEqual(notADefinition);
  });
  it('says so when the definition a fragment names does not compile, and still checks the schema itself', () => {
    const c = own({ definitions: { Broken: { $ref: '#/definitions/Missing' } } });
    expect(c.check({ $schema: `${ID}#/definitions/Broken` })).toEqual(unknownNote(`its $schema names a part of ${ID} that does not compile`));
    expect(c.check({ $schema: ID }).status).toBe('valid');
  });
  it('a $schema that is only a fragment names no schema, even one whose $id is that fragment', () => {
    expect(own().check({ $schema: '#/definitions/Detail' })).toEqual(unknownNote('its $schema names no server.json schema the archive holds'));
    expect(registrySchemaChecker([{ $id: '#only', type: 'object' }]).check({ $schema: '#only' })).toEqual(unknownNote('its $schema names no server.json schema the archive holds'));
  });
  it('a fragment that names no definition is not one, even when the schema has a definition called "undefined"', () => {
    const c = own({ definitions: { undefined: { type: 'object' } } });
    expect(c.check({ $schema: `${ID}#/properties` })).toEqual(unknownNote(`its $schema names a part of ${ID} that is not one of its definitions`));
    expect(c.check({ $schema: `${ID}#/definitions/undefined` }).status).toBe('valid');
  });
  it('counts every error, keeps twenty, and cuts a long message and schema path at 300 with an ellipsis', () => {
    const many = own({ required: Array.from({ length: 25 }, (_, i) => `p${i}`) }).check({ $schema: ID });
    expect(many.errorsTotal).toBe(25);
    expect(many.errors.map((e) => e.message)).toEqual(Array.from({ length: 20 }, (_, i) => `must have required property 'p${i}'`));
    const long = 'k'.repeat(400);
    const c = own({ required: [long], properties: { [long]: { type: 'string' } } });
    const [required] = c.check({ $schema: ID }).errors;
    expect(required!.message).toBe(`must have required property '${long}'`.slice(0, 300) + '…');
    const [typed] = c.check({ $schema: ID, [long]: 1 }).errors;
    expect(typed).toEqual({ keyword: 'type', instancePath: `/${long}`.slice(0, 300) + '…', schemaPath: `#/properties/${long}/type`.slice(0, 300) + '…', message: 'must be string' });
  });
});

describe('registryHygiene over made-up checks', () => {
  const err = (keyword: string, instancePath: string) => ({ keyword, instancePath, schemaPath: '#', message: 'm' });
  const invalid = (against: string, ...errors: ReturnType<typeof err>[]): RegistrySchemaCheck => ({ status: 'invalid', schema: against, checkedAgainst: against, note: null, errors, errorsTotal: errors.length });
  const valid = (against: string): RegistrySchemaCheck => ({ status: 'valid', schema: against, checkedAgainst: against, note: null, errors: [], errorsTotal: 0 });
  const unknown: RegistrySchemaCheck = { status: 'unknown_schema', schema: 'u', checkedAgainst: null, note: 'n', errors: [], errorsTotal: 0 };

  it('writes each whole array index as *, every one in the path, and leaves names with digits alone', () => {
    const h = registryHygiene([invalid('S', err('required', '/packages/10/args/2'), err('type', '/x1/2b'), err('enum', '/remotes/0'))]);
    expect(h.failures.map((f) => f.path)).toEqual(['/remotes/*', '/packages/*/args/*', '/x1/2b']);
  });
  it('orders failures by entries, then keyword, then path; keywords by entries, then name; schemas by entries, then name', () => {
    const h = registryHygiene([
      invalid('B', err('type', '/b'), err('type', '/a'), err('enum', '/z')),
      invalid('A', err('type', '/b'), err('type', '/b/0'), err('type', '/b/1')),
      valid('A'),
      valid('C'),
      valid('C'),
      unknown,
    ]);
    expect(h.failures).toEqual([
      { keyword: 'type', path: '/b', entries: 2 },
      { keyword: 'enum', path: '/z', entries: 1 },
      { keyword: 'type', path: '/a', entries: 1 },
      { keyword: 'type', path: '/b/*', entries: 1 },
    ]);
    expect(h.keywords).toEqual([
      { keyword: 'type', entries: 2 },
      { keyword: 'enum', entries: 1 },
    ]);
    expect(h.schemas).toEqual([
      { schema: 'A', entries: 2, valid: 1 },
      { schema: 'C', entries: 2, valid: 2 },
      { schema: 'B', entries: 1, valid: 0 },
    ]);
    expect(h).toMatchObject({ entries: 6, valid: 3, invalid: 2, unknownSchema: 1 });
  });
  it('orders keywords by entries whatever order they were first met in, a tie by name', () => {
    expect(registryHygiene([invalid('S', err('enum', '/a')), invalid('S', err('type', '/a')), invalid('S', err('type', '/b'))]).keywords).toEqual([
      { keyword: 'type', entries: 2 },
      { keyword: 'enum', entries: 1 },
    ]);
    expect(registryHygiene([invalid('S', err('type', '/a'), err('enum', '/a'))]).keywords).toEqual([
      { keyword: 'enum', entries: 1 },
      { keyword: 'type', entries: 1 },
    ]);
  });
  it('counts failures of invalid entries only, whatever errors a valid or unknown entry carries', () => {
    const stray = [err('type', '/a')];
    const h = registryHygiene([{ ...valid('S'), errors: stray }, { ...unknown, errors: stray }]);
    expect(h).toMatchObject({ failures: [], keywords: [] });
  });
  it('keeps ten failures unless told otherwise', () => {
    const eleven = invalid('S', ...Array.from({ length: 11 }, (_, i) => err('required', `/p${String(i).padStart(2, '0')}`)));
    expect(registryHygiene([eleven]).failures.map((f) => f.path)).toEqual(Array.from({ length: 10 }, (_, i) => `/p${String(i).padStart(2, '0')}`));
    expect(registryHygiene([eleven], 11).failures).toHaveLength(11);
  });
});
