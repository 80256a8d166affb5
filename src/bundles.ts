// The /data/ downloads, written after the pages (see the integration in astro.config.mjs): streamed
// row by row through gzip straight to disk, so memory stays flat however large the archive grows.
// Then SHA256SUMS over every file written and a Frictionless datapackage.json describing each field.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import { eachObservation, readRoster, type Archive } from './archive.ts';
import { survivalCsv } from './charts/survival-export.ts';
import type { Observation } from './lib/index.ts';
import { OBSERVATION_FIELDS, INTERVAL_FIELDS, datapackage, citationCff, LICENCE_DATA, LICENCE_CODE, type BundleFile } from './data-catalogue.ts';

const OBS_COLUMNS = OBSERVATION_FIELDS.map((f) => f.name);

export async function writeBundles(a: Archive, outDir: string): Promise<BundleFile[]> {
  const dir = path.join(outDir, 'data');
  await mkdir(dir, { recursive: true });
  const files: BundleFile[] = [];
  const add = async (name: string, resource: BundleFile['resource'], rows: number | null) => files.push({ name, resource, rows, ...(await digest(path.join(dir, name))) });

  // Observations: whole archive and per month, JSONL.gz and CSV.gz, one pass over the day files.
  const whole = { jsonl: gzipFile(path.join(dir, 'observations.jsonl.gz')), csv: gzipFile(path.join(dir, 'observations.csv.gz')) };
  await whole.csv.write(csvLine(OBS_COLUMNS));
  let wholeRows = 0;
  for (const month of a.months) {
    const part = { jsonl: gzipFile(path.join(dir, `observations-${month}.jsonl.gz`)), csv: gzipFile(path.join(dir, `observations-${month}.csv.gz`)) };
    await part.csv.write(csvLine(OBS_COLUMNS));
    let monthRows = 0;
    for (const day of a.days.filter((d) => d.startsWith(month))) {
      await eachObservation(a.dir, day, async (row) => {
        const json = JSON.stringify(row) + '\n';
        const csv = csvLine(OBS_COLUMNS.map((c) => row[c as keyof Observation]));
        await part.jsonl.write(json);
        await part.csv.write(csv);
        await whole.jsonl.write(json);
        await whole.csv.write(csv);
        monthRows++;
      });
    }
    await part.jsonl.end();
    await part.csv.end();
    wholeRows += monthRows;
    await add(`observations-${month}.jsonl.gz`, 'observations', monthRows);
    await add(`observations-${month}.csv.gz`, 'observations', monthRows);
  }
  await whole.jsonl.end();
  await whole.csv.end();
  await add('observations.jsonl.gz', 'observations', wholeRows);
  await add('observations.csv.gz', 'observations', wholeRows);

  // Runs, verbatim rows.
  await writeFile(path.join(dir, 'runs.jsonl'), a.runs.map((r) => JSON.stringify(r) + '\n').join(''));
  await add('runs.jsonl', 'runs', a.runs.length);

  // Drift events with their findings (oldest first, as an append-only log reads).
  const changes = gzipFile(path.join(dir, 'changes.jsonl.gz'));
  for (const c of [...a.changes].reverse()) {
    await changes.write(
      JSON.stringify({
        target: c.target, day: c.day, observed_at: c.observedAt, run_id: c.runId,
        before_tools_sha256: c.beforeSha256, after_tools_sha256: c.afterSha256,
        before_body_sha256: c.beforeBody, after_body_sha256: c.afterBody, revert: c.revert,
        compatibility: c.compatibility, security: c.security, diff: c.diff, diff_problem: c.diffProblem, findings: c.findings,
      }) + '\n',
    );
  }
  await changes.end();
  await add('changes.jsonl.gz', 'changes', a.changes.length);

  // Contract intervals: enough to redo the survival estimate elsewhere.
  const intervals = [csvLine(INTERVAL_FIELDS.map((f) => f.name)), ...a.intervals.map((i) => csvLine(INTERVAL_FIELDS.map((f) => i[f.name as keyof typeof i])))].join('');
  await writeFile(path.join(dir, 'contract-intervals.csv'), intervals);
  await add('contract-intervals.csv', 'contract-intervals', a.intervals.length);

  await writeFile(path.join(dir, 'survival.csv'), survivalCsv(a));
  await add('survival.csv', 'survival', a.km.length);

  // Roster snapshots: one validated roster per line.
  const rosters = gzipFile(path.join(dir, 'rosters.jsonl.gz'));
  let rosterCount = 0;
  for (const file of a.rosterFiles) {
    const roster = await readRoster(a.dir, file);
    if (roster) {
      await rosters.write(JSON.stringify(roster) + '\n');
      rosterCount++;
    }
  }
  await rosters.end();
  await add('rosters.jsonl.gz', 'rosters', rosterCount);

  await writeFile(path.join(dir, 'LICENSE-DATA.txt'), LICENCE_DATA);
  await writeFile(path.join(dir, 'LICENSE-CODE.txt'), LICENCE_CODE);
  await writeFile(path.join(dir, 'CITATION.cff'), citationCff(a));
  await writeFile(path.join(dir, 'datapackage.json'), JSON.stringify(datapackage(a, files), null, 2) + '\n');
  for (const extra of ['LICENSE-DATA.txt', 'LICENSE-CODE.txt', 'CITATION.cff', 'datapackage.json']) await add(extra, null, null);

  const sums = files.map((f) => `${f.sha256}  ${f.name}\n`).join('');
  await writeFile(path.join(dir, 'SHA256SUMS'), sums);
  return files;
}

interface GzipFile {
  write(text: string): Promise<void>;
  end(): Promise<void>;
}

/** A gzip stream to a file that honours backpressure. Node's gzip header carries mtime 0: same input, same bytes. */
function gzipFile(file: string): GzipFile {
  const gzip = createGzip({ level: 6 });
  const out = createWriteStream(file);
  gzip.pipe(out);
  const closed = once(out, 'close');
  return {
    async write(text) {
      if (!gzip.write(text)) await once(gzip, 'drain');
    },
    async end() {
      gzip.end();
      await closed;
    },
  };
}

async function digest(file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return { sha256: hash.digest('hex'), bytes: (await stat(file)).size };
}

/** RFC 4180 line. Text that a spreadsheet would run as a formula (= + - @ tab CR first) gets a leading '. */
export function csvLine(values: readonly unknown[]): string {
  return values.map(csvCell).join(',') + '\r\n';
}

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  let s = typeof v === 'string' ? v : JSON.stringify(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

