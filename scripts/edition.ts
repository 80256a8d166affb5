// npm run edition -- [--data <dir>] [--month YYYY-MM | --all] [--revise YYYY-MM --note <text>]
//                    [--release-dir <dir> --release-url <url with {edition}>] [--simulated] [--now <iso>]
// Cuts monthly editions into the archive (src/editions/cut-edition.ts). Run by the daily workflow after
// collect and compact: idempotent, it cuts the month's edition only when it does not exist yet and the
// month's first full run does. Reads MCP_SCHEMA_SIGNING_KEY (signs SHA256SUMS) and the site's settings
// (MCP_SCHEMA_SITE_URL, MCP_SCHEMA_BASE: the permanent URLs; MCP_SCHEMA_SIMULATED; MCP_SCHEMA_CACHE).
import { useObjectStore } from '../src/archive/objects.ts';
import { openObjectStore, readStoreConfig } from '../src/archive/store-config.ts';
import { CliError, command, EXIT, exitCodes, expected, isoTime, main, month, usage } from '../collector/cli-kit/index.ts';
import { readRuns } from '../src/archive/runs.ts';
import { cutEdition, type CutResult } from '../src/editions/cut-edition.ts';
import { signerFromPem } from '../src/lib/index.ts';
import { bridgeDays, cacheDir, conceptDoi, permalink, simulated, sourceRoot } from '../src/site/settings.ts';

export const HELP = `usage: npm run edition -- [options]

Cuts the monthly edition of an archive: a frozen copy (tiles, survival chart SVG/PNG/CSV/zip,
error-class table, citations, README, page, data bundles as of the run, SHA256SUMS and its Ed25519
signature) of the month's first full run, into <data>/editions/<YYYY-MM>/. Does nothing when the
edition exists or the month has no full run yet. An edition is never rewritten: --revise publishes
<YYYY-MM>-r<n> beside it, with a note.

  --data <dir>          the archive (default: data/)
  --month <YYYY-MM>     the month to cut (default: the month of the latest run)
  --all                 every month that has a full run and no edition yet
  --revise <YYYY-MM>    publish a revision of that month's edition (needs --note)
  --note <text>         why the revision exists (a restatement: name its changelog note)
  --release-dir <dir>   write the data bundles here (to upload as assets of the release
                        edition-<id>) instead of into the edition; the edition keeps their manifest
  --release-url <url>   their public base URL; {edition} is replaced by the edition id
  --simulated           the archive is a simulated world (also MCP_SCHEMA_SIMULATED=1)
  --now <iso>           the cut's time (default: now)
  -h, --help            this text

environment: MCP_SCHEMA_SIGNING_KEY (Ed25519 PKCS#8 PEM) signs SHA256SUMS; MCP_SCHEMA_SITE_URL and
MCP_SCHEMA_BASE give the permanent URLs.

${exitCodes({ 0: 'cut, or nothing to cut', 1: 'the edition could not be cut (an archive or store it cannot read)', 2: 'bad usage, or MCP_SCHEMA_SIGNING_KEY is not a key' })}`;

export const COMMAND = command({
  name: 'edition',
  help: HELP,
  options: {
    data: { type: 'string', default: 'data' },
    month: { type: 'string' },
    all: { type: 'boolean', default: false },
    revise: { type: 'string' },
    note: { type: 'string' },
    'release-dir': { type: 'string' },
    'release-url': { type: 'string' },
    simulated: { type: 'boolean', default: false },
    now: { type: 'string' },
  },
});

main(import.meta.url, COMMAND, async ({ values }, io) => {
  month('month', values.month);
  month('revise', values.revise);
  if (values.revise && !values.note) throw usage('--revise needs --note (why the revision exists)');
  if (Boolean(values['release-dir']) !== Boolean(values['release-url'])) throw usage('--release-dir and --release-url go together');
  const now = isoTime('now', values.now) ?? new Date();
  let signer;
  try {
    signer = io.env.MCP_SCHEMA_SIGNING_KEY ? signerFromPem(io.env.MCP_SCHEMA_SIGNING_KEY, 'mcp-schema') : null;
  } catch (e) {
    throw new CliError(`MCP_SCHEMA_SIGNING_KEY is not an Ed25519 private key in PEM: ${(e as Error).message}`, EXIT.usage, { cause: e });
  }
  return expected(async () => {
    // Objects (and closed days) in a bucket (MCP_SCHEMA_STORE): read through it, cached in the archive folder.
    if (readStoreConfig(io.env) !== null) useObjectStore(values.data, openObjectStore(values.data, io.env));
    const { runs } = readRuns(values.data);
    const months = values.revise ? [values.revise] : values.month ? [values.month] : values.all ? [...new Set(runs.map((r) => r.day.slice(0, 7)))] : runs.length ? [runs.at(-1)!.day.slice(0, 7)] : [];
    const results: CutResult[] = [];
    for (const month of months) {
      results.push(
        await cutEdition(values.data, {
          month,
          revise: values.revise ? { note: values.note! } : null,
          pub: { permalink, simulated: values.simulated || simulated(), conceptDoi: conceptDoi() },
          signer,
          cache: { dir: cacheDir(), sourceRoot: sourceRoot() },
          release: values['release-dir'] ? { dir: values['release-dir'], url: values['release-url']! } : null,
          now,
          // The same bridge length the site's headline waits for, so an edition names the method its figures rest on.
          bridgeDays: bridgeDays(),
        }),
      );
    }
    for (const r of results) {
      if (r.status === 'cut') io.stdout(`cut edition ${r.id} into ${r.dir} (${r.files.length} files)${signer ? `, signed by ${signer.keyId}` : ', unsigned'}\n`);
      else if (r.status === 'exists') io.stdout(`edition ${r.id} exists: nothing to do (editions are never rewritten; --revise publishes a revision)\n`);
      else io.stdout(`no edition for ${r.month}: its first full run has not happened yet\n`);
    }
    if (results.length === 0) io.stdout('no run yet: nothing to cut\n');
    return 0;
  });
});
