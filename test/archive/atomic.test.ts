// src/archive/atomic.ts: a name only ever points at complete bytes, and a writer's temp file carries
// the mark Store.open sweeps and verify reports.
import { fstatSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fsyncPath, nodeFs, tempName, writeAtomic, writeAtomicAsync, writeDurably, type FsEffects } from '../../src/archive/atomic.ts';
import { TEMP_MARK } from '../../src/archive/layout.ts';
import { scratchDirs } from '../helpers/scratch.ts';

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

/** node:fs, recording each durability-relevant call with the path it concerns (fds mapped back to paths). */
function recorder(fail: Partial<Record<'writeSync' | 'fsyncSync' | 'writeFile' | 'sync', boolean>> = {}) {
  const calls: string[] = [];
  const paths = new Map<number, string>();
  const base = path.basename;
  const fx: FsEffects = {
    ...nodeFs,
    openSync: (p, flags) => {
      const fd = nodeFs.openSync(p, flags);
      paths.set(fd, base(p));
      calls.push(`open ${base(p)} ${flags}`);
      return fd;
    },
    writeSync: (fd, data) => {
      calls.push(`write ${paths.get(fd)}`);
      if (fail.writeSync) throw new Error('disk full');
      return nodeFs.writeSync(fd, data);
    },
    fsyncSync: (fd) => {
      calls.push(`fsync ${paths.get(fd)}`);
      if (fail.fsyncSync) throw new Error('EIO');
      nodeFs.fsyncSync(fd);
    },
    closeSync: (fd) => {
      calls.push(`close ${paths.get(fd)}`);
      nodeFs.closeSync(fd);
    },
    renameSync: (from, to) => {
      calls.push(`rename ${base(from)} ${base(to)}`);
      nodeFs.renameSync(from, to);
    },
    open: async (p, flags) => {
      const fh = await nodeFs.open(p, flags);
      const name = base(p);
      calls.push(`open ${name} ${flags}`);
      return {
        writeFile: async (b) => {
          calls.push(`write ${name}`);
          if (fail.writeFile) throw new Error('disk full');
          await fh.writeFile(b);
        },
        sync: async () => {
          calls.push(`fsync ${name}`);
          if (fail.sync) throw new Error('EIO');
          await fh.sync();
        },
        close: async () => {
          calls.push(`close ${name}`);
          await fh.close();
        },
      };
    },
    rename: async (from, to) => {
      calls.push(`rename ${base(from)} ${base(to)}`);
      await nodeFs.rename(from, to);
    },
  };
  /** The calls with temp names written as TMP. */
  const seen = () => calls.map((c) => c.replace(/\S+\.tmp-\d+-[0-9a-f]{8}/g, 'TMP'));
  return { fx, seen };
}

describe('what is fsynced, and in what order (FsEffects)', () => {
  const tmp = scratchDirs();

  it('durable writeAtomic: the bytes are fsynced before the rename, the folder after it', () => {
    const dir = tmp('mcp-schema-atomic-fx-');
    const r = recorder();
    writeAtomic(path.join(dir, 'f.bin'), Buffer.from('x'), { durable: true, fx: r.fx });
    const folder = path.basename(dir);
    expect(r.seen()).toEqual(['open TMP wx', 'write TMP', 'fsync TMP', 'close TMP', 'rename TMP f.bin', `open ${folder} r`, `fsync ${folder}`, `close ${folder}`]);
  });

  it('near miss: not durable (the default), nothing is fsynced, the rename still happens', () => {
    const dir = tmp('mcp-schema-atomic-fx-');
    const r = recorder();
    writeAtomic(path.join(dir, 'f.bin'), Buffer.from('x'), { fx: r.fx });
    expect(r.seen()).toEqual(['open TMP wx', 'write TMP', 'close TMP', 'rename TMP f.bin']);
    expect(readFileSync(path.join(dir, 'f.bin'), 'utf8')).toBe('x');
  });

  it('durable writeAtomicAsync: the same order; not durable: no fsync', async () => {
    const dir = tmp('mcp-schema-atomic-fx-');
    const r = recorder();
    await writeAtomicAsync(path.join(dir, 'sub', 'g.bin'), Buffer.from('y'), { durable: true, fx: r.fx });
    expect(r.seen()).toEqual(['open TMP wx', 'write TMP', 'fsync TMP', 'close TMP', 'rename TMP g.bin', 'open sub r', 'fsync sub', 'close sub']);
    const q = recorder();
    await writeAtomicAsync(path.join(dir, 'h.bin'), Buffer.from('z'), { fx: q.fx });
    expect(q.seen()).toEqual(['open TMP wx', 'write TMP', 'close TMP', 'rename TMP h.bin']);
    expect(readFileSync(path.join(dir, 'sub', 'g.bin'), 'utf8')).toBe('y');
  });

  it('a write that fails closes its file and renames nothing into place', async () => {
    const dir = tmp('mcp-schema-atomic-fx-');
    const r = recorder({ writeSync: true });
    expect(() => writeAtomic(path.join(dir, 'f.bin'), Buffer.from('x'), { durable: true, fx: r.fx })).toThrow('disk full');
    expect(r.seen()).toEqual(['open TMP wx', 'write TMP', 'close TMP']);
    const q = recorder({ writeFile: true });
    await expect(writeAtomicAsync(path.join(dir, 'g.bin'), Buffer.from('x'), { durable: true, fx: q.fx })).rejects.toThrow('disk full');
    expect(q.seen()).toEqual(['open TMP wx', 'write TMP', 'close TMP']);
    const s = recorder({ sync: true });
    await expect(writeAtomicAsync(path.join(dir, 'h.bin'), Buffer.from('x'), { durable: true, fx: s.fx })).rejects.toThrow('EIO');
    expect(s.seen()).toEqual(['open TMP wx', 'write TMP', 'fsync TMP', 'close TMP']);
    expect(readdirSync(dir).filter((n) => !n.includes('.tmp-'))).toEqual([]);
  });

  it('writeDurably never overwrites, fsyncs by default, and closes when the fsync fails', () => {
    const dir = tmp('mcp-schema-atomic-fx-');
    const file = path.join(dir, 'r.json');
    const r = recorder();
    writeDurably(file, Buffer.from('{}'), undefined, r.fx);
    expect(r.seen()).toEqual(['open r.json wx', 'write r.json', 'fsync r.json', 'close r.json']);
    expect(() => writeDurably(file, Buffer.from('other'))).toThrow(/EEXIST/);
    expect(readFileSync(file, 'utf8')).toBe('{}');
    const q = recorder();
    writeDurably(path.join(dir, 's.json'), Buffer.from('{}'), false, q.fx);
    expect(q.seen()).toEqual(['open s.json wx', 'write s.json', 'close s.json']);
    const f = recorder({ fsyncSync: true });
    expect(() => writeDurably(path.join(dir, 't.json'), Buffer.from('{}'), true, f.fx)).toThrow('EIO');
    expect(f.seen().at(-1)).toBe('close t.json');
  });

  it('fsyncPath opens read-only, fsyncs and closes, also when the fsync fails', () => {
    const dir = tmp('mcp-schema-atomic-fx-');
    const folder = path.basename(dir);
    const r = recorder();
    fsyncPath(dir, r.fx);
    expect(r.seen()).toEqual([`open ${folder} r`, `fsync ${folder}`, `close ${folder}`]);
    const f = recorder({ fsyncSync: true });
    expect(() => fsyncPath(dir, f.fx)).toThrow('EIO');
    expect(f.seen()).toEqual([`open ${folder} r`, `fsync ${folder}`, `close ${folder}`]);
  });

  it('nodeFs writes strings and bytes, links, and renames', () => {
    const dir = tmp('mcp-schema-atomic-fx-');
    const a = path.join(dir, 'a');
    const fd = nodeFs.openSync(a, 'wx');
    expect(nodeFs.writeSync(fd, 'hé')).toBe(3);
    expect(nodeFs.writeSync(fd, Buffer.from('!'))).toBe(1);
    nodeFs.fdatasyncSync(fd);
    nodeFs.closeSync(fd);
    expect(() => fstatSync(fd)).toThrow(/EBADF/);
    nodeFs.linkSync(a, path.join(dir, 'b'));
    nodeFs.renameSync(path.join(dir, 'b'), path.join(dir, 'c'));
    expect(readFileSync(path.join(dir, 'c'), 'utf8')).toBe('hé!');
    expect(readdirSync(dir).sort()).toEqual(['a', 'c']);
  });
});
