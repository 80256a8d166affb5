// Sealed months: the months whose /data/ bundles (JSON Lines, CSV, Parquet of the row series and roster
// targets) were written to the file host, each under a key of the days it was written from. Once they
// are uploaded, a later build whose month has the same key takes their names, sizes, rows and SHA-256s
// from this record instead of reading the month's days and writing the files again. The record
// travels with the file host's manifest (npm run publish-files keeps it, and hands it to the next build),
// so it says only what was uploaded. Pure: parsing, checking and merging; the build and the upload do the I/O.

/** One published file of a sealed month, as SHA256SUMS and datapackage.json describe it. */
export interface SealedFile {
  name: string;
  url?: string;
  resource: string | null;
  rows: number | null;
  sha256: string;
  bytes: number;
}

/** A sealed month: the key of what its files were written from, and the files. */
export interface SealedMonth {
  key: string;
  files: SealedFile[];
}

export interface SealedBundles {
  format: 1;
  /** By month (YYYY-MM). */
  months: Record<string, SealedMonth>;
}

const HEX64 = /^[0-9a-f]{64}$/;
const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
// A bundle's file name: no folder, no dot-file, nothing a path could be made of.
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

function fileOf(v: unknown): SealedFile | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const f = v as Record<string, unknown>;
  if (typeof f.name !== 'string' || !NAME.test(f.name)) return null;
  if (typeof f.sha256 !== 'string' || !HEX64.test(f.sha256)) return null;
  if (!Number.isSafeInteger(f.bytes) || (f.bytes as number) < 0) return null;
  if (f.rows !== null && (!Number.isSafeInteger(f.rows) || (f.rows as number) < 0)) return null;
  if (f.resource !== null && typeof f.resource !== 'string') return null;
  if (f.url !== undefined && (typeof f.url !== 'string' || !/^https?:\/\//.test(f.url))) return null;
  const out: SealedFile = { name: f.name, resource: f.resource as string | null, rows: f.rows as number | null, sha256: f.sha256, bytes: f.bytes as number };
  if (f.url !== undefined) out.url = f.url as string;
  return out;
}

/**
 * A sealed-months record from parsed JSON, checked field by field; null when it is not one (the
 * reader then says so: a record it cannot trust is never half-used).
 */
export function parseSealedBundles(v: unknown): SealedBundles | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const r = v as Record<string, unknown>;
  if (r.format !== 1 || typeof r.months !== 'object' || r.months === null || Array.isArray(r.months)) return null;
  const months: Record<string, SealedMonth> = {};
  for (const [month, m] of Object.entries(r.months as Record<string, unknown>)) {
    if (!MONTH.test(month) || typeof m !== 'object' || m === null || Array.isArray(m)) return null;
    const { key, files } = m as Record<string, unknown>;
    if (typeof key !== 'string' || !HEX64.test(key) || !Array.isArray(files)) return null;
    const checked = files.map(fileOf);
    if (checked.some((f) => f === null)) return null;
    const names = new Set(checked.map((f) => f!.name));
    if (names.size !== checked.length) return null;
    months[month] = { key, files: checked as SealedFile[] };
  }
  return { format: 1, months: sortedMonths(months) };
}

/** The published record with a build's months laid over it (a month the build sealed again replaces its old entry). */
export function mergeSealedBundles(published: SealedBundles | null, folder: SealedBundles): SealedBundles {
  return { format: 1, months: sortedMonths({ ...(published?.months ?? {}), ...folder.months }) };
}

/**
 * The files of a build's record that the file host does not hold with those bytes: `published` maps a
 * path under the host (`data/<name>`) to its SHA-256. Empty when every file the record names was uploaded.
 */
export function unpublishedSealedFiles(record: SealedBundles, published: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const m of Object.values(record.months)) for (const f of m.files) if (published[`data/${f.name}`] !== f.sha256) out.push(`data/${f.name}`);
  return out;
}

function sortedMonths(months: Record<string, SealedMonth>): Record<string, SealedMonth> {
  return Object.fromEntries(Object.entries(months).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}
