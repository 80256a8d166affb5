// The official server.json schemas a registry entry is checked against: data
// files (fixtures/registry/spec/, their provenance beside them), read here, once per folder, and handed
// to src/lib registrySchemaChecker, which compiles each once. The site passes the folder its settings
// name (src/site/settings.ts registrySchemaDir); tests pass the fixtures folder.
//
// Registry hygiene on /statistics/: every server the latest complete roster lists (retired ones are
// out), its latest registry entry checked against the schema it names; entries that could not be read
// back are counted apart, never as a failure.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { byCodeUnits, registryHygiene, registrySchemaChecker, type RegistryHygiene, type RegistrySchemaCheck, type RegistrySchemaChecker } from '../lib/index.ts';
import type { Archive } from '../loader/views.ts';
import { entryOf } from './descriptor.ts';
import { eachServer } from '../loader/shards.ts';

/** The file names read as server.json schemas: `server.schema.<date or draft>.json`. */
export const REGISTRY_SCHEMA_FILE = /^server\.schema\.[A-Za-z0-9-]+\.json$/;

const checkers = new Map<string, RegistrySchemaChecker>();

/** A checker over every server.json schema in `dir` (by name order), read and compiled once per folder and process. */
export function registrySchemas(dir: string): RegistrySchemaChecker {
  const key = path.resolve(dir);
  let c = checkers.get(key);
  if (!c) {
    const files = readdirSync(key).filter((n) => REGISTRY_SCHEMA_FILE.test(n)).sort();
    if (files.length === 0) throw new Error(`no server.json schema (server.schema.*.json) in ${key}`);
    c = registrySchemaChecker(files.map((n) => JSON.parse(readFileSync(path.join(key, n), 'utf8')) as unknown));
    checkers.set(key, c);
  }
  return c;
}

/** The latest entry of a server (its `server` object as stored) against its schema; null when the entry could not be read. */
export function checkEntry(entry: Record<string, unknown> | null, checker: RegistrySchemaChecker): RegistrySchemaCheck | null {
  return entry === null ? null : checker.check(entry.server);
}

export interface RegistryHygieneFigure extends RegistryHygiene {
  /** Servers the latest roster lists (not retired): the entries checked plus those unreadable. */
  listed: number;
  /** Listed servers whose entry could not be read back (its roster page missing or damaged). */
  unreadable: number;
  /** The schemas the checker knows, by `$id`. */
  known: readonly string[];
}

const hygieneMemo = new WeakMap<Archive, WeakMap<RegistrySchemaChecker, Map<number, Promise<RegistryHygieneFigure>>>>();

/**
 * Registry hygiene over every listed server's latest entry (src/lib registryHygiene), read shard by
 * shard, in name order; once per archive, checker and `top` (/statistics/ and its figures.csv both ask,
 * and each pass derives every shard again).
 */
export function registryHygieneFigure(a: Archive, checker: RegistrySchemaChecker, top = 10): Promise<RegistryHygieneFigure> {
  let byChecker = hygieneMemo.get(a);
  if (!byChecker) hygieneMemo.set(a, (byChecker = new WeakMap()));
  let byTop = byChecker.get(checker);
  if (!byTop) byChecker.set(checker, (byTop = new Map()));
  let figure = byTop.get(top);
  if (!figure) byTop.set(top, (figure = hygieneOf(a, checker, top)));
  return figure;
}

async function hygieneOf(a: Archive, checker: RegistrySchemaChecker, top: number): Promise<RegistryHygieneFigure> {
  // Shard by shard (Archive.serversIn), then in name order as one pass over every server gives them.
  const named: { name: string; check: RegistrySchemaCheck }[] = [];
  let listed = 0;
  for await (const [, s] of eachServer(a)) {
    if (s.status === 'retired') continue;
    listed++;
    const c = checkEntry(await entryOf(a, s), checker);
    if (c) named.push({ name: s.name, check: c });
  }
  const checks = named.sort((x, y) => byCodeUnits(x.name, y.name)).map((n) => n.check);
  return { ...registryHygiene(checks, top), listed, unreadable: listed - checks.length, known: checker.ids };
}
