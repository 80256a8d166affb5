// npm run publish-files -- --dir <folder> [--concurrency <n>] [--all] [--json]
// npm run publish-files -- [--fingerprints-out <file>] [--sealed-out <file>]
import { readStoreConfig, STORE_ENV } from '../../src/archive/store-config.ts';
import { s3Client } from '../../src/archive/s3-store.ts';
import { CliError, command, EXIT, exitCodes, expected, integer, main, required, usage } from '../cli-kit/index.ts';
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { MANIFEST_KEY, publishedRecords, publishFiles } from './publish-files.ts';

export const FILES_STORE = 'MCP_SCHEMA_FILES_STORE';

export const HELP = `usage: npm run publish-files -- --dir <folder> [--concurrency <n>] [--all] [--json]
       npm run publish-files -- [--fingerprints-out <file>] [--sealed-out <file>]

Upload the file host's folder — what a site build with MCP_SCHEMA_FILES_DIR wrote there: the
descriptors, tools and set files, name indexes, badges, feeds, JSON Patches, raw bodies and data
bundles (src/lib/file-host.ts) — to the public bucket MCP_SCHEMA_FILES_URL serves, under the same
paths. Only files that changed since the last upload are sent (the bucket keeps a manifest,
${MANIFEST_KEY}, of every path and its SHA-256, replaced after every upload succeeded); nothing is
ever deleted, so a URL once published keeps answering. Each file gets its Content-Type, its MD5 and a
Cache-Control (raw bodies: a year, immutable; the rest: five minutes). The manifest also records,
for the next build, what the folder's build left there and did not publish as files: its per-server
fingerprints and its sealed months (closed months whose data bundles it wrote; recorded only when the
bucket holds every file they name with those bytes).

  ${FILES_STORE}=s3://<bucket>/<prefix>   the bucket and the folder inside it
  ${STORE_ENV.endpoint}, ${STORE_ENV.region}, ${STORE_ENV.accessKeyId}, ${STORE_ENV.secretAccessKey}
                                       as for the archive's store (the same account)

  --dir <folder>      the file host's folder (MCP_SCHEMA_FILES_DIR of the build); the build's
                      per-server fingerprints (with server pages there, MCP_SCHEMA_SERVER_PAGES) and
                      sealed months in it are recorded in the manifest, after every file is up
  --fingerprints-out <file>
                      upload nothing: write the fingerprints the manifest records (or, when it has
                      none, no file) to <file>, for the next build's MCP_SCHEMA_PUBLISHED_FINGERPRINTS
  --sealed-out <file> upload nothing: write the sealed months the manifest records (or, when it has
                      none, no file) to <file>, for the next build to skip them; with
                      --fingerprints-out, one read of the manifest serves both
  --concurrency <n>   uploads at once, 1 to 64 (default 16)
  --all               upload every file, whatever the manifest says (a bucket emptied by hand)
  --json              print the summary as JSON
  -h, --help          this text

${exitCodes({ 0: 'published', 1: 'an upload failed, or the sealed months name a file the bucket does not hold (the manifest is then left as it was: the next run sends the rest)', 2: 'bad usage, no folder at --dir, or no bucket configured' })}`;

export const COMMAND = command({
  name: 'publish-files',
  help: HELP,
  options: {
    dir: { type: 'string' },
    'fingerprints-out': { type: 'string' },
    'sealed-out': { type: 'string' },
    concurrency: { type: 'string', default: '16' },
    all: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});

main(import.meta.url, COMMAND, async ({ values }, io) => {
  const fingerprintsOut = values['fingerprints-out'];
  const sealedOut = values['sealed-out'];
  for (const [name, out] of [['--fingerprints-out', fingerprintsOut], ['--sealed-out', sealedOut]] as const) {
    if (out !== undefined && values.dir !== undefined) throw usage(`${name} reads the manifest and uploads nothing: give it without --dir`);
    if (out === '') throw usage(`${name} needs a file name`);
  }
  const readOnly = fingerprintsOut !== undefined || sealedOut !== undefined;
  const dir = readOnly ? '' : required('dir', values.dir, 'the folder the build wrote with MCP_SCHEMA_FILES_DIR');
  if (!readOnly && (!existsSync(dir) || !statSync(dir).isDirectory())) throw usage(`no folder at --dir ${dir}`);
  const concurrency = integer('concurrency', values.concurrency, { min: 1, max: 64 })!;
  let config;
  try {
    config = readStoreConfig(io.env, FILES_STORE);
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage, { cause: e });
  }
  if (!config) throw usage(`${FILES_STORE} is not set: name the file host's bucket (s3://<bucket>/<prefix>; see --help)`);
  const client = s3Client(config);
  const description = `s3://${config.bucket}/${config.prefix} at ${config.endpoint}`;
  const t0 = Date.now();
  if (readOnly) {
    try {
      const { fingerprints: f, sealed } = await once(publishedRecords({ client, bucket: config.bucket, prefix: config.prefix ?? '', description }));
      // No file when nothing was recorded: the build then renders every server, or writes every month's
      // bundles (a missing file is "none published").
      if (fingerprintsOut !== undefined) {
        writeRecord(fingerprintsOut, f);
        io.stdout(f ? `wrote ${Object.keys(f.servers).length} published fingerprints to ${fingerprintsOut}\n` : `${MANIFEST_KEY} in ${description} records no fingerprints: nothing written (the build renders every server)\n`);
      }
      if (sealedOut !== undefined) {
        writeRecord(sealedOut, sealed);
        io.stdout(sealed ? `wrote ${Object.keys(sealed.months).length} sealed months to ${sealedOut}\n` : `${MANIFEST_KEY} in ${description} records no sealed months: nothing written (the build writes every month's bundles)\n`);
      }
      return 0;
    } finally {
      client.destroy();
    }
  }
  try {
    const summary = await once(publishFiles(dir, { client, bucket: config.bucket, prefix: config.prefix ?? '', description }, { concurrency, all: values.all }));
    io.stdout(
      values.json
        ? `${JSON.stringify({ bucket: description, ...summary, seconds: (Date.now() - t0) / 1000 }, null, 2)}\n`
        : `published ${summary.uploaded} of ${summary.files} files (${summary.bytes} bytes) to ${description} in ${((Date.now() - t0) / 1000).toFixed(1)} s; ${summary.unchanged} unchanged; ${summary.kept} published before and kept${summary.fingerprints === null ? '' : `; ${summary.fingerprints} server fingerprints recorded`}${summary.sealed === null ? '' : `; ${summary.sealed} sealed months recorded`}\n`,
    );
  } finally {
    client.destroy();
  }
});

/** A record as JSON in `file`, or no `file` at all when there is no record. */
function writeRecord(file: string, record: object | null): void {
  if (record) writeFileSync(file, `${JSON.stringify(record)}\n`);
  else rmSync(file, { force: true });
}

/** An expected failure of publish-files.ts, whose messages name it: the command's prefix says it once. */
function once<T>(work: Promise<T>): Promise<T> {
  return expected(work).catch((e: unknown) => {
    throw e instanceof CliError && e.message.startsWith('publish-files: ') ? new CliError(e.message.replace(/^publish-files: /, ''), e.exitCode, { cause: e }) : e;
  });
}
