// A registry entry against the server.json schema it names. Every entry of the
// official registry names its schema in `$schema`; the archive keeps entries verbatim, as it must,
// and says here whether each one holds to the schema it names. The schemas are data (the official
// files, fixtures/registry/spec/): whoever reads them passes them in, and each is compiled once
// (ajv, draft-07, every error, formats on). The entry is registry text, hostile: any shape is
// accepted, the `$schema` it names is quoted cut, and what an error says is bounded in number and
// length. Nothing here is rendered as HTML by this module; callers print the strings as text.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { clip } from './clip.ts';
import { byCodeUnits, isObject } from './canonical.ts';

/** Errors kept per entry (their total is counted apart). */
export const REGISTRY_SCHEMA_MAX_ERRORS = 20;
/** Longest `$schema`, instance path, schema path or message quoted. */
const TEXT_MAX = 300;

export const REGISTRY_SCHEMA_STATUSES = ['valid', 'invalid', 'unknown_schema'] as const;
export type RegistrySchemaStatus = (typeof REGISTRY_SCHEMA_STATUSES)[number];

export interface RegistrySchemaError {
  /** The JSON Schema keyword that failed (required, enum, format, pattern, anyOf, …). */
  keyword: string;
  /** RFC 6901 pointer into the entry's `server` (registry text: cut at 300). */
  instancePath: string;
  /** Where in the schema (`#/definitions/ServerDetail/required`). */
  schemaPath: string;
  /** ajv's message (the schema's words, e.g. "must have required property 'url'"), cut at 300. */
  message: string;
}

export interface RegistrySchemaCheck {
  status: RegistrySchemaStatus;
  /** `$schema` as the entry declares it (cut at 300); null when absent or not a string. */
  schema: string | null;
  /** The schema checked against: a known `$id`, with the definition the fragment names; null when unknown. */
  checkedAgainst: string | null;
  /** Why no schema was checked (status unknown_schema), else null. */
  note: string | null;
  /** The failing keywords and paths, in ajv's order, at most REGISTRY_SCHEMA_MAX_ERRORS. */
  errors: RegistrySchemaError[];
  /** Every error ajv reported (more than listed when over the bound). */
  errorsTotal: number;
}

export interface RegistrySchemaChecker {
  /** The `$id` of every schema it knows, in the order given. */
  readonly ids: readonly string[];
  check(server: unknown): RegistrySchemaCheck;
}

/**
 * A checker over the given server.json schemas (parsed JSON, each with its `$id`): each compiled
 * once, here. An entry is checked against the schema whose `$id` its `$schema` equals, with no
 * fragment, an empty one, or `#/definitions/<name>` naming a definition of that schema (real entries
 * name `…/2025-10-17/server.schema.json#/definitions/ServerDetail`); anything else is an unknown
 * schema, said so, never a failure. Throws on a schema without a string `$id`, a repeated `$id`, or
 * one ajv cannot compile: the schemas are ours, and a wrong one must stop the build.
 */
export function registrySchemaChecker(schemas: readonly unknown[]): RegistrySchemaChecker {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const roots = new Map<string, { schema: Record<string, unknown>; validate: ValidateFunction }>();
  for (const s of schemas) {
    if (!isObject(s) || typeof s.$id !== 'string' || s.$id === '') throw new Error('a server.json schema without an $id');
    if (roots.has(s.$id)) throw new Error(`server.json schema ${s.$id} given twice`);
    roots.set(s.$id, { schema: s, validate: ajv.compile(s) });
  }
  // Definitions named by a fragment, compiled on first use: bounded by the definitions the schemas hold.
  const parts = new Map<string, ValidateFunction>();
  const part = (id: string, name: string): ValidateFunction | null => {
    const key = `${id}#/definitions/${name}`;
    let v = parts.get(key);
    if (!v) {
      try {
        v = ajv.getSchema(key);
      } catch {
        v = undefined;
      }
      if (!v) return null;
      parts.set(key, v);
    }
    return v;
  };

  function check(server: unknown): RegistrySchemaCheck {
    const declared = isObject(server) ? server.$schema : undefined;
    const schema = typeof declared === 'string' ? clip(declared, TEXT_MAX) : null;
    const unknown = (note: string): RegistrySchemaCheck => ({ status: 'unknown_schema', schema, checkedAgainst: null, note, errors: [], errorsTotal: 0 });
    if (declared === undefined) return unknown(isObject(server) ? 'the entry names no $schema' : 'the entry is not an object');
    if (typeof declared !== 'string') return unknown('its $schema is not a string');
    if (declared === '') return unknown('its $schema is the empty string');
    const hash = declared.indexOf('#');
    const id = hash < 0 ? declared : declared.slice(0, hash);
    const fragment = hash < 0 ? '' : declared.slice(hash + 1);
    const root = roots.get(id);
    if (!root) return unknown('its $schema names no server.json schema the archive holds');
    let validate = root.validate;
    let against = id;
    if (fragment !== '') {
      const name = /^\/definitions\/([^/~]+)$/.exec(fragment)?.[1];
      const definitions = isObject(root.schema.definitions) ? root.schema.definitions : {};
      if (name === undefined || !Object.hasOwn(definitions, name) || !isObject(definitions[name])) return unknown(`its $schema names a part of ${id} that is not one of its definitions`);
      const v = part(id, name);
      if (!v) return unknown(`its $schema names a part of ${id} that does not compile`);
      validate = v;
      against = `${id}#/definitions/${name}`;
    }
    const ok = validate(server);
    const all: ErrorObject[] = ok ? [] : [...(validate.errors ?? [])];
    return {
      status: ok ? 'valid' : 'invalid',
      schema,
      checkedAgainst: against,
      note: null,
      errors: all.slice(0, REGISTRY_SCHEMA_MAX_ERRORS).map((e) => ({
        keyword: clip(e.keyword, 64),
        instancePath: clip(e.instancePath, TEXT_MAX),
        schemaPath: clip(e.schemaPath, TEXT_MAX),
        message: clip(e.message ?? '', TEXT_MAX),
      })),
      errorsTotal: all.length,
    };
  }
  return { ids: [...roots.keys()], check };
}

export interface RegistryHygiene {
  /** Entries checked (the denominator of the three counts below). */
  entries: number;
  valid: number;
  invalid: number;
  unknownSchema: number;
  /**
   * Failing keywords with the path where they fail, array indexes as `*` (`required` at
   * `/packages/*`): how many invalid entries fail each (an entry counts once per pair, from its
   * listed errors), most first, then by keyword and path; at most `top`.
   */
  failures: { keyword: string; path: string; entries: number }[];
  /** The same by keyword alone, every keyword. */
  keywords: { keyword: string; entries: number }[];
  /** Entries by the schema they name and could be checked against (`checkedAgainst`), most first. */
  schemas: { schema: string; entries: number; valid: number }[];
}

/** Registry hygiene over checked entries: how many hold to the schema they name, fail it, or name none we know, and what fails most. */
export function registryHygiene(checks: readonly RegistrySchemaCheck[], top = 10): RegistryHygiene {
  const pairs = new Map<string, { keyword: string; path: string; entries: number }>();
  const keywords = new Map<string, number>();
  const schemas = new Map<string, { schema: string; entries: number; valid: number }>();
  const count = { valid: 0, invalid: 0, unknown_schema: 0 };
  for (const c of checks) {
    count[c.status]++;
    if (c.checkedAgainst !== null) {
      const s = schemas.get(c.checkedAgainst) ?? { schema: c.checkedAgainst, entries: 0, valid: 0 };
      s.entries++;
      if (c.status === 'valid') s.valid++;
      schemas.set(c.checkedAgainst, s);
    }
    if (c.status !== 'invalid') continue;
    const seen = new Set<string>();
    for (const e of c.errors) {
      const path = e.instancePath.replace(/\/\d+(?=\/|$)/g, '/*');
      const key = `${e.keyword}\u0000${path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const p = pairs.get(key) ?? { keyword: e.keyword, path, entries: 0 };
      p.entries++;
      pairs.set(key, p);
    }
    for (const k of new Set(c.errors.map((e) => e.keyword))) keywords.set(k, (keywords.get(k) ?? 0) + 1);
  }
  return {
    entries: checks.length,
    valid: count.valid,
    invalid: count.invalid,
    unknownSchema: count.unknown_schema,
    failures: [...pairs.values()].sort((a, b) => b.entries - a.entries || byCodeUnits(a.keyword, b.keyword) || byCodeUnits(a.path, b.path)).slice(0, top),
    keywords: [...keywords].map(([keyword, entries]) => ({ keyword, entries })).sort((a, b) => b.entries - a.entries || byCodeUnits(a.keyword, b.keyword)),
    schemas: [...schemas.values()].sort((a, b) => b.entries - a.entries || byCodeUnits(a.schema, b.schema)),
  };
}
