// The tree's shape, checked (DESIGN "Layout"). Dependencies run one way —
//   src/lib ← src/archive ← {collector, src/loader} ← src/outputs ← src/site, src/charts, pages
// — with no import cycle anywhere (type-only imports count: a cycle of types is still two modules that
// cannot be read apart), and the environment and the working directory are read in one module of src/.
// The graph comes from dependency-cruiser, which resolves our `.ts` specifiers as TypeScript does
// (allowImportingTsExtensions); a hand-written specifier parser would miss re-exports and dynamic imports.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.join(import.meta.dirname, '..');
/** Every folder of TypeScript that runs: a cycle anywhere is a cycle. */
const ROOTS = ['src', 'collector', 'sandbox', 'bench', 'scripts', 'mcp', 'pipeline'];

/** Where each part of the tree may not reach (npm packages and node: builtins are always allowed). */
const LAYERS: { name: string; from: string; notTo: string; why: string }[] = [
  { name: 'lib-is-alone', from: '^src/lib/', notTo: '^(?!src/lib/)(src|collector|sandbox|bench|scripts|mcp|pipeline)/', why: 'src/lib is the pure core everything shares: it imports none of it' },
  { name: 'archive-below-its-readers', from: '^src/archive/', notTo: '^(?!src/(archive|lib)/)(src|collector|sandbox|bench|scripts)/', why: 'the archive layer knows data/ and src/lib only' },
  { name: 'loader-below-outputs-and-site', from: '^src/loader/', notTo: '^(src/(outputs|site|charts|pages|components|layouts)|collector|sandbox|bench|scripts)/', why: 'the loader is called by the site and the outputs, never the reverse' },
  { name: 'outputs-below-site', from: '^src/outputs/', notTo: '^(src/(site|charts|pages|components|layouts)|collector|sandbox|bench|scripts)/', why: 'outputs take their settings as arguments; the site composes them' },
  { name: 'collector-beside-the-site', from: '^collector/', notTo: '^(src/(loader|outputs|site|charts|pages|components|layouts)|sandbox|bench|scripts)/', why: 'the collector reads and writes the archive through src/archive and src/lib only' },
  { name: 'check-reads-published-files', from: '^(collector/check|mcp)/', notTo: '^src/(?!lib/)|^(sandbox|bench|scripts|pipeline)/|^collector/(?!check/|probe-v2/|cli-kit/|http\\.ts$|targets\\.ts$|version\\.ts$)', why: 'the check and the MCP server read a published site, never data/: src/lib, the v2 probe, the CLI kit and the opt-out list only' },
  { name: 'cli-kit-is-alone', from: '^collector/cli-kit/', notTo: '^(?!collector/cli-kit/)(src|collector|sandbox|bench|scripts|mcp|pipeline)/', why: 'the CLI convention every command shares (collector/cli-kit) imports nothing of the tree: node:util and node:fs only' },
  { name: 'nothing-imports-the-pipeline', from: '^(?!pipeline/)', notTo: '^pipeline/', why: 'the pipeline runs the commands as processes, as the workflows do; no command depends on it' },
  { name: 'pipeline-runs-commands', from: '^pipeline/', notTo: '^(src/(?!lib/)|collector/(?!cli-kit/)|sandbox|bench|scripts|mcp)', why: 'the pipeline calls the commands as processes (what it prints is what it runs), so it imports only the CLI kit and src/lib' },
];

let result: ICruiseResult;
beforeAll(async () => {
  const forbidden: IForbiddenRuleType[] = [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    ...LAYERS.map((l) => ({ name: l.name, comment: l.why, severity: 'error' as const, from: { path: l.from }, to: { path: l.notTo } })),
  ];
  const cruised = await cruise(ROOTS.map((r) => path.join(ROOT, r)), {
    baseDir: ROOT,
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    ruleSet: { forbidden },
    validate: true,
  });
  result = cruised.output as ICruiseResult;
}, 120_000);

const violations = (rule: string) => result.summary.violations.filter((v) => v.rule.name === rule).map((v) => (v.cycle ? [v.from, ...v.cycle.map((c) => c.name)].join(' → ') : `${v.from} → ${v.to}`));

describe('the import graph of src/, collector/, sandbox/, bench/, scripts/', () => {
  it('covers the tree (the cruiser found our modules and resolved their imports)', () => {
    const sources = result.modules.map((m) => m.source);
    for (const m of ['src/lib/index.ts', 'src/archive/layout.ts', 'src/loader/load-archive.ts', 'src/outputs/bundles.ts', 'src/site/settings.ts', 'collector/run.ts']) expect(sources).toContain(m);
    const run = result.modules.find((m) => m.source === 'collector/run.ts')!;
    expect(run.dependencies.map((d) => d.resolved)).toContain('collector/store.ts');
  });

  it('has no import cycle', () => {
    expect(violations('no-circular')).toEqual([]);
  });

  it.each(LAYERS.map((l) => [l.name, l.why] as const))('%s: %s', (name) => {
    expect(violations(name)).toEqual([]);
  });
});

describe('src/ outside src/site/settings.ts', () => {
  const files = (readdirSync(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((e) => e.isFile() && /\.(ts|astro|mjs)$/.test(e.name))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)))
    .filter((f) => f !== path.join('src', 'site', 'settings.ts'));

  it('reads no environment variable and no working directory', () => {
    const readers = files.filter((f) => /process\.env|process\.cwd\(|path\.resolve\(\s*['"`]/.test(readFileSync(path.join(ROOT, f), 'utf8')));
    expect(readers).toEqual([]);
  });
});
