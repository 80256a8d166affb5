// The check's report as text for a terminal or a CI log (cli.ts prints it; --json prints the report
// itself). Our words are plain; every string from the server or the registry is quoted() data.
import type { CheckReport } from './check.ts';
import type { LockReport } from './lock.ts';
import { oneLine, quoted } from './text.ts';

const WORDS: Record<CheckReport['verdict'], string> = {
  same: 'SAME: the server serves the archived contract',
  compatible: 'COMPATIBLE: the contract changed, with nothing at or above the fail-on level',
  breaking: 'BREAKING: a change at or above the fail-on level',
  'could-not-check': 'COULD NOT CHECK',
};

export function renderReport(r: CheckReport): string {
  const out: string[] = [];
  out.push(`mcp-schema check of ${quoted(r.target.name ?? r.target.input)}`);
  if (r.target.endpoint) out.push(`  endpoint   ${quoted(r.target.endpoint)}`);
  out.push(`  archive    ${r.archive.where}${r.archive.descriptor_url ? ` (descriptor ${r.archive.descriptor_url})` : ''}`);
  const b = r.baseline;
  if (b) {
    const dates = b.kind === 'latest'
      ? `observed ${b.observed_at ?? '?'}; first seen ${b.first_seen ?? '?'}, last ok ${b.last_seen ?? '?'}; last changed ${b.tools_changed_at ?? 'never'}`
      : `first seen ${b.first_seen ?? '?'}, last seen ${b.last_seen ?? '?'}`;
    out.push(`  ${b.kind === 'pin' ? 'pinned  ' : 'archived'}   ${plural(b.tools ?? 0, 'tool')}; ${dates} (archive as of ${b.archive_generated_at ?? '?'})`);
    out.push(`             set ${b.set_sha256 ?? 'none'}`, `             contract ${b.contract_sha256 ?? 'none'}`);
  }
  const l = r.live;
  if (l) {
    out.push(`  live       ${l.observed_at}: v2 status ${l.status}, era ${l.era}${l.protocol_version ? ` ${quoted(l.protocol_version, 40)}` : ''}, ${plural(l.requests, 'request')}${l.contract_sha256 ? `, ${plural(l.tools.length, 'tool')}` : ''}`);
    if (l.contract_sha256) out.push(`             set ${l.set_sha256 ?? `none (${oneLine(l.set_problem ?? 'no canonical form', 160)})`}`, `             contract ${l.contract_sha256}`);
  }
  out.push(`result: ${WORDS[r.verdict]}${r.verdict === 'could-not-check' ? '' : ` (fail-on ${r.fail_on})`}`);
  if (r.reason) out.push(`  ${oneLine(r.reason, 600)}`);
  if (r.diff) {
    const names = (xs: string[]) => xs.map((x) => quoted(x, 80)).join(', ');
    if (r.diff.added.length) out.push(`  added      ${names(r.diff.added)}`);
    if (r.diff.removed.length) out.push(`  removed    ${names(r.diff.removed)}`);
    if (r.diff.changed.length) out.push(`  changed    ${r.diff.changed.map((c) => `${quoted(c.name, 80)} (${c.surfaces.join(', ')})`).join('; ')}`);
  }
  if (r.findings.length) {
    out.push(`findings (${r.findings.length}; ${r.failing} at or above ${r.fail_on}):`);
    for (const f of r.findings) out.push(`  ${f.level.padEnd(4)} ${f.rule}  tool ${quoted(f.tool, 80)}${f.path ? ` at ${quoted(f.path, 120)}` : ''}: ${oneLine(f.message)}`);
  }
  for (const n of r.notes) out.push(`note: ${oneLine(n)}`);
  out.push('Quoted text is the server\'s or the registry\'s, shown as data; hidden and control characters are written as \\u{…} escapes.');
  out.push(`exit ${r.exit_code}`);
  return `${out.join('\n')}\n`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The lock's report: one line per server (its verdict, fail-on and pin), then each server's own report. */
export function renderLockReport(r: LockReport): string {
  const out: string[] = [];
  out.push(`mcp-schema check of the lock ${quoted(r.lock)} against ${quoted(r.archive)}: ${r.servers.length} ${r.servers.length === 1 ? 'server' : 'servers'}`);
  for (const s of r.servers) out.push(`  ${s.report.verdict.toUpperCase().padEnd(15)} ${quoted(s.name, 120)} (fail-on ${s.fail_on}, pinned set ${s.pinned_set_sha256.slice(0, 12)}…)${s.report.reason_code ? ` ${s.report.reason_code}` : ''}`);
  out.push(`result: ${r.verdict.toUpperCase()} (same ${r.counts.same}, compatible ${r.counts.compatible}, breaking ${r.counts.breaking}, could not check ${r.counts['could-not-check']}); exit ${r.exit_code}`);
  for (const s of r.servers) out.push('', renderReport(s.report).trimEnd());
  return `${out.join('\n')}\n`;
}
