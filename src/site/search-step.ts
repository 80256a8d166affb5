// `npm run build`'s last step (src/site/build.ts), after `astro build` has exited (MCP_SCHEMA_SEARCH=after): the Pagefind
// index over the server pages and the site's size check (finish-site.ts). In its own process
// the indexer's memory (≈ 53 kB a page, a child process) is not added to the Astro build's, which
// holds the loaded archive until it exits: the build's peak is the larger of the two.
import { existsSync } from 'node:fs';
import { finishSite } from './finish-site.ts';
import { outDir } from './settings.ts';

const out = outDir();
if (!existsSync(out)) {
  process.stderr.write(`search-step: ${out} does not exist: run astro build first (npm run build runs both)\n`);
  process.exit(2);
}
const t0 = Date.now();
process.stdout.write(`[mcp-schema-archive-outputs] ${await finishSite(out)} in ${Date.now() - t0} ms\n`);
