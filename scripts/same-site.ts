// `npx tsx scripts/same-site.ts [--before <git-ref>] [--reuse] [--keep]`
//
// Does this working tree build the same site as <git-ref> (default: main)? Builds the site from the
// same archives twice — once from <ref>'s sources (exported with `git archive` into a scratch folder,
// sharing this tree's node_modules when the lockfiles match, else with its own `npm ci`), once from
// this working tree — each with a fresh build cache, and
// compares the two outputs byte for byte: every file under dist/ and under the release folder.
// Exits 0 when they are identical, 1 when any file differs or exists on one side only.
//
// The archives, made once by this tree's collector (so both builds read the same bytes):
//   fixture      the site tests' fixture: the real collector against the local world, 12 days × 50
//                targets plus the hostile servers (test/helpers/archive.ts SITE_FIXTURE);
//   fixture-1t   the same archive built with MCP_SCHEMA_WORKERS=0 (day summaries read in the main thread,
//                bundle members written by the bundle writer instead of the day-summary workers);
//   ops          the same archive compacted (.jsonl.gz days), restated under v1 and v1-contract, with a
//                torn line, an invalid row beside a gz day and an invalid roster, and the big bundles
//                sent to a release folder (MCP_SCHEMA_RELEASE_DIR);
//   empty        an archive with nothing in it.
//
// Allowed differences: none between two trees on the same Astro major. A build writes no clock value
// (the "data as of" date and every other date come from the archive), which was checked by building
// the same sources twice: the outputs were identical. Should a difference ever be allowed, it goes in
// ALLOWED below with its reason.
//
// Across Astro majors (5 → 7) the compiler, Vite's bundler and its minifiers are new, so no
// page keeps its bytes; NEW_ASTRO below says what is then reported as equivalent instead of different,
// and why each is invisible to a reader. Everything else a reader could see still counts: a page is
// equivalent only if it has the same elements with the same attributes in the same order and the same
// visible text (entities decoded, whitespace collapsed as a browser does, block boundaries absorbing
// the whitespace beside them) — a space gained or lost between two inline elements is a difference.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseHTML } from 'linkedom';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Files allowed to differ, with the reason (none: see the header). */
const ALLOWED: { file: RegExp; why: string }[] = [];

/** Only when the two sides build with different Astro majors (see the header). */
const NEW_ASTRO: { file: RegExp; why: string; same?: (before: Buffer, after: Buffer) => boolean }[] = [
  {
    file: /^dist\/_astro\//,
    why: 'the bundled scripts and the stylesheet: Vite 8 (Rolldown, Oxc, Lightning CSS) minifies the same sources into other bytes, named by their hashes',
  },
  {
    file: /^dist\/pagefind\//,
    why: 'the search index: Pagefind names its fragments by a hash of the text it extracts, whitespace included; the pages it reads are held to the same visible text below',
  },
  {
    file: /\.html$/,
    why: "Astro 7's compiler keeps or drops whitespace between elements where Astro 5's did the other, and encodes some characters otherwise (&lt; for &#x3C;); the pages link the renamed /_astro/ files",
    same: (x, y) => {
      const [a, b] = [visible(x), visible(y)];
      return a.elements === b.elements && a.text === b.text;
    },
  },
  {
    file: /^dist\/data\/index\.html$/,
    why: 'a deliberate fix: the source puts a space after "N contract intervals." before "N archive lines failed validation"; Astro 5 dropped it from the fragment, Astro 7 keeps it',
    same: (x, y) => {
      const [a, b] = [visible(x), visible(y)];
      return a.elements === b.elements && a.text.replace(/ contract intervals\.(\d[\d,]*) archive lines failed validation/, ' contract intervals. $1 archive lines failed validation') === b.text;
    },
  },
];

/** Tags that start a new line box: the whitespace beside them is never rendered. */
const BLOCK = new Set(
  'html head body meta link title script style template p div h1 h2 h3 h4 h5 h6 ol ul li dl dt dd table caption colgroup col thead tbody tfoot tr th td section article aside header footer nav main figure figcaption pre blockquote details summary form fieldset legend hr br svg noscript'.split(' '),
);

/** A page as a reader gets it: its elements and attributes, and its text as rendered. */
function visible(html: Buffer): { elements: string; text: string } {
  const { document } = parseHTML(html.toString('utf8'));
  const elements: string[] = [];
  let text = '';
  const walk = (node: { nodeType: number; childNodes: ArrayLike<unknown> }) => {
    for (const child of Array.from(node.childNodes) as { nodeType: number; nodeName: string; data?: string; attributes?: ArrayLike<{ name: string; value: string }>; childNodes: ArrayLike<unknown> }[]) {
      if (child.nodeType === 3) text += child.data ?? '';
      else if (child.nodeType === 1) {
        const tag = child.nodeName.toLowerCase();
        const attrs = Array.from(child.attributes ?? []).map((a) => `${a.name}=${JSON.stringify(a.value.replace(/\/_astro\/[^"' ),]+/g, '/_astro/…'))}`);
        elements.push(`<${tag} ${attrs.join(' ')}>`);
        if (BLOCK.has(tag)) text += '\u0000';
        walk(child);
        if (BLOCK.has(tag)) text += '\u0000';
        elements.push(`</${tag}>`);
      }
    }
  };
  walk(document as unknown as { nodeType: number; childNodes: ArrayLike<unknown> });
  text = text.replace(/\s*\u0000[\s\u0000]*/g, '\u0000').replace(/\s+/g, ' ').replaceAll('\u0000', '\n').trim();
  return { elements: elements.join(''), text };
}

function astroMajor(dir: string): number {
  return Number((JSON.parse(readFileSync(path.join(dir, 'node_modules', 'astro', 'package.json'), 'utf8')) as { version: string }).version.split('.')[0]);
}

const HELP = `usage: npx tsx scripts/same-site.ts [--before <git-ref>] [--reuse] [--keep]

Builds the site from the same archives with <git-ref>'s sources and with this working tree's, each
with a fresh cache, and compares the outputs byte for byte (exit 0: identical, 1: a file differs).

  --before <ref>  the sources to compare with (default: main)
  --reuse         keep archives made by an earlier run of this script instead of making them again
  --keep          keep the archives and outputs under .tmp/ (default: removed when identical)
  -h, --help      this text`;

interface Variant {
  name: string;
  archive: 'fixture' | 'ops' | 'empty';
  env: Record<string, string>;
  release: boolean;
}

const VARIANTS: Variant[] = [
  { name: 'fixture', archive: 'fixture', env: {}, release: false },
  { name: 'fixture-1t', archive: 'fixture', env: { MCP_SCHEMA_WORKERS: '0' }, release: false },
  { name: 'ops', archive: 'ops', env: {}, release: true },
  { name: 'empty', archive: 'empty', env: {}, release: false },
];

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { before: { type: 'string', default: 'main' }, reuse: { type: 'boolean', default: false }, keep: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const work = path.join(ROOT, '.tmp', 'same-site');
  const ref = values.before;
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  mkdirSync(work, { recursive: true });

  const archives = path.join(work, 'archives');
  if (!values.reuse || !existsSync(path.join(archives, 'done'))) {
    rmSync(archives, { recursive: true, force: true });
    await makeArchives(archives);
    writeFileSync(path.join(archives, 'done'), '');
  }

  // <ref>'s sources, as committed, with <ref>'s dependencies (the build resolves packages from the
  // output folder up): this tree's node_modules when the two lockfiles are the same, otherwise
  // `npm ci` of <ref>'s own lockfile — a dependency upgrade is compared with the versions it replaces,
  // not with itself.
  const beforeSrc = path.join(work, `src-${commit.slice(0, 12)}`);
  if (!existsSync(path.join(beforeSrc, 'package.json')) || !existsSync(path.join(beforeSrc, 'node_modules'))) {
    rmSync(beforeSrc, { recursive: true, force: true });
    mkdirSync(beforeSrc, { recursive: true });
    execFileSync('sh', ['-c', `git archive --format=tar ${commit} | tar -x -C ${JSON.stringify(beforeSrc)}`], { cwd: ROOT });
    if (readFileSync(path.join(beforeSrc, 'package-lock.json')).equals(readFileSync(path.join(ROOT, 'package-lock.json')))) {
      symlinkSync(path.join(ROOT, 'node_modules'), path.join(beforeSrc, 'node_modules'));
    } else {
      console.log(`${ref}'s lockfile differs from this tree's: npm ci in ${beforeSrc}`);
      execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: beforeSrc, stdio: ['ignore', 'inherit', 'inherit'] });
    }
  }

  const majors = [astroMajor(beforeSrc), astroMajor(ROOT)];
  const rules = majors[0] === majors[1] ? [] : NEW_ASTRO;
  if (rules.length) console.log(`Astro ${majors[0]} before, ${majors[1]} after: ${rules.map((r) => r.file.source).join(', ')} compared as the header says`);
  let differing = 0;
  for (const v of VARIANTS) {
    const sides = { before: beforeSrc, after: ROOT };
    const outs: Record<string, { dist: string; release: string }> = {};
    for (const [side, cwd] of Object.entries(sides)) {
      // Each side's outputs inside its own folder: Astro builds an outDir outside the working
      // directory through ./.astro/ and copies that folder's other files into the site too.
      const base = path.join(cwd, '.tmp', 'same-site-out', v.name);
      outs[side] = { dist: `${base}/dist`, release: `${base}/release` };
      rmSync(base, { recursive: true, force: true });
      mkdirSync(base, { recursive: true });
      await build(cwd, {
        MCP_SCHEMA_DATA: path.join(archives, v.archive),
        MCP_SCHEMA_OUT: outs[side]!.dist,
        MCP_SCHEMA_CACHE: `${base}/cache`,
        MCP_SCHEMA_SIMULATED: '1',
        ...(v.release ? { MCP_SCHEMA_RELEASE_DIR: outs[side]!.release } : {}),
        ...v.env,
      }, `${base}/build.log`);
    }
    const diffs = [...compareTrees(outs.before!.dist, outs.after!.dist, 'dist'), ...compareTrees(outs.before!.release, outs.after!.release, 'release')];
    // d.file is "dist/…" or "release/…": the same path under each side's folder of that name.
    const file = (side: 'before' | 'after', f: string) => {
      const [tree, ...rest] = f.split('/');
      return readFileSync(path.join(outs[side]![tree as 'dist' | 'release'], ...rest));
    };
    const equivalent = (d: { file: string; what: string }) =>
      rules.some((r) => r.file.test(d.file) && (!r.same || (!d.what.startsWith('only ') && r.same(file('before', d.file), file('after', d.file)))));
    const unexplained = diffs.filter((d) => !ALLOWED.some((a) => a.file.test(d.file)) && !equivalent(d));
    const files = countFiles(outs.after!.dist) + countFiles(outs.after!.release);
    console.log(`${v.name}: ${files} files, ${unexplained.length > 0 ? `${unexplained.length} differ` : diffs.length > 0 ? 'the same' : 'identical'}${diffs.length > unexplained.length ? ` (${diffs.length - unexplained.length} allowed or equivalent)` : ''}`);
    for (const d of unexplained.slice(0, 40)) console.log(`  ${d.file}: ${d.what}`);
    differing += unexplained.length;
  }
  console.log(differing === 0 ? `same site as ${ref} (${commit.slice(0, 12)})` : `DIFFERENT from ${ref} (${commit.slice(0, 12)}): ${differing} files; outputs kept in ${beforeSrc}/.tmp/same-site-out and ${ROOT}.tmp/same-site-out`);
  if (differing === 0 && !values.keep) for (const d of [work, path.join(ROOT, '.tmp', 'same-site-out')]) rmSync(d, { recursive: true, force: true });
  return differing === 0 ? 0 : 1;
}

async function makeArchives(dir: string): Promise<void> {
  const { collectArchive, SITE_FIXTURE } = await import('../test/helpers/archive.ts');
  const { compactArchive } = await import('../collector/ops/compact.ts');
  const { restate } = await import('../collector/ops/restate.ts');
  const fixture = path.join(dir, 'fixture');
  await collectArchive(SITE_FIXTURE, fixture);
  const ops = path.join(dir, 'ops');
  cpSync(fixture, ops, { recursive: true });
  compactArchive(ops);
  await restate(ops, 'v1');
  await restate(ops, 'v1-contract');
  // Damage the loader must skip and list: a torn last line on the open day, an invalid row in a late
  // plain file beside a compacted day, a roster that does not validate.
  const obs = path.join(ops, 'observations');
  const days = readdirSync(obs).sort();
  const open = days.find((f) => f.endsWith('.jsonl'))!;
  writeFileSync(path.join(obs, open), `${readFileSync(path.join(obs, open), 'utf8')}{"run_id":"torn`);
  const closed = days.find((f) => f.endsWith('.jsonl.gz'))!;
  writeFileSync(path.join(obs, closed.replace(/\.gz$/, '')), `${JSON.stringify({ run_id: 'late', day: closed.slice(0, 10) })}\n`);
  writeFileSync(path.join(ops, 'rosters', '2099-01-01.json'), '{"day":"bad"}\n');
  mkdirSync(path.join(dir, 'empty'), { recursive: true });
}

function build(cwd: string, env: Record<string, string>, log: string): Promise<void> {
  // Only the variables named here reach the build: an MCP_SCHEMA_* of the caller's shell must not.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MCP_SCHEMA_')));
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', 'build'], { cwd, env: { ...inherited, ASTRO_TELEMETRY_DISABLED: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('close', (code) => {
      writeFileSync(log, out);
      if (code === 0) resolve();
      else reject(new Error(`build in ${cwd} exited ${code}; log: ${log}\n${out.slice(-2000)}`));
    });
  });
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

function countFiles(dir: string): number {
  return listFiles(dir).length;
}

function compareTrees(a: string, b: string, label: string): { file: string; what: string }[] {
  const left = new Set(listFiles(a));
  const right = new Set(listFiles(b));
  const out: { file: string; what: string }[] = [];
  for (const f of [...new Set([...left, ...right])].sort()) {
    const file = `${label}/${f}`;
    if (!right.has(f)) out.push({ file, what: 'only before' });
    else if (!left.has(f)) out.push({ file, what: 'only after' });
    else {
      const x = readFileSync(path.join(a, f));
      const y = readFileSync(path.join(b, f));
      if (!x.equals(y)) out.push({ file, what: firstDifference(x, y) });
    }
  }
  return out;
}

function firstDifference(x: Buffer, y: Buffer): string {
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  const show = (b: Buffer) => JSON.stringify(b.subarray(Math.max(0, i - 40), i + 60).toString('utf8'));
  return `${x.length} vs ${y.length} bytes, first difference at byte ${i}: ${show(x)} vs ${show(y)}`;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 2;
  },
);
