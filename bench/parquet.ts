// `npm run bench:parquet -- --archive .bench/a-25k-365 [--series v1|v2] [--repeat 2] [--out DIR]`
//
// The Parquet step alone, on a real archive's day files, without a site build around it: the
// observations of every month written to `observations-<month>.parquet` by the same writer and SQL as
// the site's bundles (src/outputs/parquet.ts: DuckDB, one thread, 512 MB memory limit, zstd, fixed
// row groups), straight from the compacted day files (a closed, clean day is its own bundle member).
// Reports rows, seconds, rows/s, the process's peak RSS (VmHWM, DuckDB's native memory included),
// bytes of Parquet against the same days' JSONL.gz, and whether a second run wrote the same bytes.
// `--series v2` does the same for methodology v2's rows (observations-v2-<month>.parquet, lists as lists).
import { checked, command, exitCodes, integer, oneOf, script } from '../collector/cli-kit/index.ts';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listDays } from '../src/archive/day-files.ts';
import { SERIES_FOLDER } from '../src/archive/layout.ts';
import { observationsParquetWriter, MEMORY_LIMIT, ROW_GROUP_SIZE, duckdbVersion } from '../src/outputs/parquet.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

function peakRssMb(): number {
  const m = /VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

const HELP = `usage: npm run bench:parquet -- [--archive <dir>] [--series v1|v2] [--repeat <n>] [--out <dir>]

The Parquet step alone: every month's observations of an archive written to
observations-<month>.parquet by the site's writer (src/outputs/parquet.ts), n times, comparing the bytes.
Prints rows, wall and CPU seconds, rows/s, peak RSS (DuckDB included), MB of Parquet against the day
files, and whether every run wrote the same bytes (JSON on stdout, progress on stderr).

  --archive <dir>  the archive to read (default: data/); a generated one: npm run bench:archive
  --series v1|v2   which row series (default v1: observations/; v2: observations-v2/)
  --repeat <n>     runs (default 2)
  --out <dir>      where the temporary Parquet files go (default: the OS temp folder; removed after)
  -h, --help       this text

${exitCodes({ 0: 'measured, every run the same bytes', 1: 'runs differed, or a run failed', 2: 'bad usage' })}`;

const COMMAND = command({
  name: 'bench:parquet',
  help: HELP,
  options: { archive: { type: 'string' }, series: { type: 'string', default: 'v1' }, repeat: { type: 'string', default: '2' }, out: { type: 'string' } },
});

async function main(): Promise<void> {
  const { values } = script(COMMAND);
  const archive = path.resolve(values.archive ?? path.join(ROOT, 'data'));
  const repeat = checked(COMMAND, () => integer('repeat', values.repeat, { min: 1, max: 100 })!);
  const seriesArg = checked(COMMAND, () => oneOf('series', values.series, ['v1', 'v2'] as const)!);
  const series = seriesArg === 'v1' ? 'observations' : 'observations-v2';
  const days = listDays(archive, SERIES_FOLDER[seriesArg]);
  const months = [...new Set(days.map((d) => d.day.slice(0, 7)))];
  const inputBytes = days.flatMap((d) => d.files).reduce((n, f) => n + statSync(path.join(archive, f)).size, 0);
  console.error(`$ npm run bench:parquet -- --archive ${path.relative(process.cwd(), archive) || archive} --series ${seriesArg} --repeat ${repeat}`);
  console.error(`  machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.error(`  DuckDB ${duckdbVersion()}, threads 1, memory_limit ${MEMORY_LIMIT}, ZSTD, row groups of ${ROW_GROUP_SIZE}; ${days.length} days in ${months.length} months, ${(inputBytes / 1e6).toFixed(0)} MB of day files`);
  const runs: { seconds: number; cpu: number; rows: number; bytes: number; hashes: string[] }[] = [];
  for (let i = 0; i < repeat; i++) {
    const out = mkdtempSync(path.join(values.out ?? os.tmpdir(), 'mcp-schema-bench-parquet-'));
    const writer = await observationsParquetWriter(path.join(out, 'tmp'), { simulated: false }, series);
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    let rows = 0;
    let bytes = 0;
    const hashes: string[] = [];
    try {
      for (const month of months) {
        const file = path.join(out, `${series}-${month}.parquet`);
        const files = days.filter((d) => d.day.startsWith(month)).flatMap((d) => d.files.map((f) => path.join(archive, f)));
        rows += await writer.write(files, file);
        bytes += statSync(file).size;
        hashes.push(createHash('sha256').update(readFileSync(file)).digest('hex'));
      }
    } finally {
      writer.close();
    }
    const seconds = (performance.now() - t0) / 1000;
    // DuckDB runs in this process: its CPU time is in cpuUsage (steadier than wall time on a shared machine).
    const c = process.cpuUsage(c0);
    const cpu = (c.user + c.system) / 1e6;
    runs.push({ seconds, cpu, rows, bytes, hashes });
    console.error(`run ${i + 1}/${repeat}: ${rows.toLocaleString('en')} rows in ${seconds.toFixed(1)} s wall, ${cpu.toFixed(1)} s CPU (${Math.round(rows / seconds).toLocaleString('en')} rows/s), ${(bytes / 1e6).toFixed(0)} MB of Parquet, peak RSS so far ${peakRssMb()} MB`);
    rmSync(out, { recursive: true, force: true });
  }
  const identical = runs.every((r) => JSON.stringify(r.hashes) === JSON.stringify(runs[0]!.hashes));
  console.log(
    JSON.stringify(
      {
        archive,
        series: seriesArg,
        days: days.length,
        months: months.length,
        rows: runs[0]!.rows,
        seconds: runs.map((r) => +r.seconds.toFixed(1)),
        cpu_seconds: runs.map((r) => +r.cpu.toFixed(1)),
        rows_per_s: Math.round(runs[0]!.rows / Math.min(...runs.map((r) => r.seconds))),
        peak_rss_mb: peakRssMb(),
        parquet_mb: +(runs[0]!.bytes / 1e6).toFixed(1),
        day_files_mb: +(inputBytes / 1e6).toFixed(1),
        byte_identical_across_runs: identical,
      },
      null,
      2,
    ),
  );
  if (!identical) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
