// The small files of an edition besides the chart (cut-edition.ts): the tiles as JSON, the error-class
// table as CSV, the README and the page itself. The page is a standalone HTML file written once, at the
// cut, with its own inline style and no script: the site copies it verbatim, so later site code never
// redraws a published edition. Everything in it is our text (numbers, dates, file names); the SVG is
// the chart our code drew.
import { SHARE_CLASSES, type Edition } from '../lib/index.ts';
import type { Archive } from '../loader/views.ts';
import { csvLine } from '../outputs/members.ts';
import { SIMULATED_NOTE } from '../outputs/publication.ts';
import { CHART_TITLE, LICENCE, LICENCE_URL, type ChartContext, type Citation } from '../outputs/survival-export.ts';

export function tilesJson(a: Archive, ctx: ChartContext): string {
  const contracts = a.intervals.length;
  const changed = a.intervals.filter((i) => i.event).length;
  return `${JSON.stringify(
    {
      edition: ctx.edition,
      data_as_of: ctx.asOfDay,
      ...(ctx.simulated ? { simulated: true, simulated_note: SIMULATED_NOTE } : {}),
      tiles: a.tiles,
      half_life: a.halfLife,
      contracts,
      contracts_changed: changed,
      latest_full_run: a.latestFullRun?.run_id ?? null,
      methodology: ctx.methodology,
      source: ctx.url,
      licence: LICENCE,
    },
    null,
    2,
  )}\n`;
}

/** The error-class shares of the latest full run (Wilson 95% intervals, denominators, host-weighted), as CSV. */
export function errorClassCsv(a: Archive, simulated: boolean): string {
  const head = ['class', 'count', 'n', 'share', 'lower_95', 'upper_95', 'host_weighted_share', 'run_id'];
  const s = a.errorShares;
  const rows = s ? SHARE_CLASSES.filter((c) => c !== 'no_endpoint').map((c) => [c, s.attempted.classes[c].count, s.attempted.n, s.attempted.classes[c].p, s.attempted.classes[c].lower, s.attempted.classes[c].upper, s.attempted.hostWeighted[c], s.run_id]) : [];
  // A simulated edition says so in its first column too: a CSV has no other place a reader would see.
  return [csvLine(simulated ? ['simulated', ...head] : head), ...rows.map((r) => csvLine(simulated ? ['SIMULATED', ...r] : r))].join('');
}

export function editionReadme(e: Edition, a: Archive, cite: Citation): string {
  return [
    `# mcp-schema, edition ${e.edition}`,
    '',
    ...(e.simulated ? [`**${SIMULATED_NOTE}**`, ''] : []),
    `Frozen on ${e.cut_at.slice(0, 10)} from run ${e.cut_from_run}, the first full run of ${e.month}: data as of ${e.data_as_of}. This edition never changes;${e.revises ? ` it revises edition ${e.revises}: ${e.note}` : ' a restatement would publish a revision beside it, with a note.'}`,
    '',
    `Permanent URL: ${e.url}`,
    `Licence: ${LICENCE} (${LICENCE_URL}). Methodology ${e.methodology}.`,
    '',
    '## Files',
    '',
    '- `schema-survival.svg`, `schema-survival.png`, `schema-survival.csv` and the zip: the survival chart and its Kaplan–Meier table',
    '- `tiles.json`: the dashboard figures as of the run; `error-classes.csv`: outcome classes of the latest full run',
    '- `citation.txt`, `citation.bib`, `CITATION.cff`: how to cite this edition',
    '- `edition.json`: this edition\'s manifest, with every data bundle (SHA-256 and permanent URL)',
    '- `SHA256SUMS` (and `SHA256SUMS.sig`, an Ed25519 signature of it, when signed)',
    '',
    '## Data as of the run',
    '',
    ...e.bundles.map((b) => `- ${b.name} (${b.covers}; ${b.rows} rows; sha256 ${b.sha256}): ${b.url}`),
    '',
    '## Check it',
    '',
    '```sh',
    'sha256sum -c SHA256SUMS',
    ...(e.signed_by ? [`openssl pkeyutl -verify -pubin -inkey ${keyFile(e.signed_by)} -rawin -in SHA256SUMS -sigfile SHA256SUMS.sig`] : []),
    '```',
    '',
    e.chain_head
      ? `Chain manifest of run ${e.chain_head.run_id}: number ${e.chain_head.seq}, sha256 ${e.chain_head.sha256}${e.chain_head.key_id ? `, signed by ${e.chain_head.key_id}` : ', unsigned'}. \`npm run verify\` on the archive checks that every row counted here is still the same.`
      : 'The archive had no hash chain when this run was recorded.',
    '',
    '## Cite',
    '',
    cite.plain,
    '',
    '```bibtex',
    cite.bibtex,
    '```',
    '',
    `${a.rowCount} observations, ${a.runs.length} runs, ${a.changes.length} changes, ${a.intervals.length} contract intervals as of the run.`,
    '',
  ].join('\n');
}

export function editionPage(e: Edition, a: Archive, cite: Citation, svg: string): string {
  const t = a.tiles;
  const n = (v: number | null) => (v === null ? '—' : v.toLocaleString('en'));
  const hl = a.halfLife?.median;
  const tiles: [string, string][] = [
    ['Servers in the population', n(t.population)],
    ['With an endpoint', n(t.withEndpoint)],
    ['Answered OK, latest full run', `${n(t.okLatestFull)} of ${n(t.eligibleLatestFull)}`],
    ['Changed in the last 30 days', n(t.changed30)],
    ['Schema half-life', hl == null ? 'not reached yet' : `${Number.isInteger(hl) ? hl : hl.toFixed(1)} days`],
    ['Contracts followed', n(a.intervals.length)],
  ];
  const csp = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(`${e.simulated ? 'SIMULATED DATA — ' : ''}mcp-schema, edition ${e.edition}`)}</title>
<link rel="canonical" href="${esc(e.url)}">
<link rel="icon" href="data:,">
<style>
body{font:16px/1.5 system-ui,sans-serif;color:#24292f;max-width:52rem;margin:0 auto;padding:1rem}
.sim{background:#b42318;color:#fff;padding:.5rem 1rem;font-weight:700}
table{border-collapse:collapse}td,th{border-bottom:1px solid #d0d7de;padding:.25rem .6rem;text-align:left}
pre{background:#f6f8fa;padding:.6rem;overflow-x:auto;white-space:pre-wrap}
.chart svg{max-width:100%;height:auto}.muted{color:#57606a}code{font-size:.9em}
</style>
</head>
<body>
${e.simulated ? `<div class="sim" role="note">${esc(SIMULATED_NOTE)}</div>\n` : ''}<p class="muted"><a href="../../">mcp-schema</a> › <a href="../">Editions</a></p>
<h1>mcp-schema, edition ${esc(e.edition)}</h1>
<p>Data as of <strong><time datetime="${esc(e.data_as_of)}">${esc(e.data_as_of_day)}</time></strong> (run ${esc(e.cut_from_run)}, the first full run of ${esc(e.month)}). Frozen: this page and its files never change.${e.revises ? ` This is a revision of <a href="../${esc(e.revises)}/">edition ${esc(e.revises)}</a>: ${esc(e.note ?? '')}` : ''} Methodology ${esc(e.methodology)}. Licence <a href="${LICENCE_URL}" rel="license">${LICENCE}</a>.</p>
<table data-testid="edition-tiles"><tbody>
${tiles.map(([k, v]) => `<tr><th scope="row">${esc(k)}</th><td>${esc(v)}</td></tr>`).join('\n')}
</tbody></table>
<h2>${esc(CHART_TITLE)}</h2>
<div class="chart">${svg.replace(/^<\?xml[^>]*>\s*/, '')}</div>
<p>Downloads: <a href="schema-survival.svg">SVG</a> · <a href="schema-survival.png">PNG</a> · <a href="schema-survival.csv">CSV</a> · <a href="tiles.json">tiles.json</a> · <a href="error-classes.csv">error classes (CSV)</a> · <a href="edition.json">edition.json</a> · <a href="SHA256SUMS">SHA256SUMS</a>${e.signed_by ? ' · <a href="SHA256SUMS.sig">SHA256SUMS.sig</a>' : ''}</p>
<h2>Cite</h2>
<pre data-testid="edition-citation">${esc(cite.plain)}</pre>
<pre>${esc(cite.bibtex)}</pre>
<p><a href="CITATION.cff">CITATION.cff</a> · <a href="citation.bib">citation.bib</a> · <a href="citation.txt">citation.txt</a></p>
<h2>Data as of the run</h2>
<table><thead><tr><th scope="col">File</th><th scope="col">Covers</th><th scope="col">Rows</th><th scope="col">SHA-256</th></tr></thead><tbody>
${e.bundles.map((b) => `<tr><td><a href="${esc(b.url)}">${esc(b.name)}</a></td><td>${esc(b.covers)}</td><td>${b.rows.toLocaleString('en')}</td><td><code>${esc(b.sha256.slice(0, 16))}…</code></td></tr>`).join('\n')}
</tbody></table>
<h2>Check it</h2>
<pre>sha256sum -c SHA256SUMS${e.signed_by ? `\nopenssl pkeyutl -verify -pubin -inkey ${esc(keyFile(e.signed_by))} -rawin -in SHA256SUMS -sigfile SHA256SUMS.sig` : ''}</pre>
<p>${e.chain_head ? `Hash chain: manifest ${e.chain_head.seq} (run ${esc(e.chain_head.run_id)}), <code>${esc(e.chain_head.sha256)}</code>${e.chain_head.key_id ? `, signed by ${esc(e.chain_head.key_id)}` : ', unsigned'}. It pins every row this edition counts; <code>npm run verify</code> on the archive checks them.` : 'The archive had no hash chain when this run was recorded.'}</p>
</body>
</html>
`;
}

/** The public key file a key id's label names (keys/<label>-ed25519.pub; a demo's is DEMO-ed25519.pub). */
function keyFile(keyId: string): string {
  return `${keyId.replace(/-ed25519-[0-9a-f]{16}$/, '')}-ed25519.pub`;
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
