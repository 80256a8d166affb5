// The one build entry (src/site/build.ts): npm run build, the demo and bench:build all build the site
// through its steps, so every build ends the same way (the Astro build, then the search step). The
// steps themselves run in every site build of the suite (test/site/shared.ts runs npm run build); here
// the entry's own rules, with real child processes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSteps, runBuild, type BuildStep } from '../../src/site/build.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** A step that is a real Node process running `code`. */
const nodeStep = (name: BuildStep['name'], code: string, env: Record<string, string> = {}): BuildStep => ({ name, command: process.execPath, args: ['-e', code], env });

describe('src/site/build.ts', () => {
  it('is what npm run build runs', () => {
    expect((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.build).toBe('tsx src/site/build.ts');
  });

  it('builds with Astro (the search left to the next step), then indexes in the search step, both under this Node', () => {
    const [astro, search, ...rest] = buildSteps();
    expect(rest).toEqual([]);
    expect(astro!.name).toBe('astro');
    expect(astro!.command).toBe(process.execPath);
    expect(astro!.args.at(-1)).toBe('build');
    expect(existsSync(astro!.args.at(-2)!)).toBe(true);
    expect(astro!.args.at(-2)).toContain(path.join('node_modules', 'astro'));
    expect(astro!.env).toEqual({ MCP_SCHEMA_SEARCH: 'after' });
    expect(search!.name).toBe('search');
    expect(search!.args.at(-1)).toBe(path.join(ROOT, 'src', 'site', 'search-step.ts'));
    expect(existsSync(search!.args[0]!)).toBe(true);
    // Node flags go to the Astro step only.
    const traced = buildSteps({ astroNodeArgs: ['--trace-gc'] });
    expect(traced[0]!.args).toEqual(['--trace-gc', ...astro!.args]);
    expect(traced[1]!.args).toEqual(search!.args);
  });

  it('runs the steps in order, each with its own variables over the caller\'s, and stops at the first that fails', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-schema-build-entry-'));
    const mark = (file: string) => `require('node:fs').appendFileSync(${JSON.stringify(path.join(dir, file))}, (process.env.MCP_SCHEMA_SEARCH ?? '-') + ' ' + process.env.CALLER + '\\n')`;
    const out: string[] = [];
    const children: (number | null)[] = [];
    const ok = await runBuild({ ...process.env, CALLER: 'c' }, { stdio: 'pipe', onOutput: (b) => out.push(b.toString()), onChild: (c) => children.push(c?.pid ?? null) }, [
      nodeStep('astro', `${mark('log')}; console.log('one')`, { MCP_SCHEMA_SEARCH: 'after' }),
      nodeStep('search', `${mark('log')}; console.error('two')`),
    ]);
    expect(ok).toEqual({ ok: true, code: 0, step: 'search' });
    expect(readFileSync(path.join(dir, 'log'), 'utf8')).toBe('after c\n- c\n');
    expect(out.join('')).toBe('one\ntwo\n');
    expect(children.map((c) => c === null)).toEqual([false, true, false, true]);
    // Near miss: the first step fails, so the second never runs.
    const failed = await runBuild(process.env, { stdio: 'pipe' }, [nodeStep('astro', 'process.exit(3)'), nodeStep('search', mark('never'))]);
    expect(failed).toEqual({ ok: false, code: 3, step: 'astro' });
    expect(existsSync(path.join(dir, 'never'))).toBe(false);
  });

  it('refuses arguments, which the two steps could not both follow, before building anything', () => {
    const tsx = buildSteps()[1]!.args[0]!;
    const r = spawnSync(process.execPath, [tsx, path.join(ROOT, 'src', 'site', 'build.ts'), '--outDir', 'elsewhere'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, MCP_SCHEMA_OUT: path.join(os.tmpdir(), 'mcp-schema-never-built') } });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('npm run build takes no arguments');
    expect(r.stderr).toContain('MCP_SCHEMA_OUT');
    expect(existsSync(path.join(os.tmpdir(), 'mcp-schema-never-built'))).toBe(false);
  });

  it('is how the demo and bench:build build (no bare astro build that indexes in-process)', () => {
    const demo = read('sandbox/demo.ts');
    expect(demo).toContain('runBuild(env');
    expect(demo).not.toMatch(/\[astro, 'build'/);
    const bench = read('bench/build.ts');
    expect(bench).toContain('buildSteps(');
    expect(bench).not.toMatch(/\['astro', 'build'\]/);
    // Every other build in the tree goes through npm run build.
    const grep = spawnSync('git', ['grep', '-l', '--untracked', '-E', "'astro', 'build'|astro build --outDir", '--', 'sandbox', 'bench', 'scripts', 'test', 'pipeline', 'src', ':!test/site/build-entry.test.ts'], { cwd: ROOT, encoding: 'utf8' });
    expect(grep.status, grep.stderr).toBe(1); // git grep: 1 is "nothing found"
    // Near miss: the same search finds this file's own examples.
    expect(spawnSync('git', ['grep', '-l', '--untracked', '-E', "'astro', 'build'", '--', 'test/site/build-entry.test.ts'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim()).toBe('test/site/build-entry.test.ts');
  });
});
