// The tree's shape, checked (DESIGN "Layout"). Dependencies run one way —
//   src/lib ← src/archive ← {collector, src/loader} ← src/outputs ← src/site, pages ← src/editions
//   src/lib ← src/charts ← src/outputs, src/site, pages
// — with no import cycle anywhere (type-only imports count: a cycle of types is still two modules that
// cannot be read apart), and the environment and the working directory are read in one module of src/.
// The graph comes from dependency-cruiser, which resolves our `.ts` specifiers as TypeScript does
// (allowImportingTsExtensions); a hand-written specifier parser would miss re-exports and dynamic imports.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
  { name: 'outputs-below-site', from: '^src/outputs/', notTo: '^(src/(site|pages|components|layouts|editions)|collector|sandbox|bench|scripts)/', why: 'outputs take their settings as arguments; the site composes them' },
  { name: 'charts-draw-only', from: '^src/charts/', notTo: '^(?!src/(charts|lib)/)(src|collector|sandbox|bench|scripts|mcp)/', why: 'a chart takes data and returns SVG (src/lib and Plot only); whatever writes a chart file is an output or the site' },
  { name: 'editions-above-outputs', from: '^src/editions/', notTo: '^(src/(site|pages|components|layouts)|collector|sandbox|bench|scripts|mcp)/', why: 'an edition is cut from the archive with the outputs the site publishes, never from the site itself' },
  { name: 'editions-cut-by-entry-points', from: '^(src/(?!editions/)|collector/|mcp/)', notTo: '^src/editions/', why: 'only scripts/edition.ts and the demo cut editions; the site reads them from the archive' },
  { name: 'collector-beside-the-site', from: '^collector/', notTo: '^(src/(loader|outputs|site|charts|pages|components|layouts)|sandbox|bench|scripts)/', why: 'the collector reads and writes the archive through src/archive and src/lib only' },
  { name: 'check-reads-published-files', from: '^(collector/check|mcp)/', notTo: '^src/(?!lib/)|^(sandbox|bench|scripts|pipeline)/|^collector/(?!check/|probe-v2/|cli-kit/|http\\.ts$|targets\\.ts$|version\\.ts$)', why: 'the check and the MCP server read a published site, never data/: src/lib, the v2 probe, the CLI kit and the opt-out list only' },
  { name: 'cli-kit-is-alone', from: '^collector/cli-kit/', notTo: '^(?!collector/cli-kit/)(src|collector|sandbox|bench|scripts|mcp|pipeline)/', why: 'the CLI convention every command shares (collector/cli-kit) imports nothing of the tree: node:util and node:fs only' },
  { name: 'nothing-imports-the-pipeline', from: '^(?!pipeline/)', notTo: '^pipeline/', why: 'the pipeline runs the commands as processes, as the workflows do; no command depends on it' },
  { name: 'pipeline-runs-commands', from: '^pipeline/', notTo: '^(src/(?!lib/)|collector/(?!cli-kit/)|sandbox|bench|scripts|mcp)', why: 'the pipeline calls the commands as processes (what it prints is what it runs), so it imports only the CLI kit and src/lib' },
];

const forbidden: IForbiddenRuleType[] = [
  { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
  ...LAYERS.map((l) => ({ name: l.name, comment: l.why, severity: 'error' as const, from: { path: l.from }, to: { path: l.notTo } })),
];

/** The import graph of `roots` under `baseDir`, held to the rules above (roots relative to baseDir: the cruiser names modules by them). */
async function cruiseTree(baseDir: string, roots: readonly string[]): Promise<ICruiseResult> {
  const cruised = await cruise([...roots], {
    baseDir,
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    ruleSet: { forbidden },
    validate: true,
  });
  return cruised.output as ICruiseResult;
}

const violationsOf = (r: ICruiseResult, rule: string) => r.summary.violations.filter((v) => v.rule.name === rule).map((v) => (v.cycle ? [v.from, ...v.cycle.map((c) => c.name)].join(' → ') : `${v.from} → ${v.to}`));

let result: ICruiseResult;
beforeAll(async () => {
  result = await cruiseTree(ROOT, ROOTS);
}, 120_000);

const violations = (rule: string) => violationsOf(result, rule);

describe('the import graph of src/, collector/, sandbox/, bench/, scripts/', () => {
  it('covers the tree (the cruiser found our modules and resolved their imports)', () => {
    const sources = result.modules.map((m) => m.source);
    for (const m of ['src/lib/index.ts', 'src/archive/layout.ts', 'src/loader/load-archive.ts', 'src/outputs/bundles.ts', 'src/site/settings.ts', 'src/charts/survival.ts', 'src/editions/cut-edition.ts', 'collector/run.ts']) expect(sources).toContain(m);
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

describe('the layer rules of charts and editions (near misses, on a small tree of their own)', () => {
  // Each file imports one module; the rules must flag exactly the imports across their line.
  const tree: Record<string, string[]> = {
    'src/lib/index.ts': [],
    'src/loader/views.ts': ['../lib/index.ts'],
    'src/charts/drawn.ts': ['../lib/index.ts'], // allowed: a chart draws from src/lib
    'src/charts/written.ts': ['../outputs/files.ts'], // flagged: a chart that writes files
    'src/charts/loaded.ts': ['../loader/views.ts'], // flagged: a chart that reads the archive
    'src/outputs/files.ts': ['../charts/drawn.ts'], // allowed: an output writes a chart file
    'src/editions/cut.ts': ['../outputs/files.ts'], // allowed: an edition uses the outputs
    'src/editions/from-site.ts': ['../site/page.ts'], // flagged: an edition built from the site
    'src/site/page.ts': ['../charts/drawn.ts'], // allowed
    'src/site/cutter.ts': ['../editions/cut.ts'], // flagged: the site cutting an edition
    'scripts/edition.ts': ['../src/editions/cut.ts'], // allowed: the entry point
  };
  let small: ICruiseResult;
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'layout-'));
    try {
      for (const [file, imports] of Object.entries(tree)) {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        writeFileSync(path.join(dir, file), `${imports.map((m, i) => `import * as m${i} from '${m}';\nvoid m${i};\n`).join('')}export const here = '${file}';\n`);
      }
      small = await cruiseTree(dir, ['src', 'scripts']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('flag a chart that imports anything of the project but src/lib, and nothing else', () => {
    expect(violationsOf(small, 'charts-draw-only').sort()).toEqual(['src/charts/loaded.ts → src/loader/views.ts', 'src/charts/written.ts → src/outputs/files.ts']);
  });

  it('let outputs import charts now that charts sit below them', () => {
    expect(violationsOf(small, 'outputs-below-site')).toEqual([]);
  });

  it('flag an edition built from the site, and the site cutting an edition, and nothing else', () => {
    expect(violationsOf(small, 'editions-above-outputs')).toEqual(['src/editions/from-site.ts → src/site/page.ts']);
    expect(violationsOf(small, 'editions-cut-by-entry-points')).toEqual(['src/site/cutter.ts → src/editions/cut.ts']);
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
