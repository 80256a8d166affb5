// npm run publish-files -- --dir <folder> [--concurrency <n>] [--all] [--json]
// npm run publish-files -- --fingerprints-out <file>
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readStoreConfig, STORE_ENV } from '../../src/archive/store-config.ts';
import { s3Client } from '../../src/archive/s3-store.ts';
import { CliError, EXIT, isCliError } from '../cli-error.ts';
import { MANIFEST_KEY, publishedFingerprints, publishFiles } from './publish-files.ts';

export const FILES_STORE = 'MCP_SCHEMA_FILES_STORE';

const HELP = `usage: npm run publish-files -- --dir <folder> [--concurrency <n>] [--all] [--json]
       npm run publish-files -- --fingerprints-out <file>

Upload the file host's folder — what a site build with MCP_SCHEMA_FILES_DIR wrote there: the
descriptors, tools and set files, name indexes, badges, feeds, JSON Patches, raw bodies and data
bundles (src/lib/file-host.ts) — to the public bucket MCP_SCHEMA_FILES_URL serves, under the same
paths. Only files that changed since the last upload are sent (the bucket keeps a manifest,
${MANIFEST_KEY}, of every path and its SHA-256, replaced after every upload succeeded); nothing is
ever deleted, so a URL once published keeps answering. Each file gets its Content-Type, its MD5 and a
Cache-Control (raw bodies: a year, immutable; the rest: five minutes).

  ${FILES_STORE}=s3://<bucket>/<prefix>   the bucket and the folder inside it
  ${STORE_ENV.endpoint}, ${STORE_ENV.region}, ${STORE_ENV.accessKeyId}, ${STORE_ENV.secretAccessKey}
                                       as for the archive's store (the same account)

  --dir <folder>      the file host's folder (MCP_SCHEMA_FILES_DIR of the build); with server pages
                      there (MCP_SCHEMA_SERVER_PAGES), the build's per-server fingerprints in it
                      are recorded in the manifest, after every file is up
  --fingerprints-out <file>
                      upload nothing: write the fingerprints the manifest records (or, when it has
                      none, no file) to <file>, for the next build's MCP_SCHEMA_PUBLISHED_FINGERPRINTS
  --concurrency <n>   uploads at once (default 16)
  --all               upload every file, whatever the manifest says (a bucket emptied by hand)
  --json              print the summary as JSON
  -h, --help          this text

Exits 1 when an upload failed (the manifest is then left as it was: the next run sends the rest),
2 on bad usage or no bucket configured.`;

try {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string' },
      'fingerprints-out': { type: 'string' },
      concurrency: { type: 'string', default: '16' },
      all: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  const fingerprintsOut = values['fingerprints-out'];
  if (fingerprintsOut !== undefined && values.dir) throw new CliError('--fingerprints-out reads the manifest and uploads nothing: give it without --dir', EXIT.usage);
  if (!values.dir && fingerprintsOut === undefined) throw new CliError(`--dir is required: the folder the build wrote with MCP_SCHEMA_FILES_DIR\n${HELP}`, EXIT.usage);
  if (values.dir && (!existsSync(values.dir) || !statSync(values.dir).isDirectory())) throw new CliError(`no folder at --dir ${values.dir}`, EXIT.usage);
  if (fingerprintsOut === '') throw new CliError('--fingerprints-out needs a file name', EXIT.usage);
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new CliError(`--concurrency must be a whole number from 1 to 64, not ${JSON.stringify(values.concurrency)}`, EXIT.usage);
  let config;
  try {
    config = readStoreConfig(process.env, FILES_STORE);
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage);
  }
  if (!config) throw new CliError(`${FILES_STORE} is not set: name the file host's bucket (s3://<bucket>/<prefix>; see --help)`, EXIT.usage);
  const client = s3Client(config);
  const description = `s3://${config.bucket}/${config.prefix} at ${config.endpoint}`;
  const t0 = Date.now();
  if (fingerprintsOut !== undefined) {
    const f = await publishedFingerprints({ client, bucket: config.bucket, prefix: config.prefix ?? '', description });
    client.destroy();
    // No file when nothing was recorded: the build then renders every server (a missing file is "none published").
    if (f) writeFileSync(fingerprintsOut, `${JSON.stringify(f)}\n`);
    else rmSync(fingerprintsOut, { force: true });
    process.stdout.write(f ? `wrote ${Object.keys(f.servers).length} published fingerprints to ${fingerprintsOut}\n` : `${MANIFEST_KEY} in ${description} records no fingerprints: nothing written (the build renders every server)\n`);
    process.exit(0);
  }
  const summary = await publishFiles(values.dir!, { client, bucket: config.bucket, prefix: config.prefix ?? '', description }, { concurrency, all: values.all });
  client.destroy();
  process.stdout.write(
    values.json
      ? `${JSON.stringify({ bucket: description, ...summary, seconds: (Date.now() - t0) / 1000 }, null, 2)}\n`
      : `published ${summary.uploaded} of ${summary.files} files (${summary.bytes} bytes) to ${description} in ${((Date.now() - t0) / 1000).toFixed(1)} s; ${summary.unchanged} unchanged; ${summary.kept} published before and kept${summary.fingerprints === null ? '' : `; ${summary.fingerprints} server fingerprints recorded`}\n`,
  );
} catch (e) {
  process.stderr.write(`publish-files: ${(e as Error).message.replace(/^publish-files: /, '')}\n`);
  process.exit(isCliError(e) ? e.exitCode : 1);
}
