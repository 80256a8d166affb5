// The validation gate end to end: an archive the collector made of the
// local world (test/helpers/archive.ts), while its loopback servers still answer: draw → a worksheet
// whose curl commands run against them (curl when the machine has it, otherwise a node replay of the
// same arguments) → score → a record written once → /statistics/ built from that archive says it, and
// before any record says "not yet validated" beside every v2 figure.
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyArchive } from '../../collector/ops/verify.ts';
import { drawWorksheet, scoreAndRecord, ValidationError, worksheetJson, worksheetMarkdown } from '../../collector/ops/validation.ts';
import { readValidations, writeValidationRecord } from '../../src/archive/validations.ts';
import { REVIEW_STATUSES, WorksheetError, type Worksheet } from '../../src/lib/index.ts';
import { collectArchive } from '../helpers/archive.ts';
import { ROOT, TMP } from './shared.ts';

const run = promisify(execFile);
const DIR = path.join(TMP, 'validation-gate');
const DATA = path.join(DIR, 'archive');
const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ').trim();

const hasCurl = (() => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Without curl: a `curl` on PATH that replays the worksheet's arguments with node's fetch, printing what --include prints. */
function curlShim(dir: string): string {
  const bin = path.join(dir, 'bin');
  execFileSync('mkdir', ['-p', bin]);
  const file = path.join(bin, 'curl');
  writeFileSync(
    file,
    `#!/usr/bin/env node
const a = process.argv.slice(2); const h = {}; let url, body, method = 'GET';
for (let i = 0; i < a.length; i++) {
  if (a[i] === '--header') { const [k, ...v] = a[++i].split(': '); h[k] = v.join(': '); }
  else if (a[i] === '--data-raw') body = a[++i];
  else if (a[i] === '--url') url = a[++i];
  else if (a[i] === '--request') method = a[++i];
  else if (a[i] === '--max-time' || a[i] === '--max-redirs') i++;
}
const r = await fetch(url, { method, headers: h, body, redirect: 'manual' });
let out = 'HTTP/1.1 ' + r.status + '\\r\\n'; r.headers.forEach((v, k) => { out += k + ': ' + v + '\\r\\n'; });
process.stdout.write(out + '\\r\\n' + (await r.text()));
`,
  );
  chmodSync(file, 0o755);
  return bin;
}

async function sh(command: string, bin: string | null): Promise<string> {
  const env = bin ? { ...process.env, PATH: `${bin}:${process.env.PATH}` } : process.env;
  return (await run('sh', ['-c', command], { env, maxBuffer: 8 << 20 })).stdout;
}

async function build(name: string): Promise<string> {
  const out = path.join(DIR, `dist-${name}`);
  await rm(out, { recursive: true, force: true });
  await run('npm', ['run', 'build'], { cwd: ROOT, env: { ...process.env, MCP_SCHEMA_DATA: DATA, MCP_SCHEMA_OUT: out, MCP_SCHEMA_CACHE: `${out}.cache`, MCP_SCHEMA_BRIDGE_DAYS: '1', ASTRO_TELEMETRY_DISABLED: '1' }, maxBuffer: 64 << 20 });
  return out;
}

const filled = (ws: Worksheet, wrong: number): Worksheet => ({
  ...ws,
  endpoints: ws.endpoints.map((e, i) => ({ ...e, reviewer_status: i < wrong ? REVIEW_STATUSES.find((s) => s !== e.recorded.status)! : e.recorded.status, reviewer_note: i < wrong ? 'saw something else' : null })),
});

describe('the validation gate on a collector-made archive of the local world', () => {
  let ws: Worksheet;
  const curlOutputs: { status: string; era: string; step: string; out: string }[] = [];
  let notValidatedHtml: string;
  let passedHtml: string;
  let notValidatedHome: string;
  let failedHtml: string;
  let passedHome: string;
  let out: string;
  let failedFile: string;
  let passedFile: string;

  beforeAll(async () => {
    await rm(DIR, { recursive: true, force: true });
    await mkdir(DIR, { recursive: true });
    const bin = hasCurl ? null : curlShim(DIR);
    // A one-day bridge, then v2 alone: the headline has switched to v2; the lifecycle servers add an auth wall.
    await collectArchive(
      {
        seed: 'validation-gate',
        size: 12,
        days: 2,
        lifecycle: true,
        methodology: 'auto',
        bridgeDays: 1,
        timeoutMs: 3000,
        whileServing: async (dir) => {
          ws = await drawWorksheet(dir, { seed: 20261012, n: 30 });
          // Per status drawn, the command that decides it, run against the loopback server.
          for (const e of ws.endpoints) {
            const r = e.recorded;
            const step = r.status === 'ok' && r.era === 'legacy' ? '4.' : '1.';
            const c = e.curl.find((x) => x.step.startsWith(step))!;
            curlOutputs.push({ status: r.status, era: r.era, step, out: await sh(c.command, bin) });
            if (r.status.startsWith('auth_')) {
              for (const m of e.curl.filter((x) => x.step.includes('RFC 9728'))) curlOutputs.push({ status: r.status, era: r.era, step: m.step, out: await sh(m.command, bin) });
            }
          }
        },
      },
      DATA,
    );
    out = await build('not-validated');
    notValidatedHtml = readFileSync(path.join(out, 'statistics/index.html'), 'utf8');
    notValidatedHome = readFileSync(path.join(out, 'index.html'), 'utf8');
    // A failed gate first, then a passed one (the later one stands).
    failedFile = (await scoreAndRecord(DATA, worksheetJson(filled(ws, 2)), new Date('2026-12-02T09:00:00Z'))).file;
    failedHtml = readFileSync(path.join(await build('failed'), 'statistics/index.html'), 'utf8');
    passedFile = (await scoreAndRecord(DATA, worksheetJson(filled(ws, 0)), new Date('2026-12-02T10:00:00Z'))).file;
    out = await build('passed');
    passedHtml = readFileSync(path.join(out, 'statistics/index.html'), 'utf8');
    passedHome = readFileSync(path.join(out, 'index.html'), 'utf8');
  }, 900_000);

  it('draws deterministically, stratified, every status of the run present, the whole population when n is larger', async () => {
    const again = await drawWorksheet(DATA, { seed: 20261012, n: 30 });
    expect(worksheetJson(again)).toBe(worksheetJson(ws));
    const population = Object.values(ws.population).reduce((x, y) => x + y, 0);
    expect(population).toBeLessThan(30);
    expect(ws.endpoints).toHaveLength(population);
    expect(new Set(ws.endpoints.map((e) => e.recorded.status))).toEqual(new Set(Object.keys(ws.population)));
    expect(Object.keys(ws.population).length).toBeGreaterThan(1);
    // A smaller n: one per status, the rest by size; another seed, another draw.
    const small = await drawWorksheet(DATA, { seed: 20261012, n: Object.keys(ws.population).length + 1 });
    expect(new Set(small.endpoints.map((e) => e.recorded.status))).toEqual(new Set(Object.keys(ws.population)));
    expect(small.rule).toMatch(/largest remainder/);
    // Every stored raw answer it names is in the archive, by its hash.
    for (const e of ws.endpoints) for (const o of e.objects) expect(createHash('sha256').update(readFileSync(path.join(DATA, o.path))).digest('hex')).toBe(o.sha256);
    const md = worksheetMarkdown(ws, 'w.json');
    expect(md.indexOf('What the archive recorded')).toBeGreaterThan(md.lastIndexOf('```sh'));
    // The population is the one the figures count (the study's frame): the run's probed rows of
    // active entries, one per URL (scheme and host lower-cased, no query, fragment or trailing slash).
    const folder = path.join(DATA, 'observations-v2');
    const rows = readdirSync(folder)
      .filter((f) => f.startsWith(ws.run_day) && f.endsWith('.jsonl'))
      .flatMap((f) => readFileSync(path.join(folder, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>))
      .filter((r) => r.run_id === ws.run_id);
    const norm = (u: string) => {
      const x = new URL(u);
      return `${x.protocol}//${x.host}${x.pathname.replace(/\/+$/, '')}`;
    };
    const frame = new Set(rows.filter((r) => r.registry_status === 'active' && (r.outcome === 'ok' || r.outcome === 'error') && !(r.step === 'address' && r.redirects === 0)).map((r) => norm(r.endpoint)));
    expect(population).toBe(frame.size);
    expect(new Set(ws.endpoints.map((e) => norm(e.endpoint))).size).toBe(ws.endpoints.length);
  });

  it("the worksheet's curl commands repeat the probe against the loopback servers and get what the archive recorded", () => {
    expect(curlOutputs.length).toBeGreaterThan(0);
    for (const c of curlOutputs.filter((x) => x.step === '4.')) {
      expect(c.out, 'legacy initialize').toMatch(/^HTTP\/[\d.]+ 200/);
      expect(c.out).toContain('"protocolVersion"');
    }
    for (const c of curlOutputs.filter((x) => x.step === '1.' && x.status === 'ok')) expect(c.out, 'modern discover').toContain('supportedVersions');
    const walls = curlOutputs.filter((x) => x.step === '1.' && x.status.startsWith('auth_'));
    expect(walls.length).toBeGreaterThan(0);
    for (const c of walls) {
      expect(c.out).toMatch(/^HTTP\/[\d.]+ 401/);
      expect(c.out.toLowerCase()).toContain('www-authenticate: bearer');
    }
    // The challenge's resource_metadata URL is among the RFC 9728 lookups, and it answers.
    expect(curlOutputs.some((x) => x.step.includes("challenge's resource_metadata") && /^HTTP\/[\d.]+ 200/.test(x.out))).toBe(true);
  });

  it('refuses a worksheet with missing reviewer statuses or statuses outside the vocabulary, naming each; and one of another archive', async () => {
    await expect(scoreAndRecord(DATA, worksheetJson(ws), new Date())).rejects.toThrow(WorksheetError);
    await expect(scoreAndRecord(DATA, worksheetJson(ws), new Date())).rejects.toThrow(/endpoint 1 \(.*\): no reviewer_status/);
    const bad = filled(ws, 0);
    bad.endpoints[0]!.reviewer_status = 'fine';
    await expect(scoreAndRecord(DATA, worksheetJson(bad), new Date())).rejects.toThrow(/reviewer_status "fine" is not a status/);
    await expect(scoreAndRecord(DATA, worksheetJson({ ...filled(ws, 0), run_id: 'no-such-run' }), new Date())).rejects.toThrow(ValidationError);
    await expect(scoreAndRecord(DATA, '{"format":"x"}', new Date())).rejects.toThrow(/not a validation worksheet/);
    // Endpoints picked by hand (one left out), or the classifier's version edited: not the draw, or not believed.
    const picked = filled(ws, 0);
    picked.endpoints.pop();
    await expect(scoreAndRecord(DATA, worksheetJson(picked), new Date())).rejects.toThrow(/not the draw of seed 20261012, n 30/);
    // The CLI says so on stderr and exits 1; its help states the draw's rule.
    const cli = path.join(ROOT, 'collector/ops/validation-cli.ts');
    const file = path.join(DIR, 'unfilled.json');
    writeFileSync(file, worksheetJson(ws));
    const err = await run('npx', ['tsx', cli, 'score', file, '--data', DATA], { cwd: ROOT }).catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(1);
    expect((err as { stderr: string }).stderr).toMatch(/^validation: the worksheet cannot be scored:\n {2}- endpoint 1/);
    // draw from the CLI writes the same worksheet, and never over an existing one.
    const drawn = await run('npx', ['tsx', cli, 'draw', '--data', DATA, '--out', path.join(DIR, 'cli-ws')], { cwd: ROOT });
    expect(drawn.stdout).toMatch(/^drew \d+ endpoints of run /);
    expect(readFileSync(path.join(DIR, 'cli-ws.json'), 'utf8')).toBe(worksheetJson(ws));
    expect(readFileSync(path.join(DIR, 'cli-ws.md'), 'utf8')).toBe(worksheetMarkdown(ws, path.join(DIR, 'cli-ws.json')));
    const again = await run('npx', ['tsx', cli, 'draw', '--data', DATA, '--out', path.join(DIR, 'cli-ws')], { cwd: ROOT }).catch((e: { code: number; stderr: string }) => e);
    expect((again as { code: number }).code).toBe(2);
    expect((again as { stderr: string }).stderr).toMatch(/exists: a worksheet is not overwritten/);
    const help = (await run('npx', ['tsx', cli, '--help'], { cwd: ROOT })).stdout;
    expect(help).toContain('largest remainder');
    expect(help).toContain('--seed <n>');
  }, 120_000);

  it('keeps each score as a record named by its day and hash, written once: the same score again writes nothing', async () => {
    const { records, problems } = readValidations(DATA);
    expect(problems).toEqual([]);
    expect(records.map((r) => r.file).sort()).toEqual([failedFile, passedFile].sort());
    const passed = records.find((r) => r.file === passedFile)!.record;
    expect(passed.passed).toBe(true);
    expect(passed.agreement).toMatchObject({ count: ws.endpoints.length, n: ws.endpoints.length, share: 1 });
    expect(passed.prober_version).toBe(ws.prober_version);
    const forged = await scoreAndRecord(DATA, worksheetJson({ ...filled(ws, 0), prober_version: '9.9.9' }), new Date('2026-12-02T11:00:00Z'));
    expect(forged.record.prober_version).toBe(ws.prober_version);
    await rm(path.join(DATA, forged.file));
    const failed = records.find((r) => r.file === failedFile)!.record;
    expect(failed.passed).toBe(ws.endpoints.length >= 20);
    expect(failed.disagreements).toHaveLength(2);
    const before = readFileSync(path.join(DATA, passedFile));
    const again = await scoreAndRecord(DATA, worksheetJson(filled(ws, 0)), new Date('2026-12-02T10:00:00Z'));
    expect(again).toMatchObject({ file: passedFile, written: false });
    expect(writeValidationRecord(DATA, passed).written).toBe(false);
    expect(readFileSync(path.join(DATA, passedFile)).equals(before)).toBe(true);
    expect(readdirSync(path.join(DATA, 'validations')).sort()).toEqual([failedFile, passedFile].map((f) => path.basename(f)).sort());
    // An edited record no longer hashes to its name: refused, never shown.
    const copy = path.join(DIR, 'edited');
    await mkdir(path.join(copy, 'validations'), { recursive: true });
    writeFileSync(path.join(copy, passedFile), before.toString('utf8').replace('"passed": true', '"passed": false'));
    expect(readValidations(copy)).toMatchObject({ records: [], problems: [{ message: expect.stringMatching(/not to its name/) }] });
    // verify holds the records to their names too.
    expect((await verifyArchive(DATA)).problems.filter((p) => p.kind === 'validation')).toEqual([]);
    const planted = path.join(DATA, 'validations', `2026-12-03-${'0'.repeat(64)}.json`);
    writeFileSync(planted, before);
    try {
      expect((await verifyArchive(DATA)).problems.filter((p) => p.kind === 'validation')).toEqual([{ kind: 'validation', where: `validations/${path.basename(planted)}`, message: expect.stringMatching(/not to its name/) }]);
    } finally {
      await rm(planted);
    }
  }, 120_000);

  it('/statistics/ without a record: "not yet validated" at the top and beside every v2 figure', () => {
    const t = text(notValidatedHtml);
    expect(notValidatedHtml).toContain('data-gate="not-validated"');
    expect(t).toContain('Not yet validated. No validation gate has been run for the classifier that made these figures');
    const rows = [...notValidatedHtml.matchAll(/<tr[^>]*data-measure="[^"]+"[^>]*>.*?<\/tr>/gs)].map((m) => m[0]);
    expect(rows.length).toBeGreaterThan(10);
    for (const r of rows) expect(text(r), r.slice(0, 80)).toContain('(not yet validated)');
    expect(notValidatedHtml).not.toContain('data-testid="v2-gate-record"');
  });

  it('/statistics/ after a failed gate: not yet validated, with what the gate found and its record', () => {
    const t = text(failedHtml);
    const rec = readValidations(DATA).records.find((r) => r.file === failedFile)!.record;
    expect(failedHtml).toContain('data-gate="not-validated"');
    expect(t).toContain(`Not yet validated. The latest validation gate of this classifier, on ${rec.day}, did not pass: the reviewer agreed with ${rec.agreement.count} of ${rec.agreement.n} recorded statuses`);
    expect(/<a href="([^"]+)" data-testid="v2-gate-record">/.exec(failedHtml)![1]).toBe(`/data/validations/${path.basename(failedFile)}`);
    for (const m of failedHtml.matchAll(/<tr[^>]*data-measure="([^"]+)"[^>]*>(.*?)<\/tr>/gs)) expect(text(m[2]!), m[1]).toContain('(not yet validated)');
  });

  it('/statistics/ after a passed gate: when, agreement and κ, the record linked and published byte for byte', () => {
    const t = text(passedHtml);
    const rec = readValidations(DATA).records.find((r) => r.file === passedFile)!;
    expect(passedHtml).toContain('data-gate="passed"');
    expect(t).toContain(`Validated. These v2 figures passed the validation gate on ${rec.record.day}`);
    expect(t).toContain(`agreed with the recorded status for ${ws.endpoints.length} of them (100.0%`);
    expect(t).toContain(`Cohen's κ ${rec.record.kappa!.toFixed(2)}`);
    expect(t).not.toContain('(not yet validated)');
    const link = /<a href="([^"]+)" data-testid="v2-gate-record">/.exec(passedHtml)![1]!;
    expect(link).toBe(`/data/validations/${path.basename(passedFile)}`);
    const served = readFileSync(path.join(out, link));
    expect(createHash('sha256').update(served).digest('hex')).toBe(rec.sha256);
    expect(existsSync(path.join(out, `/data/validations/${path.basename(failedFile)}`))).toBe(true);
  });

  it('the headline switch to v2 says plainly whether the v2 classifier passed a gate', () => {
    const gate = (html: string) => text(/<span data-testid="headline-gate">([\s\S]*?)<\/span>\s*<\/p>/.exec(html)?.[1] ?? '');
    expect(text(notValidatedHome)).toContain('Headline series: methodology v2');
    expect(gate(notValidatedHome)).toBe('The switch happened without a passed validation gate: the v2 figures are not yet validated.');
    const rec = readValidations(DATA).records.find((r) => r.file === passedFile)!.record;
    expect(gate(passedHome)).toBe(`The v2 classifier passed the validation gate on ${rec.day} (100.0% agreement).`);
  });
});
