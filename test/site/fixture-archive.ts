// Builds the site's fixture archive by running the real collector against the local world over
// simulated days — never hand-written rows. Used by test/site/global-setup.ts (CI regenerates it)
// and runnable by hand: `npx tsx test/site/fixture-archive.ts <dir> [days] [size]`.
//
// The registry served to the collector lists the sandbox world's entries plus two hostile servers of
// our own on a loopback MCP host: one whose tool descriptions and schemas carry markup and script
// (the site must show them as text and run nothing), which also drifts on day 3 so a diff shows the
// same text; and one with a very long description (the site must cut it and link the raw body).
import { execFile } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startWorld } from '../../sandbox/fleet.ts';
import { startMcpHost, type ToolDef } from '../../sandbox/mcp-host.ts';
import { OFFICIAL_META, startRegistry, type RegistryEntry } from '../../sandbox/registry-server.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const HOSTILE_NAME = 'io.github.evil-corp/<script>alert(1)</script>';
export const HOSTILE_MARKUP = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
export const LONG_NAME = 'io.github.verbose/long-descriptions';

export interface FixtureOptions {
  days?: number;
  size?: number;
  seed?: string;
}

export interface FixtureSummary {
  dir: string;
  days: number;
  runs: number;
}

export async function makeFixtureArchive(dir: string, opts: FixtureOptions = {}): Promise<FixtureSummary> {
  const days = opts.days ?? 12;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const world = await startWorld({ seed: opts.seed ?? 'site-fixture', size: opts.size ?? 50, day: 0 });
  const host = await startMcpHost({ host: '127.0.0.1' });
  let day = 0;
  const hostileTools = (): ToolDef[] => [
    {
      name: 'render_page',
      description: `Renders a page. ${HOSTILE_MARKUP}`,
      inputSchema: {
        type: 'object',
        properties: {
          url: { type: 'string', description: `javascript:alert(1) ${HOSTILE_MARKUP}` },
          ...(day >= 3 ? { mode: { type: 'string', enum: ['<b>bold</b>', 'plain'], description: '</pre><script>window.__pwned = 3</script>' } } : {}),
        },
        required: day >= 3 ? ['url', 'mode'] : ['url'],
      },
      annotations: { readOnlyHint: day < 3 },
    },
  ];
  const longTools: ToolDef[] = [
    { name: 'essay', description: `${'A very long description. '.repeat(400)}END`, inputSchema: { type: 'object', properties: {} } },
  ];
  const hostileUrl = host.mount('/evil/mcp', { kind: 'mcp', tools: hostileTools, json: false });
  const longUrl = host.mount('/long/mcp', { kind: 'mcp', tools: longTools, json: true });
  const ours = (): RegistryEntry[] => [
    entry(HOSTILE_NAME, hostileUrl, `Hostile <b>description</b> ${HOSTILE_MARKUP}`, 'javascript:alert(1)'),
    entry(LONG_NAME, longUrl, 'Long descriptions', 'https://example.com/verbose'),
  ];
  const registry = await startRegistry({ entries: () => [...world.world.registryEntries(world.day, world.hostports), ...ours()] });
  let runs = 0;
  try {
    for (day = 0; day < days; day++) {
      world.setDay(day);
      const now = `${world.world.date(day)}T03:15:00Z`;
      await run(process.execPath, ['--import', 'tsx', 'collector/cli.ts', '--registry', registry.url, '--data', dir, '--now', now, '--allow-private', '--timeout', '3000', '--json'], {
        cwd: ROOT,
        maxBuffer: 16 << 20,
      });
      runs++;
    }
  } finally {
    await registry.close();
    await host.close();
    await world.close();
  }
  return { dir, days, runs };
}

function entry(name: string, url: string, description: string, websiteUrl: string): RegistryEntry {
  return {
    server: { name, version: '1.0.0', description, websiteUrl, remotes: [{ type: 'streamable-http', url }] },
    _meta: { [OFFICIAL_META]: { status: 'active', isLatest: true, publishedAt: '2025-12-01T00:00:00Z', updatedAt: '2025-12-01T00:00:00Z' } },
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir = '.tmp/site-fixture', days, size] = process.argv.slice(2);
  const t0 = Date.now();
  makeFixtureArchive(path.resolve(dir), { days: days ? Number(days) : undefined, size: size ? Number(size) : undefined }).then(
    (s) => console.log(`fixture archive: ${s.runs} runs into ${s.dir} in ${Date.now() - t0} ms`),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
