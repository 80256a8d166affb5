// The layout of an archive (data/, docs/ARCHIVE.md): every path a reader or writer of an archive
// uses is built here, so no other module spells one out.
//
//   objects/<aa>/<sha256>              raw bytes named by their SHA-256, written once
//   pages/<aa>/<sha256>.json           a raw listing page packed as its entries (objects) and a manifest
//                                      that joins them back to the page's bytes (src/lib/page-parts.ts)
//   rosters/<day>.json, <day>.<n>.json the registry listing a run fetched (gzipped in place by compact:
//                                      <day>.json.gz, still read and named as <day>.json)
//   observations/<day>.jsonl           the day being written (appended by the collector)
//   observations/<day>.jsonl.gz        a closed day, gzipped by `npm run compact` (same lines, same order)
//   observations-v2/<day>.jsonl[.gz]   the same for the methodology v2 series (one folder, one schema)
//   runs.jsonl                         one row per run and series (a run recording both writes two)
//   restatements/<series>/             a re-derived series: observations/<day>.jsonl and manifest.json
//   chain.jsonl                        the hash chain: one manifest per run (src/archive/chain.ts)
//   stored.jsonl                       closed day files and rosters kept as objects in the object store, by
//                                      path (src/archive/stored-files.ts): git carries this, not their bytes
//   verify-state.json                  the last head `npm run verify -- --record` verified (collector/ops/verify.ts),
//                                      and the scrub's shard listings it recorded
//   scrub/<aa>/<sha256>.txt.gz         in the object store: a shard's listing as the scrub recorded it, written
//                                      once (collector/ops/verify-listings.ts; not an archive object)
//   editions/<YYYY-MM>[-rN]/           monthly editions, cut once and never rewritten (npm run edition)
//   validations/<day>-<sha256>.json    a scored validation gate (npm run validation -- score), named by the
//                                      day it was scored and the SHA-256 of its bytes; written once
//   keys/                              public keys of DEMO signing keys (demo archives only; the real key is in the repo)
//   quarantine/                        bytes set aside by a crash repair (never part of the record)
//   .lock                              the collector's lock
//
// A day may have both a .jsonl.gz and a .jsonl for a short while (a late run appended to a day that
// was already compacted): its rows are the gzipped lines followed by the plain ones.
import { join } from 'node:path';
import { SHA256_HEX, type RunSeries } from '../lib/index.ts';

/** The archive's folders and files, by name. */
export const LAYOUT = {
  objects: 'objects',
  pages: 'pages',
  rosters: 'rosters',
  observations: 'observations',
  observationsV2: 'observations-v2',
  runs: 'runs.jsonl',
  restatements: 'restatements',
  chain: 'chain.jsonl',
  verifyState: 'verify-state.json',
  scrub: 'scrub',
  stored: 'stored.jsonl',
  editions: 'editions',
  validations: 'validations',
  keys: 'keys',
  quarantine: 'quarantine',
  lock: '.lock',
} as const;

/** The folder of each series' rows: a series is a folder, as restated series are (restatements/<series>/). */
export const SERIES_FOLDER: Readonly<Record<RunSeries, string>> = { v1: LAYOUT.observations, v2: LAYOUT.observationsV2 };

/**
 * A folder of row files written by runs: `observations/` (v1) and `observations-<series>/` (a series a
 * run records beside it). Restatements live under restatements/ and are derived, not written by runs.
 */
export const ROW_SERIES_DIR = /^observations(-[\w.-]+)?$/;
/** `<day>.jsonl` or `<day>.jsonl.gz` under observations/ (group 1: the day, group 2: `.gz`). */
export const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.jsonl(\.gz)?$/;
/** A roster file name (`<day>.json`, `<day>.<n>.json`): checked before a name from a row or a listing is opened. */
export const ROSTER_FILE = /^[\w.-]+\.json$/;
/** What a writer's temp file carries in its name until it is renamed into place (see atomic.ts). */
export const TEMP_MARK = /\.tmp-\d+/;

/** An object's path relative to the archive (and to the site, which publishes objects at the same path). */
export function objectKey(sha256: string): string {
  return `${LAYOUT.objects}/${sha256.slice(0, 2)}/${sha256}`;
}

/** Where an object lives. The name is not checked here: callers check it with isObjectName first. */
export function objectPath(dir: string, sha256: string): string {
  return join(dir, LAYOUT.objects, sha256.slice(0, 2), sha256);
}

/** A page manifest's key, relative to the archive and to any object store (src/archive/object-store.ts). */
export function pageKey(sha256: string): string {
  return `${LAYOUT.pages}/${sha256.slice(0, 2)}/${sha256}.json`;
}

/** Where a page manifest lives in an archive folder. The name is checked by the caller (isObjectName). */
export function pagePath(dir: string, sha256: string): string {
  return join(dir, LAYOUT.pages, sha256.slice(0, 2), `${sha256}.json`);
}

/** An object name is a sha256, so it can never name a path outside objects/. */
export function isObjectName(name: string): boolean {
  return SHA256_HEX.test(name);
}

export function rosterPath(dir: string, file: string): string {
  return join(dir, LAYOUT.rosters, file);
}

/** A day file's path relative to the archive (as rows and problems name it); `folder`: a series' (SERIES_FOLDER). */
export function dayFile(day: string, gz = false, folder: string = LAYOUT.observations): string {
  return `${folder}/${day}.jsonl${gz ? '.gz' : ''}`;
}

export function runsPath(dir: string): string {
  return join(dir, LAYOUT.runs);
}

export function chainPath(dir: string): string {
  return join(dir, LAYOUT.chain);
}

/** An edition's folder (`editions/<id>/`). The id is checked by the caller (EDITION_ID). */
export function editionDir(dir: string, id: string): string {
  return join(dir, LAYOUT.editions, id);
}

/** An edition id: a month, and `-r<n>` for its n-th revision. */
export const EDITION_ID = /^(\d{4}-\d{2})(?:-r([1-9]\d*))?$/;

/** A validation record's file name: the day it was scored and the SHA-256 of its bytes (group 1, 2). */
export const VALIDATION_FILE = /^(\d{4}-\d{2}-\d{2})-([0-9a-f]{64})\.json$/;

/** A validation record's path relative to the archive (and to the site's /data/). */
export function validationFile(day: string, sha256: string): string {
  return `${LAYOUT.validations}/${day}-${sha256}.json`;
}

/** A restated series' manifest, relative to the archive. */
export function manifestFile(series: string): string {
  return join(LAYOUT.restatements, series, 'manifest.json');
}
