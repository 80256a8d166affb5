// inputsKey(inputs, extra, root): the key of the site tests' cached archive and builds.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputsKey } from './shared.ts';

describe('inputsKey(inputs, extra, root)', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'inputs-key-'));
    await mkdir(path.join(root, 'src/pages'), { recursive: true });
    await writeFile(path.join(root, 'src/pages/a.astro'), 'a');
    await writeFile(path.join(root, 'astro.config.mjs'), 'c');
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('changes when any byte of any input changes, a file is added or renamed, or the extra part differs', async () => {
    const key = () => inputsKey(['src', 'astro.config.mjs'], '', root);
    const k0 = key();
    expect(key()).toBe(k0);
    await writeFile(path.join(root, 'src/pages/a.astro'), 'b');
    const k1 = key();
    expect(k1).not.toBe(k0);
    await writeFile(path.join(root, 'src/pages/b.astro'), '');
    const k2 = key();
    expect(k2).not.toBe(k1);
    await rm(path.join(root, 'src/pages/b.astro'));
    await writeFile(path.join(root, 'src/pages/c.astro'), '');
    expect(key()).not.toBe(k2);
    expect(inputsKey(['src', 'astro.config.mjs'], 'env', root)).not.toBe(key());
  });

  it('ignores build output and dependencies inside an input', async () => {
    const k0 = inputsKey(['src'], '', root);
    await mkdir(path.join(root, 'src/node_modules'), { recursive: true });
    await writeFile(path.join(root, 'src/node_modules/x.js'), 'x');
    expect(inputsKey(['src'], '', root)).toBe(k0);
  });
});
