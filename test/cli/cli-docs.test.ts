// docs/CLI.md is every command's --help, regenerated here and compared; each command's --help exits 0
// and names its exit codes, and each refuses an option it does not take (exit 2, one line). Two are
// also run as the processes npm runs, so the entry wiring (main(import.meta.url, …)) is covered too.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execute } from '../../collector/cli-kit/index.ts';
import { CLI_DOCS, CLIS, cliDocs, commandOf, helpOf } from '../../scripts/cli-docs.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');

describe('docs/CLI.md', () => {
  it('is what npm run cli-docs writes from the commands as they are', async () => {
    const expected = await cliDocs();
    // On a mismatch, write the regenerated page beside it (the goldens' convention) and fail.
    if (readFileSync(CLI_DOCS, 'utf8') !== expected) {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(CLI_DOCS.replace(/\.md$/, '-changed.md'), expected);
    }
    expect(readFileSync(CLI_DOCS, 'utf8')).toBe(expected);
  }, 60_000);

  it('lists every npm script that runs a command line (benchmarks and the build tools aside)', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    // build: the site build takes no options (its settings are environment variables, src/site/settings.ts).
    const tools = new Set(['cli-docs', 'screenshot', 'build']);
    const commands = Object.entries(pkg.scripts).filter(([name, cmd]) => /^tsx /.test(cmd) && !name.startsWith('bench:') && !tools.has(name)).map(([name]) => name);
    expect(commands.sort()).toEqual(CLIS.map((c) => c.script).sort());
    for (const c of CLIS) expect(pkg.scripts[c.script], c.script).toBe(`tsx ${path.relative(ROOT, path.join(ROOT, 'scripts', c.module)).split(path.sep).join('/')}`);
  });
});

describe.each(CLIS)('npm run $script', ({ script, module }) => {
  it('--help exits 0 and ends with its exit codes, 70 among them', async () => {
    const help = await helpOf(await commandOf(module, script));
    expect(help).toMatch(/\bexit codes: 0 /);
    expect(help).toMatch(/^ +70 a bug of ours/m);
    expect(help).not.toMatch(/\bissue \d+|#\d{2,}\b/);
  });

  it('refuses an option it does not take: exit 2, one line naming the command', async () => {
    const c = await commandOf(module, script);
    let err = '';
    const code = await execute(c, () => 99, ['--no-such-option'], { stdout: () => {}, stderr: (t) => void (err += t), env: {} });
    expect(code).toBe(2);
    expect(err).toBe(`${c.name}: Unknown option '--no-such-option' (see --help)\n`);
  });
});

describe('the processes npm runs', () => {
  const run = (file: string, args: string[], env: NodeJS.ProcessEnv = {}) => spawnSync(process.execPath, ['--import', 'tsx', file, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } });

  it('compact: --help on stdout, exit 0; a bad value one line, exit 2', () => {
    const help = run('collector/ops/compact-cli.ts', ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run compact -- /);
    const bad = run('collector/ops/compact-cli.ts', ['stray']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe('compact: takes no arguments, got "stray" (see --help)\n');
  }, 30_000);

  it('the check through its bin: --help exit 0, a bad value exit 2 with one line', () => {
    const help = run('bin/mcp-schema-check.mjs', ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^mcp-schema check — /);
    const bad = run('bin/mcp-schema-check.mjs', ['x', '--timeout', '5']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe('check: --timeout must be an integer from 100 to 120000, got "5"\n');
  }, 30_000);
});
