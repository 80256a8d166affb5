// /statistics/ and the changelog's bridge note, built from the fixture archive (both series) and from
// an empty archive. The numbers each page shows are recomputed here from the archive's rows, read with
// JSON.parse, and the Wilson interval and the host-weighted share from their textbook formulas — never
// taken from the implementation.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { readObject } from '../../src/archive/objects.ts';
import { slugFor } from '../../src/lib/slug.ts';
import { statusPath, statusShard, StatusShard } from '../../src/lib/server-status.ts';
import { builtSite, fixtureArchive, type BuiltSite } from './shared.ts';

type Row = Record<string, any>;
const Z = 1.959963984540054;
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
function wilsonText(k: number, n: number): string {
  const p = k / n;
  const d = 1 + (Z * Z) / n;
  const c = (p + (Z * Z) / (2 * n)) / d;
  const h = (Z * Math.sqrt((p * (1 - p)) / n + (Z * Z) / (4 * n * n))) / d;
  return `${pct(k === 0 ? 0 : Math.max(0, c - h))}–${pct(k === n ? 1 : Math.min(1, c + h))}`;
}
const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ').trim();
/** The cells of the table row for `measure` on the page, as text. */
function rowCells(html: string, measure: string): string[] {
  const m = new RegExp(`<tr[^>]*data-measure="${measure}"[^>]*>(.*?)</tr>`, 's').exec(html);
  if (!m) throw new Error(`no row ${measure}`);
  return [...m[1]!.matchAll(/<t[dh][^>]*>(.*?)<\/t[dh]>/gs)].map((c) => text(c[1]!));
}

/**
 * The study's frame, recomputed from the rows as the methodology states it: latest entries with status
 * active that have an endpoint, not opted out, not refused as a private address before a redirect; one
 * row per URL normalised (scheme and host lower-cased, no query, fragment or trailing slash), a probed
 * row first, then the first registry name.
 */
function frameOf(rows: Row[]): { rows: Row[]; duplicates: number; notActive: number } {
  const norm = (u: string) => {
    const x = new URL(u);
    return `${x.protocol}//${x.host}${x.pathname.replace(/\/+$/, '')}`;
  };
  const probed = (r: Row) => r.outcome === 'ok' || r.outcome === 'error';
  const notActive = rows.filter((r) => r.outcome !== 'retired' && r.registry_status !== 'active').length;
  const candidates = rows
    .filter((r) => r.registry_status === 'active' && ['ok', 'error', 'not_attempted'].includes(r.outcome) && !(r.step === 'address' && r.redirects === 0))
    .sort((a, b) => Number(probed(b)) - Number(probed(a)) || (a.target < b.target ? -1 : 1));
  const seen = new Set<string>();
  const kept = candidates.filter((r) => {
    const k = norm(r.endpoint);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return { rows: kept, duplicates: candidates.length - kept.length, notActive };
}

describe('/statistics/ and the bridge note on the fixture archive (both series)', () => {
  let site: BuiltSite;
  let archive: string;
  let v1: Row[];
  let v2: Row[];
  let runs: Row[];
  beforeAll(async () => {
    archive = await fixtureArchive();
    site = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1' });
    const rows = (folder: string) =>
      readdirSync(path.join(archive, folder))
        .filter((f) => f.endsWith('.jsonl'))
        .flatMap((f) => readFileSync(path.join(archive, folder, f), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Row));
    v1 = rows('observations');
    v2 = rows('observations-v2');
    runs = readFileSync(path.join(archive, 'runs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);
  }, 600_000);

  const fullV2 = () => runs.filter((r) => r.methodology_version === 'v2' && r.status === 'finished' && !r.partial);

  it('shows each share of the latest full v2 run with its count, denominator, Wilson interval, host-weighted share, hosts and largest host', async () => {
    const html = await readFile(path.join(site.out, 'statistics/index.html'), 'utf8');
    const run = fullV2().at(-1)!;
    expect(text(html)).toContain(`run ${run.run_id}`);
    // Every figure is over the study's frame, not over every row of the run.
    const probed = frameOf(v2.filter((r) => r.run_id === run.run_id)).rows.filter((r) => r.outcome === 'ok' || r.outcome === 'error');
    const host = (r: Row) => new URL(r.endpoint).hostname;
    const check = (measure: string, of: Row[], test: (r: Row) => boolean) => {
      const k = of.filter(test).length;
      const hosts = [...new Set(of.map(host))];
      const within = hosts.map((h) => {
        const on = of.filter((r) => host(r) === h);
        return on.filter(test).length / on.length;
      });
      const largest = Math.max(...hosts.map((h) => of.filter((r) => host(r) === h).length));
      const weighted = within.reduce((x, y) => x + y, 0) / hosts.length;
      expect(rowCells(html, measure), measure).toEqual([expect.any(String), String(k), String(of.length), pct(k / of.length), wilsonText(k, of.length), pct(weighted), String(hosts.length), String(largest)]);
    };
    expect(probed.length).toBeGreaterThan(20);
    check('reachable', probed, (r) => r.status !== 'unreachable');
    for (const s of new Set(probed.map((r) => r.status as string))) check(`status_${s}`, probed, (r) => r.status === s);
    const handshakes = probed.filter((r) => r.status === 'ok' || r.status === 'handshake_only');
    check('era_modern', handshakes, (r) => r.era === 'modern');
    check('era_legacy', handshakes, (r) => r.era === 'legacy');
    const gated = probed.filter((r) => r.status === 'auth_compliant' || r.status === 'auth_noncompliant');
    expect(gated.length).toBeGreaterThan(0);
    check('auth_bearer', gated, (r) => r.auth_bearer === true);
    check('auth_metadata_valid', gated, (r) => r.auth_metadata_valid === true);
    check('canary_in_channel', probed.filter((r) => r.canary_sent), (r) => r.canary_in_channel === true);
    // Dual-era is said to be advertised and a lower bound.
    expect(text(html)).toMatch(/Dual-era is "advertised" and a lower bound/);
    // RQ4: pooled over every tool of the ok rows (their tool_count), no host-weighted view.
    const tools = probed.filter((r) => r.outcome === 'ok').reduce((n, r) => n + r.tool_count, 0);
    expect(rowCells(html, 'description')[2]).toBe(String(tools));
    // No server is named on the page.
    for (const r of probed) expect(html.includes(`>${r.target}<`), r.target).toBe(false);
    // The fixture has no validation gate record: said at the top and beside every figure.
    expect(text(html)).toContain('Not yet validated. No validation gate has been run for the classifier that made these figures');
    for (const m of html.matchAll(/<tr[^>]*data-measure="([^"]+)"[^>]*>(.*?)<\/tr>/gs)) expect(text(m[2]!), m[1]).toContain('(not yet validated)');
  });

  it('counts the study\'s population: every name listed in one row, deprecated entries and duplicate URLs apart, the http:// deviation said', async () => {
    const html = await readFile(path.join(site.out, 'statistics/index.html'), 'utf8');
    const run = fullV2().at(-1)!;
    const all = v2.filter((r) => r.run_id === run.run_id);
    const f = frameOf(all);
    // The fixture exercises what the frame removes: a deprecated entry and names sharing one URL.
    expect(f.notActive).toBeGreaterThan(0);
    expect(f.duplicates).toBeGreaterThan(0);
    const cell = (measure: string) => {
      const m = new RegExp(`<tr[^>]*data-frame="${measure}"[^>]*>(.*?)</tr>`, 's').exec(html);
      if (!m) throw new Error(`no population row ${measure}`);
      return [...m[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((c) => text(c[1]!));
    };
    expect(cell('listed')[0]).toBe(String(all.length));
    expect(cell('excluded_not_active')).toEqual([String(f.notActive), pct(f.notActive / all.length)]);
    expect(cell('excluded_duplicate_url')[0]).toBe(String(f.duplicates));
    expect(cell('excluded_no_streamable_http')[0]).toBe(String(all.filter((r) => r.registry_status === 'active' && r.outcome === 'no_endpoint' && r.detail === 'no_streamable_http').length));
    expect(cell('excluded_opted_out')[0]).toBe(String(all.filter((r) => r.registry_status === 'active' && r.outcome === 'excluded').length));
    expect(cell('frame_endpoints')[0]).toBe(String(f.rows.length));
    // Each name in exactly one row: the buckets and the frame add up to the names listed.
    const buckets = [...html.matchAll(/<tr[^>]*data-frame="(excluded_[a-z_]+|frame_endpoints)"[^>]*>.*?<td[^>]*>(.*?)<\/td>/gs)].map((m) => Number(text(m[2]!).replace(/,/g, '')));
    expect(buckets.reduce((a, b) => a + b, 0)).toBe(all.length);
    const t = text(html);
    expect(t).toContain(`Of the ${all.length} registry names the run listed, ${f.rows.length} endpoints are in that frame`);
    expect(t).toContain(`${f.duplicates} registry names share a URL with another name and are merged into it`);
    const http = f.rows.filter((r) => r.endpoint.startsWith('http://')).length;
    expect(http).toBeGreaterThan(0);
    expect(t).toContain(`so they stay in the frame (${http} of the ${f.rows.length} frame endpoints)`);
    expect(t).toMatch(/Registry status of every name listed: active \d+, deprecated \d+\./);
  });

  it('the quality checks page lists every rule the descriptors apply, with the disclaimer they carry, linked from the methodology', async () => {
    const html = await readFile(path.join(site.out, 'methodology/quality/index.html'), 'utf8');
    const d = JSON.parse(await readFile(path.join(site.out, 'api/servers', `${slugFor(v2[0]!.target)}.json`), 'utf8')) as { _meta: Record<string, { checks: { id: string }[]; disclaimer: string; rules_url: string }> };
    const q = d._meta['org.mcp-schema/quality']!;
    expect(q.checks.length).toBe(11);
    for (const c of q.checks) expect(html, c.id).toContain(`data-rule="${c.id}"`);
    expect(text(html)).toContain(q.disclaimer.replace(/^Observed, not audited: /, '').replace(/^./, (c) => c.toUpperCase()));
    expect(text(html)).toContain('No page of this site lists or ranks servers by these checks');
    expect(new URL(q.rules_url).pathname).toBe('/methodology/quality/');
    expect(await readFile(path.join(site.out, 'methodology/index.html'), 'utf8')).toContain('href="/methodology/quality/"');
    // Each server page counts its descriptor's checks (every server of the latest v2 run).
    const run = fullV2().at(-1)!;
    for (const r of v2.filter((x) => x.run_id === run.run_id)) {
      const slug = slugFor(r.target);
      const summary = (JSON.parse(await readFile(path.join(site.out, 'api/servers', `${slug}.json`), 'utf8')) as { _meta: Record<string, { summary: Record<string, number> }> })._meta['org.mcp-schema/quality']!.summary;
      const page = await readFile(path.join(site.out, 'servers', slug, 'index.html'), 'utf8');
      const line = /data-testid="quality-summary"[^>]*>(.*?)<\/dd>/s.exec(page);
      expect(line, r.target).not.toBeNull();
      expect(text(line![1]!), r.target).toMatch(new RegExp(`^${summary.pass} pass, ${summary.fail} fail, ${summary.unknown} unknown: observed, not audited`));
    }
  });

  it('RQ6 compares the last two full v2 runs and says they are a day apart: day-over-day stability, not a re-test', async () => {
    const html = await readFile(path.join(site.out, 'statistics/index.html'), 'utf8');
    const [earlier, later] = fullV2().slice(-2) as [Row, Row];
    const status = (id: string) => new Map(frameOf(v2.filter((r) => r.run_id === id)).rows.filter((r) => r.outcome === 'ok' || r.outcome === 'error').map((r) => [r.target, r.status]));
    const a = status(earlier.run_id);
    const b = status(later.run_id);
    const both = [...a.keys()].filter((t) => b.has(t));
    const same = both.filter((t) => a.get(t) === b.get(t)).length;
    expect(rowCells(html, 'status_agreement').slice(1, 5)).toEqual([String(same), String(both.length), pct(same / both.length), wilsonText(same, both.length)]);
    const t = text(html);
    expect(t).toContain(`Between the full v2 runs of ${earlier.day} and ${later.day} (one day apart)`);
    expect(t).toContain('not the study\'s planned re-test');
  });

  it('publishes the figures and the era adoption as CSV, marked simulated, and draws the chart at both sizes with its table', async () => {
    const figures = (await readFile(path.join(site.out, 'statistics/figures.csv'), 'utf8')).trim().split('\r\n');
    expect(figures[0]).toMatch(/^simulated,run_id,day,question,measure,.*,validated$/);
    expect(figures.slice(1).every((l) => l.startsWith('SIMULATED,'))).toBe(true);
    const run = fullV2().at(-1)!;
    const frame = frameOf(v2.filter((r) => r.run_id === run.run_id)).rows;
    const ok = frame.filter((r) => r.outcome === 'ok').length;
    const probed = frame.filter((r) => r.outcome === 'ok' || r.outcome === 'error').length;
    expect(figures.find((l) => l.includes(',status_ok,'))).toContain(`,${ok},${probed},`);
    // No gate record in the fixture: every figure says validated false; the population's counts need no gate (empty cell).
    for (const l of figures.slice(1)) expect(l, l).toMatch(l.includes(',FRAME,') || l.includes(',REGISTRY,') ? /,$/ : /,false$/);
    expect(figures.find((l) => l.includes(',FRAME,frame_endpoints,'))).toContain(`,${frame.length},${v2.filter((r) => r.run_id === run.run_id).length},`);
    const era = (await readFile(path.join(site.out, 'statistics/era-adoption.csv'), 'utf8')).trim().split('\r\n');
    expect(era.length - 1).toBe(fullV2().length);
    for (const line of era.slice(1)) {
      const [, day, runId, known, modern, legacy, sse] = line.split(',');
      const rows = frameOf(v2.filter((r) => r.run_id === runId)).rows.filter((r) => r.outcome === 'ok' || r.outcome === 'error');
      expect([modern, legacy, sse].map(Number), day).toEqual(['modern', 'legacy', 'legacy_sse'].map((e) => rows.filter((r) => r.era === e).length));
      expect(Number(known)).toBe(rows.filter((r) => r.era !== 'none').length);
    }
    const html = await readFile(path.join(site.out, 'statistics/index.html'), 'utf8');
    expect(html).toContain('data-testid="era-adoption-chart"');
    expect(html).toContain('data-testid="era-adoption-chart-narrow"');
    expect(html).toMatch(/<svg[^>]*role="img"/);
  });

  it('descriptors carry each server\'s observation in the latest full v2 run: era, supported versions, instructions hash and the auth challenge, with source v2', async () => {
    const run = fullV2().at(-1)!;
    const latest = new Map<string, Row>();
    for (const r of v2) if (r.run_id === run.run_id) latest.set(r.target, r);
    let probed = 0;
    let gated = 0;
    for (const [target, r] of latest) {
      const d = JSON.parse(await readFile(path.join(site.out, 'api/servers', `${slugFor(target)}.json`), 'utf8')) as { _meta: Record<string, Record<string, { value: unknown; source: string | null }>> };
      const c = d._meta['org.mcp-schema/connectability']!;
      // The quality block's v2 checks read the same row.
      const q = new Map((d._meta['org.mcp-schema/quality'] as unknown as { checks: { id: string; status: string; source: string | null }[] }).checks.map((x) => [x.id, x]));
      if (r.outcome !== 'ok' && r.outcome !== 'error') {
        expect(c.protocol_era!.source, target).toBeNull();
        for (const id of ['protocol.modern', 'auth.challenge_followable', 'errors.in_channel']) expect(q.get(id)!.status, `${target} ${id}`).toBe('unknown');
        continue;
      }
      probed++;
      expect(q.get('protocol.modern'), target).toMatchObject({ status: r.era === 'modern' ? 'pass' : r.era === 'none' ? 'unknown' : 'fail', source: 'v2' });
      // The run and instant of that row are in the server's status file (descriptor format 2 names no latest run).
      const status = StatusShard.parse(JSON.parse(await readFile(path.join(site.out, ...statusPath(statusShard(slugFor(target))).split('/').filter(Boolean)), 'utf8')));
      expect(status.servers.find((e) => e.name === target), target).toMatchObject({ v2_run_id: run.run_id, v2_observed_at: r.observed_at, v2_probe_shared_with: r.probe_shared_with ?? null });
      expect(q.get('auth.challenge_followable')!.status, target).toBe(r.status === 'auth_compliant' ? 'pass' : r.status === 'auth_noncompliant' ? 'fail' : 'unknown');
      expect(q.get('errors.in_channel')!.status, target).toBe(!r.canary_sent ? 'unknown' : r.canary_in_channel === true ? 'pass' : 'fail');
      expect(c.protocol_era, target).toMatchObject({ value: r.era === 'none' ? null : r.era, source: 'v2' });
      expect(c.supported_versions!.value, target).toEqual(r.supported_versions);
      expect(c.instructions_sha256!.value, target).toBe(r.instructions_sha256);
      if (r.status === 'auth_compliant' || r.status === 'auth_noncompliant') {
        gated++;
        expect([c.auth_bearer!.value, c.protected_resource_metadata_valid!.value, c.protected_resource_metadata_source!.value], target).toEqual([r.auth_bearer, r.auth_metadata_valid, r.auth_metadata_source]);
      } else expect(c.auth_bearer!.value, target).toBeNull();
    }
    expect(probed).toBeGreaterThan(20);
    expect(gated).toBeGreaterThan(0);
  });

  it('offers the v2 rows for download beside v1\'s: JSON Lines, CSV and Parquet per month and whole (Parquet per month), its run rows, each in datapackage.json with every field described and in SHA256SUMS', async () => {
    const data = path.join(site.out, 'data');
    const whole = gunzipSync(await readFile(path.join(data, 'observations-v2-SIMULATED.jsonl.gz'))).toString('utf8').split('\n').filter(Boolean);
    expect(whole.length).toBe(v2.length);
    expect(whole.map((l) => JSON.parse(l).target)).toEqual(v2.map((r) => r.target));
    const months = [...new Set(v2.map((r) => String(r.day).slice(0, 7)))];
    let monthRows = 0;
    for (const m of months) monthRows += gunzipSync(await readFile(path.join(data, `observations-v2-${m}-SIMULATED.jsonl.gz`))).toString('utf8').split('\n').filter(Boolean).length;
    expect(monthRows).toBe(v2.length);
    const runLines = (await readFile(path.join(data, 'runs-v2-SIMULATED.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Row);
    expect(runLines.map((r) => r.run_id)).toEqual(runs.filter((r) => r.methodology_version === 'v2').map((r) => r.run_id));
    const sums = new Map((await readFile(path.join(data, 'SHA256SUMS'), 'utf8')).trim().split('\n').map((l) => l.split('  ').reverse() as [string, string]));
    const formats = months.flatMap((m) => [`observations-v2-${m}-SIMULATED.jsonl.gz`, `observations-v2-${m}-SIMULATED.csv.gz`, `observations-v2-${m}-SIMULATED.parquet`]);
    for (const name of ['observations-v2-SIMULATED.jsonl.gz', 'observations-v2-SIMULATED.csv.gz', 'runs-v2-SIMULATED.jsonl', ...formats]) {
      expect(sums.get(name), name).toBe(createHash('sha256').update(await readFile(path.join(data, name))).digest('hex'));
    }
    // The whole CSV starts with the contract's columns (its rows are checked value by value in test/outputs/v2-formats.test.ts).
    const csv = gunzipSync(await readFile(path.join(data, 'observations-v2-SIMULATED.csv.gz'))).toString('utf8');
    expect(csv.split('\r\n')[0]).toMatch(/^run_id,day,observed_at,target,/);
    const pkg = JSON.parse(await readFile(path.join(data, 'datapackage.json'), 'utf8')) as { resources: { path: string; rows: number; schema: { fields: { name: string; description: string }[] } }[] };
    const res = pkg.resources.find((r) => r.path === 'observations-v2-SIMULATED.jsonl.gz')!;
    expect(res.rows).toBe(v2.length);
    // Every key a v2 row has is a described field, and no field is described twice.
    const names = res.schema.fields.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const key of new Set(v2.flatMap((r) => Object.keys(r)))) expect(names, key).toContain(key);
    for (const f of res.schema.fields) expect(f.description.length, f.name).toBeGreaterThan(10);
    for (const name of formats) expect(pkg.resources.find((r) => r.path === name)?.schema.fields.map((f) => f.name), name).toEqual(names);
    const runRes = pkg.resources.find((r) => r.path === 'runs-v2-SIMULATED.jsonl')!;
    for (const key of Object.keys(runLines[0]!)) expect(runRes.schema.fields.map((f) => f.name), key).toContain(key);
  });

  it('the changelog\'s bridge note: the cross-table counts every pair of the bridge runs, hash agreement and what only v2 sees', async () => {
    const html = await readFile(path.join(site.out, 'methodology/changelog/index.html'), 'utf8');
    const v1Full = new Set(runs.filter((r) => r.methodology_version === 'v1' && r.status === 'finished' && !r.partial).map((r) => r.run_id));
    const bridgeRuns = new Set(fullV2().filter((r) => v1Full.has(r.run_id)).map((r) => r.run_id));
    const days = new Set(fullV2().filter((r) => bridgeRuns.has(r.run_id)).map((r) => r.day));
    const note = text(/data-testid="bridge-note".*?<\/section>/s.exec(html)![0]);
    expect(note).toContain(`The bridge is under way: ${days.size} of 14 bridge days so far`);
    const pairs = v1.filter((r) => bridgeRuns.has(r.run_id));
    expect(note).toContain(`${pairs.length} servers-by-run recorded by both series`);
    const v2By = new Map(v2.map((r) => [`${r.run_id} ${r.target}`, r]));
    const bothOk = pairs.filter((r) => r.outcome === 'ok' && v2By.get(`${r.run_id} ${r.target}`)?.outcome === 'ok');
    const agree = bothOk.filter((r) => v2By.get(`${r.run_id} ${r.target}`)!.tools_sha256 === r.tools_sha256).length;
    expect(note).toContain(`Per run: ${agree} of ${bothOk.length} answers in both series agree`);
    const okV1 = new Set(pairs.filter((r) => r.outcome === 'ok').map((r) => r.target));
    const newly = new Set(v2.filter((r) => bridgeRuns.has(r.run_id) && r.outcome === 'ok' && !okV1.has(r.target)).map((r) => r.target));
    expect(note).toContain(`Newly visible under v2: ${newly.size} server`);
    // The cross-table's grand total and one cell: v1 ok × v2 ok.
    const table = /data-testid="bridge-table".*?<\/table>/s.exec(html)![0];
    const foot = [.../<tfoot>.*?<\/tfoot>/s.exec(table)![0].matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((c) => text(c[1]!));
    expect(foot.at(-1)).toBe(pairs.length.toLocaleString('en'));
    expect(table).toContain('>auth</th>');
  });
  it('what 2026-07-28 servers say about their lists: the scope counts from the stored answers, with Wilson intervals and the gate mark; a private-scope server page says so', async () => {
    const html = await readFile(path.join(site.out, 'statistics/index.html'), 'utf8');
    const run = fullV2().at(-1)!;
    // Counted over the study's frame, as every v2 figure.
    const modern = frameOf(v2.filter((r) => r.run_id === run.run_id)).rows.filter((r) => r.outcome === 'ok' && r.era === 'modern');
    const scopes = { public: 0, private: 0, absent: 0, invalid: 0 };
    const privateTargets: string[] = [];
    for (const r of modern) {
      const sha = r.body_sha256 as string;
      const body = (await readObject(archive, sha))!.toString('utf8');
      const data = (r.body_content_type ?? '').startsWith('text/event-stream') ? body.split('\n').filter((l: string) => l.startsWith('data:') && l.length > 6).map((l: string) => l.slice(5).trim()).find((d: string) => JSON.parse(d).id === 2)! : body;
      const result = JSON.parse(data).result as Row;
      const scope = !Object.hasOwn(result, 'cacheScope') ? 'absent' : result.cacheScope === 'public' || result.cacheScope === 'private' ? result.cacheScope : 'invalid';
      scopes[scope as keyof typeof scopes]++;
      if (scope === 'private') privateTargets.push(r.target);
    }
    expect(modern.length).toBeGreaterThan(0);
    for (const [scope, k] of Object.entries(scopes)) {
      const m = new RegExp(`<tr[^>]*data-scope="${scope}"[^>]*>(.*?)</tr>`, 's').exec(html);
      const cells = [...m![1]!.matchAll(/<t[dh][^>]*>(.*?)<\/t[dh]>/gs)].map((c) => text(c[1]!));
      expect(cells[0], scope).toContain('(not yet validated)');
      expect(cells.slice(1), scope).toEqual([String(k), String(modern.length), pct(k / modern.length), wilsonText(k, modern.length)]);
    }
    expect(privateTargets.length).toBeGreaterThan(0);
    // The same counts in figures.csv, as CACHING rows with the gate's verdict.
    const csv = (await readFile(path.join(site.out, 'statistics/figures.csv'), 'utf8')).trim().split('\r\n');
    for (const [scope, k] of Object.entries(scopes)) expect(csv.find((l) => l.includes(`,CACHING,list_scope_${scope},`)), scope).toMatch(new RegExp(`,${k},${modern.length},.*,false$`));
    const page = await readFile(path.join(site.out, 'servers', slugFor(privateTargets[0]!), 'index.html'), 'utf8');
    expect(text(page)).toMatch(/private-scope: this list may differ per caller; the archive saw an anonymous caller's list; (not to be reused \(ttlMs 0\)|may be reused for [\d.,]+ (ms|s|min|h|days?) \(ttlMs [\d,.]+\)|no ttlMs|ttlMs not a number)/);
    const legacy = v2.find((r) => r.run_id === run.run_id && r.outcome === 'ok' && r.era === 'legacy')!;
    expect(await readFile(path.join(site.out, 'servers', slugFor(legacy.target), 'index.html'), 'utf8')).not.toContain('data-testid="list-caching"');
  });

  it('registry hygiene: the latest entries against the schema they name, the three counts adding up to the denominator shown', async () => {
    const html = await readFile(path.join(site.out, 'statistics/index.html'), 'utf8');
    expect(html).toContain('data-testid="registry-hygiene"');
    // Rows of its own (data-entries, not data-measure): a count of every entry, not a v2 figure awaiting the gate.
    const [valid, invalid, unknown] = ['valid', 'invalid', 'unknown_schema'].map((m) => rowCells(html.replace(/data-entries=/g, 'data-measure='), m));
    expect(html).not.toMatch(/data-measure="(valid|invalid|unknown_schema)"/);
    const n = Number(valid![2]!.replace(/,/g, ''));
    expect(n).toBeGreaterThan(0);
    for (const r of [invalid!, unknown!]) expect(r[2]).toBe(valid![2]);
    expect([valid!, invalid!, unknown!].reduce((k, r) => k + Number(r[1]!.replace(/,/g, '')), 0)).toBe(n);
    expect(valid![3]).toBe(pct(Number(valid![1]!.replace(/,/g, '')) / n));
    expect(text(html)).toContain(`Of the ${n.toLocaleString('en')} latest entries`);
    // …and in figures.csv, as REGISTRY rows (a census: no interval, no gate verdict).
    const csv = (await readFile(path.join(site.out, 'statistics/figures.csv'), 'utf8')).trim().split('\r\n');
    for (const [m, r] of [['entries_valid', valid!], ['entries_invalid', invalid!], ['entries_unknown_schema', unknown!]] as const) expect(csv.find((l) => l.includes(`,REGISTRY,${m},`)), m).toMatch(new RegExp(`,${r[1]!.replace(/,/g, '')},${n},[^,]*,,,,,,$`));
  });
});

describe('/statistics/ and the bridge note on an empty archive', () => {
  let site: BuiltSite;
  beforeAll(async () => {
    site = await builtSite('empty');
  }, 300_000);

  it('says methodology v2 has not run yet, and that there is no bridge day yet', async () => {
    const html = await readFile(path.join(site.out, 'statistics/index.html'), 'utf8');
    expect(text(html)).toContain('Methodology v2 has not run yet');
    expect(html).not.toContain('data-testid="figures-RQ1"');
    // No listed server, no registry hygiene figure (a share of nothing is not shown).
    expect(html).not.toContain('data-testid="registry-hygiene"');
    expect(text(await readFile(path.join(site.out, 'methodology/changelog/index.html'), 'utf8'))).toContain('No bridge day yet');
    // The CSVs exist, with their header only.
    expect((await readFile(path.join(site.out, 'statistics/figures.csv'), 'utf8')).trim().split('\r\n')).toHaveLength(1);
  });
});
