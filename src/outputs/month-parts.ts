// Monthly parts: the whole archive published as one immutable part per closed month, each
// the assets of a release named for the month (`data-<YYYY-MM>`), uploaded once and never replaced,
// and a small manifest on the site that lists every part with its URLs, sizes and SHA-256s. This module
// is the pure half — which months are closed, what the files are called, how a part is cut into pieces
// that fit a release asset, the descriptor and the manifest; scripts/month-parts.ts (`npm run months`)
// reads the archive, writes and verifies the files.
//
// A part is an independent copy of the month's record, laid out as an archive (a folder `<base>/`
// inside `<base>.tar.gz`): the month's day files of every series as they are (closed days: their
// .jsonl.gz), its runs' lines of runs.jsonl, their rosters, the chain from its start up to the month's
// last manifest, every object and page manifest the month's rows and rosters name (with a packed
// page's entries), the archive's keys/, the validation records scored in the month, part.json and a SHA256SUMS of every file but the objects
// (which are named by their hash). `npm run months -- verify` checks one against the hash chain.
//
// Published names never change: a month's assets are `<base>.tar.gz` — or, if it would not fit under
// MAX_PIECE_BYTES, `<base>.tar.gz.001`, `.002`, … (join them with cat) —, `<base>.json` (this
// module's PartDescriptor) and `SHA256SUMS`, with `<base>` = `mcp-schema-<YYYY-MM>` (`-SIMULATED`
// after it for a simulated world). The split is computed from the written size, never assumed.
import { z } from 'zod';
import { isObject, OBJECT_FIELDS, SHA256_HEX } from '../lib/index.ts';
import { simulatedName } from './publication.ts';

/** The format every part descriptor (`<base>.json`, and part.json inside the part) carries. */
export const PART_FORMAT = 'mcp-schema/month-part/v1' as const;
/** The format of the site's manifest of parts. */
export const PARTS_MANIFEST_FORMAT = 'mcp-schema/parts-manifest/v1' as const;

/**
 * The largest file a part publishes. GitHub's limit is "each asset < 2 GiB" (2,147,483,648 bytes);
 * 2,000,000,000 leaves 147 MB of room, and a part that would be larger is cut into pieces of at most this.
 */
export const MAX_PIECE_BYTES = 2_000_000_000;
/** GitHub allows 1,000 assets per release: a part's pieces, its descriptor and its SHA256SUMS. */
export const MAX_RELEASE_ASSETS = 1000;

/** Where the site publishes the manifest of parts and its checksums (deploy.yml writes them after the build). */
export const PARTS_MANIFEST_PATH = '/data/parts/manifest.json';
export const PARTS_SUMS_PATH = '/data/parts/SHA256SUMS';

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `YYYY-MM`, checked. */
export function checkMonth(month: string): string {
  if (!MONTH.test(month)) throw new Error(`not a month (YYYY-MM): ${JSON.stringify(month.slice(0, 40))}`);
  return month;
}

/** The last day of a month, `YYYY-MM-DD` (UTC calendar). */
export function lastDayOf(month: string): string {
  const [y, m] = checkMonth(month).split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

/** The release a month's part is published as. */
export function releaseTag(month: string): string {
  return `data-${checkMonth(month)}`;
}

/** A month's published names: the folder inside the tar, the tar, the descriptor, the release's checksums. */
export function partNames(month: string, simulated: boolean): { base: string; tar: string; descriptor: string; sums: string } {
  const base = simulatedName(`mcp-schema-${checkMonth(month)}`, { simulated });
  return { base, tar: `${base}.tar.gz`, descriptor: `${base}.json`, sums: 'SHA256SUMS' };
}

/** What a day looks like to the closing rule: its series folder, its day and its files (archive-relative). */
export interface DayEntry {
  folder: string;
  day: string;
  files: readonly string[];
}

export interface MonthStatus {
  month: string;
  closed: boolean;
  /** Why it is not closed yet (null when closed). */
  reason: string | null;
}

/**
 * Every month the archive has days or runs in, oldest first, and whether it is closed: its last day
 * is before `today` (UTC) and every day file of the month, in every series folder, is compacted (a
 * single `.jsonl.gz`: no plain file, which a run could still append to).
 */
export function monthStatuses(days: readonly DayEntry[], runDays: readonly string[], today: string): MonthStatus[] {
  if (!DAY.test(today)) throw new Error(`not a day (YYYY-MM-DD): ${JSON.stringify(today.slice(0, 40))}`);
  const months = [...new Set([...days.map((d) => d.day.slice(0, 7)), ...runDays.map((d) => d.slice(0, 7))])].filter((m) => MONTH.test(m)).sort();
  return months.map((month) => {
    const last = lastDayOf(month);
    if (!(last < today)) return { month, closed: false, reason: `its last day (${last}) is not past (today is ${today})` };
    const open = days.find((d) => d.day.startsWith(`${month}-`) && !(d.files.length === 1 && d.files[0]!.endsWith('.jsonl.gz')));
    if (open) return { month, closed: false, reason: `${open.files.find((f) => !f.endsWith('.gz')) ?? open.files.join(', ')} is not compacted (npm run compact)` };
    return { month, closed: true, reason: null };
  });
}

/** The byte ranges ([start, end), in order) a file of `bytes` is cut into so that none is over `maxPiece`. */
export function pieceRanges(bytes: number, maxPiece: number = MAX_PIECE_BYTES): { start: number; end: number }[] {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new Error(`not a size: ${bytes}`);
  if (!Number.isSafeInteger(maxPiece) || maxPiece < 1) throw new Error(`not a piece size: ${maxPiece}`);
  if (bytes <= maxPiece) return [{ start: 0, end: bytes }];
  const out: { start: number; end: number }[] = [];
  for (let start = 0; start < bytes; start += maxPiece) out.push({ start, end: Math.min(bytes, start + maxPiece) });
  return out;
}

/** The published names of `count` pieces of `file`: the file itself when it is whole, else `<file>.001`, `.002`, … (three digits at least, so they sort). */
export function pieceNames(file: string, count: number): string[] {
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`not a piece count: ${count}`);
  if (count === 1) return [file];
  const width = Math.max(3, String(count).length);
  return Array.from({ length: count }, (_, i) => `${file}.${String(i + 1).padStart(width, '0')}`);
}

/** The raw objects a row names (OBJECT_FIELDS: a name, or an array of names), as the chain counts them. */
export function rowObjectNames(row: unknown): string[] {
  if (!isObject(row)) return [];
  const out: string[] = [];
  for (const field of OBJECT_FIELDS) {
    const v = row[field];
    for (const name of Array.isArray(v) ? v : [v]) if (typeof name === 'string' && SHA256_HEX.test(name)) out.push(name);
  }
  return out;
}

/** The pages a roster names (`pages[].sha256`), as the chain counts them. */
export function rosterPageNames(roster: unknown): string[] {
  if (!isObject(roster) || !Array.isArray(roster.pages)) return [];
  return roster.pages.map((p) => (isObject(p) ? p.sha256 : null)).filter((s): s is string => typeof s === 'string' && SHA256_HEX.test(s));
}

const sha256 = z.string().regex(SHA256_HEX);
const FileRef = z.object({ name: z.string().min(1).max(200).regex(/^[A-Za-z0-9._-]+$/), bytes: z.number().int().nonnegative(), sha256 }).strict();
export type FileRef = z.infer<typeof FileRef>;

/** What a part holds and where its bytes are: `<base>.json` beside the pieces (and, without `file` and `pieces`, part.json inside). */
export const PartDescriptor = z
  .object({
    format: z.literal(PART_FORMAT),
    month: z.string().regex(MONTH),
    tag: z.string().regex(/^data-\d{4}-\d{2}$/),
    simulated: z.boolean(),
    /** The folder the tar holds everything under. */
    folder: z.string().regex(/^[A-Za-z0-9._-]+$/),
    /** Day files by series folder, archive-relative, as they are in the archive. */
    day_files: z.array(z.string().max(200)),
    /** The month's runs, in runs.jsonl order, with the chain manifest that covers each (null: not on the chain). */
    runs: z.array(z.object({ run_id: z.string().min(1).max(64), day: z.string().regex(DAY), lines: z.number().int().positive(), manifest: z.object({ seq: z.number().int().nonnegative(), sha256 }).strict().nullable() }).strict()),
    rosters: z.array(z.string().max(200)),
    /** Distinct objects and page manifests (store keys) in the part, packed pages' entries included. */
    objects: z.number().int().nonnegative(),
    /** The chain the part carries: its manifests from the start up to the month's last, and that last one. */
    chain: z.object({ manifests: z.number().int().nonnegative(), head: z.object({ seq: z.number().int().nonnegative(), sha256 }).strict().nullable() }).strict(),
    /** The validation gate records scored in the month (validations/<day>-<sha256>.json); absent when there are none. */
    validations: z.array(z.string().regex(/^validations\/\d{4}-\d{2}-\d{2}-[0-9a-f]{64}\.json$/)).min(1).optional(),
    /** The whole `<base>.tar.gz`; absent from part.json (a file cannot name its own container's hash). */
    file: FileRef.optional(),
    /** What is published: the file itself, or its pieces in order (cat them to get the file). */
    pieces: z.array(FileRef).min(1).max(MAX_RELEASE_ASSETS - 2).optional(),
  })
  .strict();
export type PartDescriptor = z.infer<typeof PartDescriptor>;

/** A descriptor as its file holds it (stable key order, two-space indent, LF at the end). */
export function descriptorJson(d: PartDescriptor): string {
  return `${JSON.stringify(PartDescriptor.parse(d), null, 2)}\n`;
}

/** A descriptor file's text, validated; throws one line naming what is wrong. */
export function parseDescriptor(text: string, where: string): PartDescriptor {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${where}: not JSON`);
  }
  const r = PartDescriptor.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new Error(`${where}: ${issue.path.join('.') || '(top)'}: ${issue.message}`.slice(0, 300));
  }
  return r.data;
}

/** SHA256SUMS text (`<sha256>  <name>` per line, by name), as `sha256sum -c` reads it. */
export function sumsText(files: readonly { name: string; sha256: string }[]): string {
  return [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((f) => `${f.sha256}  ${f.name}\n`).join('');
}

/** SHA256SUMS lines back (name → sha256); throws on a line that is not one. */
export function parseSums(text: string, where: string): Map<string, string> {
  const out = new Map<string, string>();
  text.split('\n').forEach((line, i) => {
    if (line === '') return;
    const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    if (!m) throw new Error(`${where}:${i + 1}: not a SHA256SUMS line`);
    out.set(m[2]!, m[1]!);
  });
  return out;
}

/** A part as the manifest lists it: its descriptor, and the descriptor file's own size and hash. */
export interface ListedPart {
  descriptor: PartDescriptor;
  descriptorFile: { bytes: number; sha256: string };
}

export interface ManifestOptions {
  /** The public URL of an asset of a release (`https://github.com/<repo>/releases/download/<tag>/<name>`). */
  assetUrl: (tag: string, name: string) => string;
  /** Months with data that are not in a part yet (open, or closed and not published yet), and where they are meanwhile. */
  notInParts: { months: string[]; url: string };
  simulated: boolean;
}

/**
 * The site's manifest of the whole archive: every part, oldest first, with the URL, size and SHA-256
 * of each file to download, and how to rejoin and check it. Parts are immutable, so a manifest only
 * ever gains entries.
 */
export function partsManifest(parts: readonly ListedPart[], opts: ManifestOptions): Record<string, unknown> {
  const sorted = [...parts].sort((a, b) => (a.descriptor.month < b.descriptor.month ? -1 : 1));
  const months = sorted.map((p) => p.descriptor.month);
  if (new Set(months).size !== months.length) throw new Error(`a month is listed twice: ${months.join(', ')}`);
  return {
    format: PARTS_MANIFEST_FORMAT,
    ...(opts.simulated ? { simulated: true } : {}),
    description:
      'The whole mcp-schema archive as one part per closed month, each published once as the assets of a release named for the month and never replaced. ' +
      'A part is the month\'s record as an archive folder (day files, run rows, rosters, the hash chain up to the month, every raw object its rows name) in a .tar.gz; ' +
      'a part over the largest asset size is cut into pieces: cat them in order to get the .tar.gz. Check the files with SHA256SUMS, and a part against the hash chain with `npm run months -- verify <folder>`.',
    parts: sorted.map(({ descriptor: d, descriptorFile }) => {
      const pieces = d.pieces ?? (d.file ? [d.file] : []);
      return {
        month: d.month,
        tag: d.tag,
        days: new Set(d.day_files.map((f) => /(\d{4}-\d{2}-\d{2})\.jsonl/.exec(f)?.[1] ?? f)).size,
        runs: d.runs.length,
        objects: d.objects,
        chain_head: d.chain.head,
        file: d.file ? { ...d.file, ...(pieces.length === 1 ? { url: opts.assetUrl(d.tag, d.file.name) } : {}) } : null,
        pieces: pieces.length > 1 ? pieces.map((p) => ({ ...p, url: opts.assetUrl(d.tag, p.name) })) : [],
        ...(pieces.length > 1 ? { join: `cat ${pieces.map((p) => p.name).join(' ')} > ${d.file!.name}` } : {}),
        descriptor: { name: partNames(d.month, d.simulated).descriptor, url: opts.assetUrl(d.tag, partNames(d.month, d.simulated).descriptor), ...descriptorFile },
        sums_url: opts.assetUrl(d.tag, 'SHA256SUMS'),
      };
    }),
    not_in_parts: opts.notInParts,
  };
}

/** The manifest's SHA256SUMS: every file the parts publish (pieces and descriptors; names are unique across months). */
export function manifestSums(parts: readonly ListedPart[]): string {
  const files: { name: string; sha256: string }[] = [];
  for (const { descriptor: d, descriptorFile } of parts) {
    for (const p of d.pieces ?? (d.file ? [d.file] : [])) files.push(p);
    files.push({ name: partNames(d.month, d.simulated).descriptor, sha256: descriptorFile.sha256 });
  }
  return sumsText(files);
}
