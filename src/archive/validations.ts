// The validation gate's records (validations/<day>-<sha256>.json; docs/VALIDATION.md): written once by
// `npm run validation -- score`, read by the site. Content-addressed like objects: the name carries the
// SHA-256 of the file's bytes, so a record can be cited by its hash and an edited one is found (its
// bytes no longer hash to its name) and never shown. A record is never overwritten: it is written to a
// temp file and linked into place, and a name that exists already holds the same bytes.
import { createHash } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationRecord } from '../lib/index.ts';
import { fsyncPath, nodeFs, tempName, writeDurably, type FsEffects } from './atomic.ts';
import { LAYOUT, VALIDATION_FILE, validationFile } from './layout.ts';
import { NOT_JSON, validate, type Problem } from './problems.ts';

export interface StoredValidation {
  /** Relative to the archive: validations/<day>-<sha256>.json. */
  file: string;
  sha256: string;
  /** The file's bytes as stored (what the site publishes, so the hash holds there too). */
  text: string;
  record: ValidationRecord;
}

/** The record's bytes: pretty JSON, one trailing newline. */
export function validationBytes(record: ValidationRecord): Buffer {
  return Buffer.from(`${JSON.stringify(record, null, 2)}\n`, 'utf8');
}

/**
 * Write a record once: validations/<record.day>-<sha256>.json, durable. `written` is false when that
 * file exists already (the same record, byte for byte: the name is its hash); nothing is replaced.
 */
export function writeValidationRecord(dir: string, record: ValidationRecord, fx: FsEffects = nodeFs): { file: string; sha256: string; written: boolean } {
  const parsed = ValidationRecord.safeParse(record);
  if (!parsed.success) throw new Error(`not a validation record: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const bytes = validationBytes(record);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const file = validationFile(record.day, sha256);
  const path = join(dir, file);
  if (existsSync(path)) return { file, sha256, written: false };
  mkdirSync(join(dir, LAYOUT.validations), { recursive: true });
  const tmp = tempName(path);
  writeDurably(tmp, bytes, true, fx);
  try {
    fx.linkSync(tmp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return { file, sha256, written: false };
  } finally {
    unlinkSync(tmp);
  }
  fsyncPath(join(dir, LAYOUT.validations), fx);
  return { file, sha256, written: true };
}

/** Every record in the archive (by file name), and the files that are not sound records, each as a problem. */
export function readValidations(dir: string): { records: StoredValidation[]; problems: Problem[] } {
  const folder = join(dir, LAYOUT.validations);
  const records: StoredValidation[] = [];
  const problems: Problem[] = [];
  if (!existsSync(folder)) return { records, problems };
  for (const name of readdirSync(folder).sort()) {
    const file = `${LAYOUT.validations}/${name}`;
    const m = VALIDATION_FILE.exec(name);
    if (!m) {
      if (!name.includes('.tmp-')) problems.push({ file, line: null, message: 'not a validation record name (<day>-<sha256>.json)' });
      continue;
    }
    const bytes = readFileSync(join(folder, name));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (sha256 !== m[2]) {
      problems.push({ file, line: null, message: `its bytes hash to ${sha256}, not to its name` });
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      problems.push({ file, line: null, message: NOT_JSON });
      continue;
    }
    const v = validate<ValidationRecord>(value, ValidationRecord);
    if (!v.ok) problems.push({ file, line: null, message: v.message });
    else if (v.value.day !== m[1]) problems.push({ file, line: null, message: `its day ${v.value.day} is not its name's ${m[1]}` });
    else records.push({ file, sha256, text: bytes.toString('utf8'), record: v.value });
  }
  return { records, problems };
}
