// The site's bytes do not depend on the number of loader shards (src/loader/shards.ts): the fixture
// archive built with one shard (what its size asks) and with three (MCP_SCHEMA_SHARDS=3, every page
// and per-server file reading one shard's views at a time) gives the same files, byte for byte. Once
// as the site tests build it, once with the file host, server pages on it (fingerprints written) and an
// object store's URL (the bodies kept on the site gathered shard by shard).
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtSite, type BuiltSite } from './shared.ts';

async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { withFileTypes: true, recursive: true }))
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

/** Files only one side has, and files whose bytes differ (the first few of each). */
async function differences(x: string, y: string): Promise<{ files: number; onlyOne: string[]; differ: string[] }> {
  const [fx, fy] = [await filesUnder(x), await filesUnder(y)];
  const inY = new Set(fy);
  const inX = new Set(fx);
  const onlyOne = [...fx.filter((f) => !inY.has(f)), ...fy.filter((f) => !inX.has(f))];
  const differ = fx.filter((f) => inY.has(f) && !readFileSync(path.join(x, f)).equals(readFileSync(path.join(y, f))));
  return { files: fx.length, onlyOne: onlyOne.slice(0, 20), differ: differ.slice(0, 20) };
}

const FILES_URL = 'http://files.invalid/mcp-schema/';
const OBJECTS_URL = 'http://objects.invalid/objects/';

describe('the site with one loader shard and with three', { timeout: 1_800_000 }, () => {
  let one: BuiltSite;
  let three: BuiltSite;
  beforeAll(async () => {
    one = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1' });
    three = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1', MCP_SCHEMA_SHARDS: '3' });
  }, 1_800_000);

  it('the three-shard build derived in three shards, the other in one', () => {
    // The post-build step says how the archive was derived (src/site/post-build.ts).
    expect(three.log).toContain('the archive derived in 3 shards');
    expect(one.log).toContain('the archive derived in one shard');
  });

  it('writes the same files with the same bytes', async () => {
    const d = await differences(one.out, three.out);
    expect(d.files).toBeGreaterThan(100);
    expect(d.onlyOne).toEqual([]);
    expect(d.differ).toEqual([]);
  });

  it('writes the same file host, fingerprints and pages with server pages there and an object store', async () => {
    const env = { MCP_SCHEMA_SIMULATED: '1', MCP_SCHEMA_FILES_URL: FILES_URL, MCP_SCHEMA_SERVER_PAGES: 'all', MCP_SCHEMA_OBJECTS_URL: OBJECTS_URL };
    const [a, b] = [await builtSite('fixture', env), await builtSite('fixture', { ...env, MCP_SCHEMA_SHARDS: '3' })];
    for (const [x, y] of [[a.out, b.out], [a.files!, b.files!]] as const) {
      const d = await differences(x, y);
      expect(d.files).toBeGreaterThan(50);
      expect(d.onlyOne).toEqual([]);
      expect(d.differ).toEqual([]);
    }
    // The fingerprints (src/site/changed-servers.ts) are among the file host's files compared above.
    expect(await filesUnder(a.files!)).toContain('.server-fingerprints.json');
  }, 1_800_000);
});
