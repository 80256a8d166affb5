// src/archive/atomic.ts: a name only ever points at complete bytes, and a writer's temp file carries
// the mark Store.open sweeps and verify reports.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempName, writeAtomic, writeAtomicAsync } from '../../src/archive/atomic.ts';
import { TEMP_MARK } from '../../src/archive/layout.ts';

describe('writeAtomic(file, bytes, opts?), writeAtomicAsync(file, bytes, opts?)', () => {
  it('creates the folder, writes the bytes under the name, replaces an older file whole, and leaves no temp file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-schema-atomic-'));
    const file = path.join(dir, 'a', 'b.bin');
    writeAtomic(file, Buffer.from('one'), { durable: true });
    await writeAtomicAsync(file, Buffer.from('two, longer'));
    expect(readFileSync(file, 'utf8')).toBe('two, longer');
    expect(readdirSync(path.join(dir, 'a'))).toEqual(['b.bin']);
    await rm(dir, { recursive: true });
  });
});

describe('tempName(file)', () => {
  it('is beside the file, unique, and carries TEMP_MARK', () => {
    const a = tempName('/x/objects/ab/abc');
    expect(path.dirname(a)).toBe('/x/objects/ab');
    expect(TEMP_MARK.test(path.basename(a))).toBe(true);
    expect(tempName('/x/y')).not.toBe(tempName('/x/y'));
  });
});
