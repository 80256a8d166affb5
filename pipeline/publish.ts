// publish: after the build, before the site is uploaded.
//   1. the file host's folder to its bucket (npm run publish-files), when MCP_SCHEMA_FILES_STORE is set:
//      a page never links a file the file host does not have yet;
//   2. each closed month once, as its monthly part: on GitHub as the assets of the release
//      data-<YYYY-MM> (never uploaded again, replaced or deleted; a draft is an upload that did not
//      finish and is redone), elsewhere into PARTS_DIR/data-<YYYY-MM>/, written once;
//   3. the site's manifest of those parts (<site>/data/parts/).
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CliError, EXIT } from '../collector/cli-kit/index.ts';
import { envOf, npmRun, run, type Ctx } from './exec.ts';
import { annotate, repository } from './github.ts';
import { filesDir, partsDir, siteDir } from './steps.ts';

const dataArgs = (ctx: Ctx) => ['--data', ctx.data];
const bucket = (ctx: Ctx) => envOf(ctx, 'MCP_SCHEMA_STORE') !== '';
/** Releases on GitHub when the runner says which repository (GITHUB_REPOSITORY); local folders otherwise. */
const onGitHub = (ctx: Ctx) => envOf(ctx, 'GITHUB_REPOSITORY') !== '';

export async function publish(ctx: Ctx): Promise<void> {
  if (envOf(ctx, 'MCP_SCHEMA_FILES_STORE')) await npmRun(ctx, 'publish-files', ['--dir', filesDir(ctx)]);
  else ctx.log('publish: no file host (MCP_SCHEMA_FILES_STORE unset): every file is in the site');
  await publishMonths(ctx);
  await partsManifest(ctx);
}

/** The closed months, as npm run months -- closed lists them (a failure to list fails the step). */
async function closedMonths(ctx: Ctx): Promise<string[]> {
  const { stdout } = await npmRun(ctx, 'months', ['closed', ...dataArgs(ctx)], { capture: true });
  const months = stdout.split('\n').map((l) => l.trim()).filter(Boolean);
  const bad = months.find((m) => !/^\d{4}-\d{2}$/.test(m));
  if (bad !== undefined) throw new CliError(`publish: npm run months -- closed printed ${JSON.stringify(bad.slice(0, 40))}, not a month`, EXIT.failed);
  return months;
}

/** Write month's part into dir and check it against the archive's chain. */
async function writePart(ctx: Ctx, month: string, dir: string): Promise<void> {
  // With a bucket the month's days are in the store: bring them (once a month, one month).
  if (bucket(ctx)) await npmRun(ctx, 'store', ['pull', '--from', `${month}-01`, '--to', `${month}-31`, ...dataArgs(ctx)]);
  await npmRun(ctx, 'months', ['write', ...dataArgs(ctx), '--month', month, '--out', dir]);
  await npmRun(ctx, 'months', ['verify', dir, '--chain', ctx.data]);
}

export async function publishMonths(ctx: Ctx): Promise<void> {
  mkdirSync(partsDir(ctx), { recursive: true });
  const months = await closedMonths(ctx);
  if (months.length === 0) return ctx.log('publish: no closed month');
  if (!onGitHub(ctx)) {
    for (const month of months) {
      const dir = path.join(partsDir(ctx), `data-${month}`);
      if (existsSync(dir) && readdirSync(dir).length > 0) ctx.log(`publish: data-${month} is written: kept as it is`);
      else await writePart(ctx, month, dir);
    }
    return;
  }
  repository(ctx);
  const { stdout } = await run(ctx, 'git', ['rev-parse', 'HEAD'], { capture: true });
  const target = stdout.trim();
  for (const month of months) {
    const tag = `data-${month}`;
    const dir = path.join(partsDir(ctx), month);
    const view = await run(ctx, 'gh', ['release', 'view', tag, '--json', 'isDraft', '--jq', '.isDraft'], { capture: true, allowFailure: true });
    if (view.code === 0) {
      if (view.stdout.trim() === 'false') {
        ctx.log(`publish: ${tag} is published: not uploaded again`);
        await run(ctx, 'gh', ['release', 'download', tag, '--pattern', `mcp-schema-${month}.json`, '--dir', dir]);
        continue;
      }
      ctx.log(`publish: ${tag} is a draft (an upload that did not finish): redone`);
      await run(ctx, 'gh', ['release', 'delete', tag, '--yes']);
    }
    const tagged = await run(ctx, 'git', ['ls-remote', '--exit-code', '--tags', 'origin', `refs/tags/${tag}`], { capture: true, allowFailure: true });
    if (tagged.code === 0) {
      annotate('error', `tag ${tag} exists without a published release: not touched, look at it by hand`);
      throw new CliError(`publish: tag ${tag} exists without a published release`, EXIT.failed);
    }
    await writePart(ctx, month, dir);
    const assets = readdirSync(dir).sort().map((f) => path.join(dir, f));
    await run(ctx, 'gh', ['release', 'create', tag, ...assets, '--draft', '--target', target, '--title', `mcp-schema data ${month}`, '--notes', `The archive's record for ${month} (CC BY 4.0): day files, run rows, rosters, the hash chain up to the month and every raw object its rows name. Published once, never replaced. Checksums: SHA256SUMS; check it against the chain with npm run months -- verify <folder>.`]);
    await run(ctx, 'gh', ['release', 'edit', tag, '--draft=false']);
  }
}

/** The site's manifest of the parts: their release URLs (GitHub) or their folders (elsewhere). */
export async function partsManifest(ctx: Ctx): Promise<void> {
  const repo = envOf(ctx, 'GITHUB_REPOSITORY');
  const releaseUrl = envOf(ctx, 'PARTS_RELEASE_URL') || (repo ? `https://github.com/${repo}/releases/download/{tag}/{name}` : `${pathToFileURL(partsDir(ctx)).href}/{tag}/{name}`);
  const site = (envOf(ctx, 'MCP_SCHEMA_SITE_URL') || 'https://mcp-schema.example.org').replace(/\/+$/, '');
  const base = `/${(envOf(ctx, 'MCP_SCHEMA_BASE') || '/').replace(/^\/+|\/+$/g, '')}/`.replace('//', '/');
  const siteUrl = envOf(ctx, 'PARTS_SITE_URL') || `${site}${base}data/`;
  mkdirSync(partsDir(ctx), { recursive: true });
  await npmRun(ctx, 'months', ['manifest', '--parts', partsDir(ctx), '--out', path.join(siteDir(ctx), 'data', 'parts'), '--release-url', releaseUrl, '--site-url', siteUrl, ...dataArgs(ctx)]);
}
