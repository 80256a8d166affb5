// npm run bundles: the month bundles alone, in a job of their own (src/site/bundles-step.ts says what and why).
import { CliError, command, EXIT, exitCodes, main } from '../collector/cli-kit/index.ts';
import { SITE_MONTHS } from '../src/outputs/catalogue.ts';
import { bundlesStep, BundlesSettingsError } from '../src/site/bundles-step.ts';

export const HELP = `usage: npm run bundles

Write the site's month bundles to the file host's folder, without building the site: each of the
recent ${SITE_MONTHS} months whose files the sealed-months record does not hold under the month's
current key (the open month each day; a closed month once), and the record of every month written or
found. The site build then takes those months from the record (npm run publish-files uploads the
folder first). Read from the environment, as the site build reads it:

  MCP_SCHEMA_FILES_DIR, MCP_SCHEMA_FILES_URL   the file host's folder (empty or absent) and its URL
  MCP_SCHEMA_RELEASE=parts                     the recent months only (required)
  MCP_SCHEMA_PUBLISHED_BUNDLES                 the record publish-files --sealed-out wrote (no file: none)
  MCP_SCHEMA_DATA, MCP_SCHEMA_STORE…           the archive, and its object store (days are fetched one at a time)
  MCP_SCHEMA_SITE_URL, MCP_SCHEMA_SIMULATED    as for the site build (the files' URLs and names)
  MCP_SCHEMA_CACHE                             scratch for a day's members (removed as they are copied)

${exitCodes({ 0: 'written', 1: 'a day or the record could not be read, or a write failed', 2: 'no file host, or not MCP_SCHEMA_RELEASE=parts' })}`;

export const COMMAND = command({ name: 'bundles', help: HELP, options: {} });

main(import.meta.url, COMMAND, async (_args, io) => {
  try {
    io.stdout(`bundles: ${await bundlesStep()}\n`);
  } catch (e) {
    if (e instanceof BundlesSettingsError) throw new CliError(e.message, EXIT.usage, { cause: e });
    throw e;
  }
});
