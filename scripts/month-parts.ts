// npm run months -- closed|write|verify|manifest …: the whole archive as immutable monthly parts,
// uploaded once as release assets (deploy.yml through npm run pipeline -- publish), and a small
// manifest of them on the site. The pure rules (which months are closed, names, pieces, the descriptor
// and the manifest) are src/outputs/month-parts.ts; month-parts-write.ts reads the archive and writes
// the parts, month-parts-verify.ts joins, unpacks and checks them; this file is the command.
// The tar format is node-tar (`tar`, the npm CLI's own): portable headers with a fixed mtime, so the
// same month gives the same bytes, and an extractor that refuses paths leaving its folder.
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LAYOUT } from '../src/archive/layout.ts';
import { openObjectStore } from '../src/archive/store-config.ts';
import { MAX_PIECE_BYTES } from '../src/outputs/month-parts.ts';
import { loadKeys } from '../collector/ops/verify-chain.ts';
import { CliError, command, execute, day, EXIT, exitCodes, expected, integer, main as entry, month as monthOpt, required, shown, usage, type Io, type Parsed } from '../collector/cli-kit/index.ts';
import { archiveMonths, readDescriptors, REPO_KEY, writeMonthPart, writePartsManifest } from './month-parts-write.ts';
import { verifyParts } from './month-parts-verify.ts';

export { archiveMonths, readDescriptors, writeMonthPart, writePartsManifest, type WriteOptions } from './month-parts-write.ts';
export { verifyParts, type VerifyOptions, type VerifyReport } from './month-parts-verify.ts';

export const HELP = `usage: npm run months -- <command> [options]

The whole archive as one part per closed month: the month's record (day files of every series, its
runs' lines of runs.jsonl, their rosters, the hash chain up to the month, every raw object and page
manifest its rows and rosters name, the archive's keys/, the validation records scored in the
month) as <base>/ in <base>.tar.gz, with <base> = mcp-schema-<YYYY-MM> (-SIMULATED after it for
a simulated world). A part over --max-bytes is cut into <base>.tar.gz.001, .002, … (cat them in
order). The pipeline's publish step uploads each closed month once, as the assets of the release
data-<YYYY-MM>, and never replaces one.

commands:
  closed                  print the closed months (one per line): the last day is before --today
                          and every day file of the month is compacted; --all adds the others with why
  write --month M --out D write month M's part into the empty or new folder D: <base>.tar.gz (or its
                          pieces), <base>.json (what it holds, each published file's size and SHA-256)
                          and SHA256SUMS — exactly the release's assets. Refuses a month not closed.
  verify <path>...        check parts: a folder of a release's assets (SHA256SUMS, the descriptor,
                          each piece's size and hash, the joined file), a <base>.tar.gz, or an unpacked
                          part folder. Every file against the part's SHA256SUMS, every object and page
                          manifest against its name (a packed page joined), every validation record
                          against its name and part.json's list, every object the month's
                          rows and rosters name present, and the month's rows, run lines, rosters and
                          objects against the chain's manifests (src/archive/chain.ts digests,
                          src/lib checkManifest: links and signatures from the chain's start). Exit 1
                          on any problem.
  manifest --parts D --out O
                          write O/manifest.json and O/SHA256SUMS: every part whose descriptor is in D
                          or a folder under it (<base>.json), with the URL, size and SHA-256 of each
                          file to download (the site's /data/parts/)

options:
  --data <dir>            the archive (default: data/)
  --today <YYYY-MM-DD>    what "past" is measured against (default: today, UTC)
  --max-bytes <n>         largest published file (default ${MAX_PIECE_BYTES}: GitHub's assets must be < 2 GiB)
  --simulated             the archive is a simulated world (also MCP_SCHEMA_SIMULATED=1)
  --release-url <url>     manifest: an asset's URL, {tag} and {name} replaced
                          (e.g. https://github.com/OWNER/REPO/releases/download/{tag}/{name})
  --site-url <url>        manifest: where the months not in a part are meanwhile (the site's /data/)
  --key <file>            verify: an Ed25519 public key the chain may be signed with; repeatable
                          (default: keys/mcp-schema-ed25519.pub; DEMO keys from the part's keys/)
  --chain <path>          verify: also hold each part's chain against this one (an archive folder,
                          or a chain.jsonl such as the site's /data/chain.jsonl): the same manifests,
                          and no run of the month after the part's last
  --json                  print the result as JSON
  -h, --help              this text

environment: MCP_SCHEMA_STORE and its variables (src/archive/store-config.ts) when the archive's
objects live in a bucket; MCP_SCHEMA_SIMULATED.

${exitCodes({ 0: 'done (verify: every part checked, no problem)', 1: 'verify: a problem, or no part found; write: a month not closed, or the part could not be\n              written', 2: 'bad usage' })}`;

// ------------------------------------------------------------------------------------------------- CLI

/** A chain.jsonl given by its path (e.g. the site's /data/chain.jsonl), as the archive folder readChain reads. */
function chainFileAsArchive(file: string): { dir: string; name: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-schema-chain-'));
  copyFileSync(file, path.join(dir, LAYOUT.chain));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return { dir, name: file };
}

/** The CLI's options (HELP names each; test/outputs/month-parts-cli.test.ts holds them to it). */
export const OPTIONS = {
  data: { type: 'string', default: 'data' },
  month: { type: 'string' },
  out: { type: 'string' },
  parts: { type: 'string' },
  today: { type: 'string' },
  all: { type: 'boolean', default: false },
  'max-bytes': { type: 'string' },
  simulated: { type: 'boolean', default: false },
  'release-url': { type: 'string' },
  'site-url': { type: 'string' },
  key: { type: 'string', multiple: true },
  chain: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h' },
} as const;

export const COMMANDS = ['closed', 'write', 'verify', 'manifest'] as const;

export const COMMAND = command({ name: 'months', help: HELP, options: OPTIONS, positionals: Infinity });

export async function run({ values, positionals }: Parsed<typeof COMMAND.options>, io: Io): Promise<number> {
  const [command, ...rest] = positionals;
  if (command === 'help') {
    io.stdout(`${HELP}\n`);
    return 0;
  }
  if (!(COMMANDS as readonly string[]).includes(command ?? '')) throw usage(`the command must be one of ${COMMANDS.join(', ')}, got ${command === undefined ? 'none' : shown(command)} (see --help)`);
  if (command !== 'verify' && rest.length > 0) throw usage(`${command} takes no further arguments, got ${JSON.stringify(rest[0]!.slice(0, 60))} (see --help)`);
  const today = day('today', values.today) ?? new Date().toISOString().slice(0, 10);
  const simulated = values.simulated || io.env.MCP_SCHEMA_SIMULATED === '1';
  const print = (value: unknown, text: string) => io.stdout(values.json ? `${JSON.stringify(value, null, 2)}\n` : text);

  if (command === 'closed') {
    const months = await expected(() => archiveMonths(values.data, today));
    const shown = values.all ? months : months.filter((m) => m.closed);
    print(shown, shown.map((m) => (values.all ? `${m.month}\t${m.closed ? 'closed' : `open: ${m.reason}`}\n` : `${m.month}\n`)).join(''));
    return 0;
  }
  if (command === 'write') {
    const month = monthOpt('month', required('month', values.month, 'the month to write, YYYY-MM'))!;
    const out = required('out', values.out, 'the folder to write the part into');
    const maxPieceBytes = integer('max-bytes', values['max-bytes'], { min: 1, max: MAX_PIECE_BYTES }) ?? MAX_PIECE_BYTES;
    const d = await expected(() => writeMonthPart(values.data, month, { out, store: openObjectStore(values.data, io.env), simulated, today, maxPieceBytes }));
    print(d, `wrote ${d.tag}: ${d.file!.name} (${d.file!.bytes} bytes${d.pieces!.length > 1 ? `, in ${d.pieces!.length} pieces` : ''}), ${d.runs.length} runs, ${d.day_files.length} day files, ${d.objects} objects, into ${out}\n`);
    return 0;
  }
  if (command === 'verify') {
    if (rest.length === 0) throw usage('verify needs a folder or a .tar.gz (see --help)');
    if (values.chain !== undefined && !existsSync(values.chain)) throw usage(`--chain must be an archive folder or a chain.jsonl, got ${JSON.stringify(values.chain.slice(0, 60))}`);
    const keys = await expected(() => loadKeys(values.key ?? (existsSync(REPO_KEY) ? [REPO_KEY] : [])), EXIT.usage);
    const chain = values.chain === undefined ? undefined : statSync(values.chain).isDirectory() ? { dir: values.chain, name: path.join(values.chain, LAYOUT.chain) } : chainFileAsArchive(values.chain);
    const r = await expected(verifyParts(rest, { keys, ...(chain ? { chain } : {}) }));
    const text = [
      ...r.parts.map((p) => `ok ${p.month}: ${p.runs} runs, ${p.objects} objects, ${p.files} files (${p.where})\n`),
      ...r.warnings.map((w) => `warning: ${w}\n`),
      ...r.problems.map((p) => `PROBLEM: ${p}\n`),
      r.problems.length === 0 ? `verified ${r.parts.length} part${r.parts.length === 1 ? '' : 's'}\n` : `${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}\n`,
    ].join('');
    print(r, text);
    return r.problems.length === 0 && r.parts.length > 0 ? 0 : 1;
  }
  if (command === 'manifest') {
    const partsDir = required('parts', values.parts, 'the folder of the parts\' descriptors');
    const out = required('out', values.out, 'the folder to write manifest.json into');
    const releaseUrl = required('release-url', values['release-url'], 'an asset\'s URL with {tag} and {name}');
    const siteUrl = required('site-url', values['site-url'], 'where the months not in a part are (the site\'s /data/)');
    if (!releaseUrl.includes('{tag}') || !releaseUrl.includes('{name}')) throw usage(`--release-url must hold {tag} and {name}, got ${JSON.stringify(releaseUrl.slice(0, 60))}`);
    const parts = await expected(() => readDescriptors(partsDir));
    const inParts = new Set(parts.map((p) => p.descriptor.month));
    const notInParts = existsSync(values.data) ? archiveMonths(values.data, today).map((m) => m.month).filter((m) => !inParts.has(m)) : [];
    const files = writePartsManifest(parts, out, { releaseUrl, siteUrl, notInParts, simulated });
    print({ parts: parts.length, ...files }, `wrote ${files.manifest} (${parts.length} part${parts.length === 1 ? '' : 's'}) and ${files.sums}\n`);
    return 0;
  }
  throw new CliError(`unknown command ${JSON.stringify(command!.slice(0, 40))}`, EXIT.usage);
}

/** The command on argv, its exit code returned (tests). */
export function main(argv: string[], io?: Io): Promise<number> {
  return execute(COMMAND, run, argv, io);
}

entry(import.meta.url, COMMAND, run);


