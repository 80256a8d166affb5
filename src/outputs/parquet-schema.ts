// Column types of the Parquet bundles, derived, never restated: the recorded formats' types come from
// their zod contracts (src/lib/contract/), so a new contract field becomes a column of the right type
// without an edit here; the derived tables (changes, findings, intervals) from the catalogue's field
// table that also writes and describes them (catalogue.ts). DuckDB type names, as `read_json` takes
// them in `columns`.
//   string → VARCHAR; an RFC 3339 instant (z.string().datetime()) → TIMESTAMPTZ (an instant, UTC);
//   a YYYY-MM-DD day (the contracts' day regex) → DATE; integer → BIGINT; number → DOUBLE;
//   boolean → BOOLEAN; enum and literal → VARCHAR; object → STRUCT; array → LIST; JSON values → JSON.
// A flat table (flatColumnsOf: methodology v2's rows) keeps a list of scalars as a LIST and writes
// anything nested deeper (an object, a list of objects or lists) as JSON text.
import { z } from 'zod';

/** The type of a catalogue field (catalogue.ts Field): Table Schema's names, plus `any` for JSON values. */
export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'datetime' | 'date' | 'object' | 'array' | 'any';

const DAY_REGEX = String.raw`^\d{4}-\d{2}-\d{2}$`;

/** The DuckDB type of a zod schema. */
export function duckType(schema: z.ZodTypeAny): string {
  const s = unwrap(schema);
  if (s instanceof z.ZodString) {
    const checks = s._def.checks;
    if (checks.some((c) => c.kind === 'datetime')) return 'TIMESTAMPTZ';
    if (checks.some((c) => c.kind === 'regex' && c.regex.source === DAY_REGEX)) return 'DATE';
    return 'VARCHAR';
  }
  if (s instanceof z.ZodNumber) return s._def.checks.some((c) => c.kind === 'int') ? 'BIGINT' : 'DOUBLE';
  if (s instanceof z.ZodBoolean) return 'BOOLEAN';
  if (s instanceof z.ZodEnum || s instanceof z.ZodNativeEnum) return 'VARCHAR';
  if (s instanceof z.ZodLiteral) return typeof s.value === 'number' ? (Number.isInteger(s.value) ? 'BIGINT' : 'DOUBLE') : typeof s.value === 'boolean' ? 'BOOLEAN' : 'VARCHAR';
  if (s instanceof z.ZodObject) return `STRUCT(${Object.entries(s.shape as Record<string, z.ZodTypeAny>).map(([k, v]) => `${quoteIdent(k)} ${duckType(v)}`).join(', ')})`;
  if (s instanceof z.ZodArray) return `${duckType(s.element as z.ZodTypeAny)}[]`;
  throw new Error(`no Parquet type for zod ${s._def.typeName}`);
}

/** Column name → DuckDB type for every key of a zod object (in the contract's order). */
export function columnsOf(schema: z.ZodTypeAny): [string, string][] {
  const s = unwrap(schema);
  if (!(s instanceof z.ZodObject)) throw new Error('columnsOf needs a zod object');
  return Object.entries(s.shape as Record<string, z.ZodTypeAny>).map(([k, v]) => [k, duckType(v)]);
}

/**
 * Column name → DuckDB type for a flat table: as columnsOf, but a column that would be a STRUCT, or a
 * LIST of anything but scalars, is JSON text. Lists of strings stay lists (VARCHAR[]).
 */
export function flatColumnsOf(schema: z.ZodTypeAny): [string, string][] {
  return columnsOf(schema).map(([k, t]) => [k, isFlat(t) ? t : 'JSON']);
}

/** A scalar type, or a list of one (a scalar type never holds a parenthesis or a bracket). */
function isFlat(type: string): boolean {
  return /^[A-Z ]+(\[\])?$/.test(type);
}

/** The DuckDB type of a catalogue field (the derived tables' one description of their columns). */
export function fieldType(f: { type: FieldType }): string {
  const map: Record<FieldType, string> = { string: 'VARCHAR', integer: 'BIGINT', number: 'DOUBLE', boolean: 'BOOLEAN', datetime: 'TIMESTAMPTZ', date: 'DATE', object: 'JSON', array: 'JSON', any: 'JSON' };
  return map[f.type];
}

/** A `columns={...}` struct literal for read_json. */
export function columnsLiteral(cols: readonly (readonly [string, string])[]): string {
  return `{${cols.map(([k, t]) => `${quoteString(k)}: ${quoteString(t)}`).join(', ')}}`;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function quoteString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

function unwrap(s: z.ZodTypeAny): z.ZodTypeAny {
  for (;;) {
    if (s instanceof z.ZodNullable || s instanceof z.ZodOptional) s = s.unwrap() as z.ZodTypeAny;
    else if (s instanceof z.ZodEffects) s = s.innerType() as z.ZodTypeAny;
    else if (s instanceof z.ZodDefault) s = s._def.innerType as z.ZodTypeAny;
    else return s;
  }
}
