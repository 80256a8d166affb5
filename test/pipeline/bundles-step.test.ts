// The bundles step (deploy.yml's bundles job), with a stand-in for npm on PATH: the file host's
// both-or-neither refused before anything runs, nothing run without a file host, and with one the
// sealed-months record read, the month bundles written into a folder of its own (emptied first, so
// nothing an earlier run left is uploaded as today's) and that folder uploaded, in that order.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Ctx } from '../../pipeline/exec.ts';
import { bundles, bundlesDir } from '../../pipeline/steps.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * A stand-in npm that logs its arguments; for `npm run bundles` also the variables it was given and
 * what its folder held when it started, and it writes a month's bundle there as the script would.
 */
function sandbox(env: NodeJS.ProcessEnv = {}) {
  const bin = mkdtempSync(path.join(tmpdir(), 'mcp-schema-bundles-step-'));
  dirs.push(bin);
  const log = path.join(bin, 'calls.log');
  writeFileSync(
    path.join(bin, 'npm'),
    `#!/bin/bash
echo "npm $*" >> "${log}"
if [ "$2" = bundles ]; then
  echo "MCP_SCHEMA_FILES_DIR=$MCP_SCHEMA_FILES_DIR MCP_SCHEMA_PUBLISHED_BUNDLES=$MCP_SCHEMA_PUBLISHED_BUNDLES MCP_SCHEMA_RELEASE=$MCP_SCHEMA_RELEASE MCP_SCHEMA_DATA=$MCP_SCHEMA_DATA" >> "${log}"
  echo "held: $(ls -A "$MCP_SCHEMA_FILES_DIR" | tr '\\n' ' ')" >> "${log}"
  mkdir -p "$MCP_SCHEMA_FILES_DIR/data" && touch "$MCP_SCHEMA_FILES_DIR/data/observations-2026-05.jsonl.gz"
fi
`,
    { mode: 0o755 },
  );
  const lines: string[] = [];
  const ctx: Ctx = { env: { PATH: `${bin}:${process.env.PATH}`, HOME: bin, RUNNER_TEMP: path.join(bin, 'temp'), ...env }, cwd: ROOT, data: 'data', collectArgs: [], step: 'bundles', log: (l) => lines.push(l) };
  return { bin, ctx, lines, calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) };
}

describe('bundles', () => {
  it('refuses a file host URL without its bucket, or the reverse, before anything runs (exit 2)', async () => {
    for (const [url, store] of [['https://f.example/', ''], ['', 's3://b/p']]) {
      const s = sandbox({ MCP_SCHEMA_FILES_URL: url, MCP_SCHEMA_FILES_STORE: store });
      await expect(bundles(s.ctx)).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/^bundles: MCP_SCHEMA_FILES_URL and MCP_SCHEMA_FILES_STORE go together/) });
      expect(s.calls()).toEqual([]);
    }
  });

  it('without a file host runs nothing: the site build writes the bundles', async () => {
    const s = sandbox();
    await bundles(s.ctx);
    expect(s.calls()).toEqual([]);
    expect(s.lines).toEqual(['bundles: no file host (MCP_SCHEMA_FILES_URL unset): the site build writes the bundles']);
  });

  it('with a file host: the sealed-months record read, the bundles written into an emptied folder of their own, then that folder uploaded', async () => {
    const s = sandbox({ MCP_SCHEMA_FILES_URL: 'https://f.example/', MCP_SCHEMA_FILES_STORE: 's3://b/p' });
    const dir = bundlesDir(s.ctx);
    expect(dir).toBe(path.join(s.bin, 'temp', 'bundles'));
    // What an earlier run left: never uploaded as today's.
    mkdirSync(path.join(dir, 'data'), { recursive: true });
    writeFileSync(path.join(dir, 'data', 'observations-2026-04.jsonl.gz'), 'stale');
    await bundles(s.ctx);
    const sealed = path.join(ROOT, '.cache', 'published-bundles.json');
    expect(s.calls()).toEqual([
      `npm run publish-files -- --sealed-out ${sealed}`,
      'npm run bundles',
      `MCP_SCHEMA_FILES_DIR=${dir} MCP_SCHEMA_PUBLISHED_BUNDLES=${sealed} MCP_SCHEMA_RELEASE=parts MCP_SCHEMA_DATA=`,
      'held: ',
      `npm run publish-files -- --dir ${dir}`,
    ]);
    expect(readdirSync(path.join(dir, 'data'))).toEqual(['observations-2026-05.jsonl.gz']);
    // The build's folder is another: the two jobs' files never mix.
    expect(dir).not.toBe(path.join(s.bin, 'temp', 'files'));
  });

  it('hands another archive to the bundles through MCP_SCHEMA_DATA, and the record path MCP_SCHEMA_PUBLISHED_BUNDLES names', async () => {
    const s = sandbox({ MCP_SCHEMA_FILES_URL: 'https://f.example/', MCP_SCHEMA_FILES_STORE: 's3://b/p', MCP_SCHEMA_PUBLISHED_BUNDLES: '/tmp/sealed.json' });
    await bundles({ ...s.ctx, data: '/tmp/elsewhere' });
    expect(s.calls()[0]).toBe('npm run publish-files -- --sealed-out /tmp/sealed.json');
    expect(s.calls()[2]).toBe(`MCP_SCHEMA_FILES_DIR=${bundlesDir(s.ctx)} MCP_SCHEMA_PUBLISHED_BUNDLES=/tmp/sealed.json MCP_SCHEMA_RELEASE=parts MCP_SCHEMA_DATA=/tmp/elsewhere`);
  });

  it('a failed command stops the step, named: nothing is uploaded after a failed write', async () => {
    const s = sandbox({ MCP_SCHEMA_FILES_URL: 'https://f.example/', MCP_SCHEMA_FILES_STORE: 's3://b/p' });
    writeFileSync(path.join(s.bin, 'npm'), `#!/bin/bash\necho "npm $*" >> "${path.join(s.bin, 'calls.log')}"\n[ "$2" = bundles ] && exit 3\nexit 0\n`, { mode: 0o755 });
    await expect(bundles(s.ctx)).rejects.toMatchObject({ exitCode: 1, message: 'bundles: npm run bundles exited with 3' });
    expect(s.calls().map((c) => c.split(' ')[2])).toEqual(['publish-files', 'bundles']);
  });
});
