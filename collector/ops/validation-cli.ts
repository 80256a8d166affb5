// npm run validation -- draw [--data <dir>] [--seed <n>] [--n <n>] [--out <worksheet>] | score <worksheet> [--data <dir>] [--json]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { LAYOUT } from '../../src/archive/layout.ts';
import { DRAW_RULE, REVIEW_STATUSES, VALIDATION_N, VALIDATION_SEED, VALIDATION_THRESHOLD } from '../../src/lib/index.ts';
import { CliError, command, EXIT, exitCodes, expected, integer, main, usage } from '../cli-kit/index.ts';
import { drawWorksheet, scoreAndRecord, worksheetJson, worksheetMarkdown, worksheetPaths } from './validation.ts';

export const HELP = `usage: npm run validation -- draw [--data <dir>] [--seed <n>] [--n <n>] [--out <worksheet>]
       npm run validation -- score <worksheet.json> [--data <dir>] [--json]

The validation gate (the pre-registered study's §5; docs/VALIDATION.md): a reviewer re-checks a
stratified sample of endpoints by hand, and their statuses are compared with the classifier's.

  draw   from the latest full methodology v2 run (finished, not limited) of the archive, draw --n
         endpoints stratified across their statuses, deterministically from --seed, and write the
         worksheet: <worksheet>.json (what score reads; the reviewer fills in reviewer_status) and
         <worksheet>.md (the same, to read: per endpoint the stored raw answers and the curl commands
         that repeat the probe by hand, per MCP 2026-07-28 and its legacy fallback; what the archive
         recorded is at the end, to read after the review). Existing files are not overwritten.
         The draw: ${DRAW_RULE}
  score  compare the reviewer's statuses with the statuses the run's rows in the archive hold (read
         again from the archive, not from the worksheet): agreement with its Wilson 95% interval,
         Cohen's κ, and every disagreement. Refuses a worksheet with an endpoint without
         reviewer_status or with one not in: ${REVIEW_STATUSES.join(', ')}.
         Keeps the result in the archive as ${LAYOUT.validations}/<day>-<sha256>.json (the day it was
         scored, the SHA-256 of the record's bytes), written once, never overwritten. Passed when the
         agreement is at least ${VALIDATION_THRESHOLD * 100}%; /statistics/ then says the v2 figures passed the gate.

  --data <dir>        the archive (default: data/)
  --seed <n>          draw: the seed, an integer from 0 to 4294967295 (default ${VALIDATION_SEED}, the study's)
  --n <n>             draw: how many endpoints (default ${VALIDATION_N}; the whole population when it is smaller)
  --out <worksheet>   draw: the worksheet's path without extension (default validation-<run day>-<seed>)
  --json              score: print the record as JSON
  -h, --help          this text

${exitCodes({
  0: 'done (score: whether or not the gate passed; the output says which)',
  1: 'nothing to draw (no full v2 run, or its day\'s rows not in the folder), or the worksheet cannot\n              be scored (missing or unknown reviewer statuses, endpoints that are not the draw, a run not\n              in the archive)',
  2: 'bad usage, an unusable --data, or a worksheet that exists already',
})}`;

export const COMMAND = command({
  name: 'validation',
  help: HELP,
  positionals: 2,
  options: {
      data: { type: 'string', default: 'data' },
      seed: { type: 'string', default: String(VALIDATION_SEED) },
      n: { type: 'string', default: String(VALIDATION_N) },
      out: { type: 'string' },
      json: { type: 'boolean', default: false },
  },
});

main(import.meta.url, COMMAND, async ({ values, positionals }, io) => {
  const command = positionals[0];
  if (!existsSync(values.data)) throw new CliError(`no archive at --data ${values.data}`, EXIT.usage);
  if (command === 'draw' && positionals.length === 1) {
    const seed = integer('seed', values.seed, { min: 0, max: 0xffffffff })!;
    const n = integer('n', values.n, { min: 1, max: 100_000 })!;
    const ws = await expected(drawWorksheet(values.data, { seed, n }));
    const paths = worksheetPaths(values.out ?? `validation-${ws.run_day}-${seed}`);
    for (const p of [paths.json, paths.md]) if (existsSync(p)) throw new CliError(`${p} exists: a worksheet is not overwritten (another --out, or move it away)`, EXIT.usage);
    writeFileSync(paths.json, worksheetJson(ws), { flag: 'wx' });
    writeFileSync(paths.md, worksheetMarkdown(ws, paths.json), { flag: 'wx' });
    const drawn = Object.entries(ws.allocation).map(([s, k]) => `${s} ${k}/${ws.population[s]}`).join(', ');
    io.stdout(`drew ${ws.endpoints.length} endpoints of run ${ws.run_id} (${ws.run_day}) with seed ${seed}: ${drawn}\nwrote ${paths.json} (fill in reviewer_status) and ${paths.md} (to read)\n`);
    return 0;
  }
  if (command === 'score' && positionals.length === 2) {
    const file = positionals[1]!;
    if (!existsSync(file)) throw new CliError(`no worksheet at ${file}`, EXIT.usage);
    const r = await expected(() => scoreAndRecord(values.data, readFileSync(file, 'utf8'), new Date()));
    const a = r.record.agreement;
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    if (values.json) io.stdout(`${JSON.stringify({ file: r.file, sha256: r.sha256, written: r.written, record: r.record }, null, 2)}\n`);
    else
      io.stdout(
        [
          `agreement ${a.count} of ${a.n} (${pct(a.share)}, 95% interval ${pct(a.lower)}–${pct(a.upper)}); Cohen's κ ${r.record.kappa === null ? 'undefined (one status throughout)' : r.record.kappa.toFixed(3)}`,
          r.record.passed ? `PASSED: at least ${pct(r.record.threshold)}` : `NOT PASSED: below ${pct(r.record.threshold)}. Fix the classifier, re-classify (npm run restate), and validate again on a fresh draw (another --seed).`,
          `${r.record.disagreements.length} disagreement${r.record.disagreements.length === 1 ? '' : 's'}${r.record.disagreements.length > 0 ? ':' : ''}`,
          ...r.record.disagreements.map((d) => `  ${JSON.stringify(d.target)}: recorded ${d.recorded}, reviewer ${d.reviewer}${d.note ? ` (${JSON.stringify(d.note)})` : ''}`),
          r.written ? `recorded as ${r.file}` : `already recorded as ${r.file} (the same record, byte for byte): nothing written`,
        ].join('\n') + '\n',
      );
    return 0;
  }
  throw usage('expected draw, or score <worksheet.json> (see --help)');
});
