#!/usr/bin/env node
// Per-file figures of a Stryker run, with and without the documented equivalent mutants.
//
//   node scripts/mutation-summary.mjs reports/mutation/mutation.json [more reports…] [--survivors] [--markdown] [--groups]
//
// Score = (killed + timeout) / (killed + timeout + survived + no coverage), Stryker's "mutation score".
// "Without the equivalents" leaves out of that denominator every surviving or uncovered mutant that
// docs/mutation-equivalents.json lists: each entry names a file, a line and column, where the mutated code ends (end, line:column), the mutator
// and the replacement Stryker printed, and the group whose reason docs/MUTATION.md gives. An entry that matches
// no surviving mutant is reported (stale: the code or the tests moved), and so is a listed mutant that was
// killed after all. --survivors prints every surviving or uncovered mutant not listed as equivalent. --groups prints
// every group of docs/mutation-equivalents.json as a Markdown list item: its reason and its mutants' places (file:line),
// whether or not the reports cover them (docs/MUTATION.md carries that list).
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
const reports = args.filter((a) => !a.startsWith('--'));
if (reports.length === 0 || flags.has('--help')) {
  console.error('usage: node scripts/mutation-summary.mjs <mutation.json>… [--survivors] [--markdown] [--groups]');
  process.exit(reports.length === 0 && !flags.has('--help') ? 2 : 0);
}
const equivPath = new URL('../docs/mutation-equivalents.json', import.meta.url);
/** @type {{ groups: Record<string, string>, mutants: { file: string, line: number, column: number, end: string, mutator: string, replacement: string, group: string }[] }} */
const equiv = JSON.parse(readFileSync(equivPath, 'utf8'));
for (const e of equiv.mutants) {
  if (!equiv.groups[e.group]) throw new Error(`docs/mutation-equivalents.json: ${e.file}:${e.line} names group "${e.group}", which has no reason`);
}
const keyOf = (file, line, column, end, mutator, replacement) => `${file}\u0000${line}:${column}-${end}\u0000${mutator}\u0000${replacement}`;
const listed = new Map(equiv.mutants.map((e) => [keyOf(e.file, e.line, e.column, e.end, e.mutator, e.replacement), e]));
const matched = new Set();
const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);
const rows = [];
const undetected = [];
const killedButListed = [];
for (const report of reports) {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  for (const [file, { mutants }] of Object.entries(json.files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const r = { file, Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, other: 0, equivalent: 0, static: 0 };
    for (const m of mutants) {
      if (m.static) r.static++;
      if (r[m.status] === undefined) { r.other++; continue; }
      r[m.status]++;
      const k = keyOf(file, m.location.start.line, m.location.start.column, `${m.location.end.line}:${m.location.end.column}`, m.mutatorName, m.replacement ?? '');
      const e = listed.get(k);
      if (e) matched.add(k);
      if (UNDETECTED.has(m.status)) {
        if (e) r.equivalent++;
        else undetected.push({ file, line: m.location.start.line, column: m.location.start.column, mutator: m.mutatorName, replacement: m.replacement ?? '', status: m.status, static: !!m.static });
      } else if (e && DETECTED.has(m.status)) killedButListed.push(`${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} → ${m.replacement}`);
    }
    rows.push(r);
  }
}
const pct = (n, d) => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)} %`);
const total = { file: 'all', Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, other: 0, equivalent: 0, static: 0 };
for (const r of rows) for (const k of Object.keys(total)) if (k !== 'file') total[k] += r[k];
const line = (r) => {
  const det = r.Killed + r.Timeout;
  const all = det + r.Survived + r.NoCoverage;
  return { ...r, score: pct(det, all), without: pct(det, all - r.equivalent), det, all };
};
if (flags.has('--markdown')) {
  console.log('| file | killed | timeout | survived | no coverage | score | equivalent | without the equivalents |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of [...rows, total].map(line)) {
    const name = r.file === 'all' ? '**all**' : `\`${r.file}\``;
    console.log(`| ${name} | ${r.Killed} | ${r.Timeout} | ${r.Survived} | ${r.NoCoverage} | ${r.score} | ${r.equivalent} | ${r.without} (${r.det} / ${r.all - r.equivalent}) |`);
  }
} else {
  for (const r of [...rows, total].map(line)) {
    console.log(`${r.file.padEnd(48)} killed ${String(r.Killed).padStart(4)} timeout ${String(r.Timeout).padStart(3)} survived ${String(r.Survived).padStart(3)} nocov ${String(r.NoCoverage).padStart(3)} static ${String(r.static).padStart(4)}  score ${r.score.padStart(7)}  equivalent ${String(r.equivalent).padStart(3)}  without ${r.without.padStart(7)}`);
  }
}
const below = rows.map(line).filter((r) => r.all > 0 && r.det / (r.all - r.equivalent) < 0.9);
console.log(`\n${below.length} file(s) below 90 % without the equivalents${below.length ? ': ' + below.map((r) => `${r.file} ${r.without}`).join(', ') : ''}`);
const files = new Set(rows.map((r) => r.file));
const stale = equiv.mutants.filter((e) => files.has(e.file) && !matched.has(keyOf(e.file, e.line, e.column, e.end, e.mutator, e.replacement)));
if (stale.length) console.log(`\n${stale.length} listed equivalent(s) match no mutant of these reports (the code moved?):\n` + stale.map((e) => `  ${e.file}:${e.line}:${e.column} ${e.mutator} → ${e.replacement}`).join('\n'));
if (killedButListed.length) console.log(`\n${killedButListed.length} listed as equivalent but detected (remove them from the list):\n  ` + killedButListed.join('\n  '));
if (flags.has('--survivors')) {
  console.log(`\n${undetected.length} surviving or uncovered, not listed as equivalent:`);
  for (const u of undetected) console.log(`  ${u.file}:${u.line}:${u.column} ${u.status}${u.static ? ' (static)' : ''} ${u.mutator} → ${u.replacement.replace(/\s+/g, ' ').slice(0, 140)}`);
}
if (flags.has('--groups')) {
  console.log('');
  for (const [group, why] of Object.entries(equiv.groups)) {
    const members = equiv.mutants.filter((m) => m.group === group);
    const byFile = new Map();
    for (const e of members) byFile.set(e.file, [...(byFile.get(e.file) ?? []), e.line]);
    const places = [...byFile].map(([f, lines]) => `\`${f}\` ${[...new Set(lines)].sort((a, b) => a - b).join(', ')}`).join('; ');
    console.log(`- **${group}** (${members.length}: ${places}): ${why}`);
  }
}
