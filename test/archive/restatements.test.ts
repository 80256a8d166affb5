// src/archive/restatements.ts: the manifest's one schema, and the one reader of the manifests.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifests, restatementDir } from '../../src/archive/restatements.ts';
import { restate } from '../../collector/ops/restate.ts';
import { cleanUp, goldenCopy } from '../helpers/golden-archive.ts';

afterAll(cleanUp);

let dir: string;
beforeAll(async () => {
  dir = await goldenCopy();
  await restate(dir, 'v1-contract');
});

describe('readManifests(dir)', () => {
  it('reads the manifest restate wrote, as it wrote it', async () => {
    const { manifests, problems } = readManifests(dir);
    expect(problems).toEqual([]);
    expect(manifests.map((m) => m.series)).toEqual(['v1-contract']);
    expect(manifests[0]!.source_rows).toBeGreaterThan(0);
  });
  it('lists a manifest that does not validate or names another series than its folder, and skips a folder being written', () => {
    const v1 = restatementDir(dir, 'v1');
    mkdirSync(v1, { recursive: true });
    writeFileSync(path.join(v1, 'manifest.json'), JSON.stringify({ series: 'v1' }));
    const other = restatementDir(dir, 'v1x');
    mkdirSync(other, { recursive: true });
    const { manifests } = readManifests(dir);
    writeFileSync(path.join(other, 'manifest.json'), JSON.stringify({ ...manifests[0], series: 'v1-contract' }));
    mkdirSync(restatementDir(dir, '.v1.tmp-1-ab'), { recursive: true });
    const read = readManifests(dir);
    expect(read.manifests.map((m) => m.series)).toEqual(['v1-contract']);
    expect(read.problems).toEqual([
      { file: path.join('restatements', 'v1', 'manifest.json'), line: null, message: expect.stringMatching(/^title: /) },
      { file: path.join('restatements', 'v1x', 'manifest.json'), line: null, message: 'manifest names series v1-contract, folder v1x' },
    ]);
  });
});
