// bench:years' table: the measured per-day figures, then each projection beside its limit with its
// margin (limit ÷ projected), flagged below 2×.
import type { Measured, Projections, Row } from './years-figures.ts';

export function fmtValue(v: number, unit: Row['unit']): string {
  if (!Number.isFinite(v)) return 'n/a';
  if (unit === 'count') return Math.round(v).toLocaleString('en');
  if (unit === 'seconds') return v >= 3600 ? `${(v / 3600).toFixed(1)} h` : v >= 120 ? `${(v / 60).toFixed(0)} min` : `${v.toFixed(0)} s`;
  if (v >= 1e12) return `${(v / 1e12).toFixed(1)} TB`;
  if (v >= 1e9) return `${(v / 1e9).toFixed(2)} GB`;
  if (v >= 1e6) return `${(v / 1e6).toFixed(0)} MB`;
  return `${(v / 1e3).toFixed(0)} kB`;
}

function margin(limit: number | null, v: number): string {
  if (limit === null || !Number.isFinite(v) || v <= 0) return '—';
  const x = limit / v;
  const s = x >= 100 ? `${x.toFixed(0)}×` : x >= 10 ? `${x.toFixed(0)}×` : `${x.toFixed(1)}×`;
  return x < 2 ? `**${s}** ⚠` : s;
}

/** The projections as a Markdown table (and the measured per-day figures above it). */
export function renderTable(m: Measured, p: Projections): string {
  const out: string[] = [];
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  const d0 = m.days[0]!;
  const last = m.days.at(-1)!;
  out.push(`registry: day 1 ${d0.listing_rows.toLocaleString('en')} rows in ${d0.pages} pages (${mb(d0.listing_bytes)}), ${d0.targets.toLocaleString('en')} targets, ${d0.endpoints.toLocaleString('en')} endpoints; day ${m.days.length} ${last.listing_rows.toLocaleString('en')} rows, ${last.targets.toLocaleString('en')} targets`);
  for (const [k, label] of [['today', "today's (whole raw pages in git)"], ['new', 'new (packed pages in an object store; gz rows and roster in git)']] as const) {
    const f = p.first_day[k];
    const s = p.per_day[k];
    const parts = (prefix: string, src: Record<string, number>) => Object.entries(src).filter(([key, v]) => key.startsWith(prefix) && Math.abs(v) >= 1000).map(([key, v]) => `${key.slice(prefix.length)} ${mb(v)}`).join(', ');
    out.push(`${label}:`);
    out.push(`  first day: git working tree ${mb(f.worktree!)}, pack ${mb(f.pack!)}, push ${mb(f.push!)}${k === 'new' ? `, object store +${mb((f['store:entry'] ?? 0) + (f['store:manifest'] ?? 0) + (f['store:body'] ?? 0) + (f['store:page'] ?? 0))}` : ''}`);
    out.push(`  a steady day: git working tree +${mb(Object.entries(s).filter(([key]) => key.startsWith('worktree:')).reduce((x, [, v]) => x + v, 0))} (${parts('worktree:', s)}); packed +${mb(s.pack!)} (${parts('pack:', s)}); push ${mb(s.push!)}` + (k === 'new' ? `; object store +${mb((s['store:entry'] ?? 0) + (s['store:manifest'] ?? 0) + (s['store:body'] ?? 0) + (s['store:page'] ?? 0))} (${parts('store:', s)})` : ''));
    const v = m.verifyFull[k];
    out.push(`  full verify (wall of the command / max RSS): ${v.map((r, i) => `${r.wall_s} s (own ${r.own_s} s) / ${r.max_rss_mb} MB after day ${i + 1}`).join(', ')}${m.verifyHasIncremental ? `; incremental (days 2..${m.days.length}) ${s.verify_incremental_s!.toFixed(1)} s / ${s.verify_incremental_rss_mb!.toFixed(0)} MB a day` : ''}`);
  }
  out.push('');
  out.push('| metric | limit | design | 1 y | margin | 3 y | margin | 5 y | margin | 5 y, registry flat | margin | passes the limit on day (growing / flat) |');
  out.push('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const name = { today: "today's", new: 'new', both: 'both' } as const;
  for (const r of p.rows) {
    const cells = r.values.flatMap((v) => [fmtValue(v, r.unit), margin(r.limitValue, v)]);
    const when = (d: number | null) => (d === null ? '> 5 y' : d.toLocaleString('en'));
    const reach = r.limitValue === null ? '—' : `${when(r.reaches.growth)} / ${when(r.reaches.flat)}`;
    out.push(`| ${r.metric} | ${r.limit} | ${name[r.design]} | ${cells.join(' | ')} | ${fmtValue(r.flat5, r.unit)} | ${margin(r.limitValue, r.flat5)} | ${reach} |`);
  }
  out.push('');
  out.push(`margin = limit ÷ projected; ⚠ below 2×. Registry: ${Object.entries(p.registry_at).map(([k, v]) => `${k} ${v.rows.toLocaleString('en')} rows / ${v.targets.toLocaleString('en')} targets`).join('; ')}.`);
  out.push('');
  out.push('assumptions:');
  for (const a of p.assumptions) out.push(`- ${a}`);
  return out.join('\n');
}
