// The lock's property that lock.test.ts shows with real SIGKILLed collectors (20 zombies in a row,
// ~10 s), shown here through Store.open's ProcView seam in milliseconds, so the mutation run
// (stryker.collector.config.mjs) can afford it: a lock whose holder is gone — no process, a zombie,
// a reused pid, an earlier boot, or a lock file torn mid-write — is moved aside into quarantine/ and
// taken; a live holder, or one on another host, keeps the next collector out; a holder on its way out
// (still running for a moment after SIGKILL) is waited for. The /proc reading itself (lock.ts) is
// lock.test.ts's; lock.test.ts still runs in `npm test`.
import fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../collector/cli-error.ts';
import type { LockInfo, ProcView } from '../../collector/lock.ts';
import { readLock, Store } from '../../collector/store.ts';
import { tmpData } from './world.ts';

const HOLDER = 4242;
/** A system where this process is pid process.pid (start 100) and the holder is `holder` (or absent). */
function system(holder: { state: string; start: string } | null, over: Partial<ProcView> = {}): ProcView {
  return {
    hostname: () => 'box',
    bootId: () => 'boot-1',
    stat: (pid) => (pid === process.pid ? { state: 'R', start: '100' } : pid === HOLDER ? holder : null),
    exists: (pid) => pid === process.pid || (pid === HOLDER && holder !== null),
    ...over,
  };
}
const held = (over: Partial<LockInfo> = {}): LockInfo => ({ pid: HOLDER, started_at: '2026-05-01T03:15:00Z', proc_start: '777', boot_id: 'boot-1', hostname: 'box', ...over });

/** An archive folder whose .lock holds `body` (a LockInfo, or raw text). */
function lockedData(body: LockInfo | string): string {
  const data = tmpData('mcps-lockfast-');
  fs.writeFileSync(join(data, '.lock'), typeof body === 'string' ? body : JSON.stringify(body) + '\n');
  return data;
}
const stale = (data: string) => fs.readdirSync(join(data, 'quarantine')).filter((f) => f.endsWith('.stale'));
const openError = (data: string, proc: ProcView) => {
  try {
    Store.open(data, '2026-05-02T03:15:00Z', { proc }).close();
  } catch (e) {
    return e as Error & { exitCode?: number };
  }
  throw new Error('Store.open took the lock');
};

describe('Store.open: the lock, on a free archive', () => {
  it('writes a lock naming this process, and close() removes it', () => {
    const data = tmpData('mcps-lockfast-');
    const store = Store.open(data, '2026-05-02T03:15:00Z', { proc: system(null) });
    expect(store.lockPath).toBe(join(data, '.lock'));
    expect(fs.readFileSync(store.lockPath, 'utf8')).toBe(
      JSON.stringify({ pid: process.pid, started_at: '2026-05-02T03:15:00Z', proc_start: '100', boot_id: 'boot-1', hostname: 'box' }) + '\n',
    );
    store.close();
    expect(fs.existsSync(join(data, '.lock'))).toBe(false);
    store.close(); // idempotent
  });

  it('close() leaves a lock that is not its own in place (another collector recovered it meanwhile)', () => {
    const data = tmpData('mcps-lockfast-');
    const store = Store.open(data, '2026-05-02T03:15:00Z', { proc: system(null) });
    const other = JSON.stringify(held()) + '\n';
    fs.writeFileSync(join(data, '.lock'), other);
    store.close();
    expect(fs.readFileSync(join(data, '.lock'), 'utf8')).toBe(other);
  });
});

describe('Store.close(): idempotent, and only ever its own lock', () => {
  it('a second close() (an exit handler after a clean close) leaves the lock of a store opened since alone', () => {
    const data = tmpData('mcps-lockfast-');
    const first = Store.open(data, '2026-05-02T03:15:00Z', { proc: system(null) });
    first.close();
    const second = Store.open(data, '2026-05-02T04:15:00Z', { proc: system(null) });
    first.close();
    expect(readLock(join(data, '.lock'))).toMatchObject({ pid: process.pid, started_at: '2026-05-02T04:15:00Z' });
    second.close();
    expect(fs.existsSync(join(data, '.lock'))).toBe(false);
  });

  it('a lock removed by hand before close() is no error', () => {
    const data = tmpData('mcps-lockfast-');
    const store = Store.open(data, '2026-05-02T03:15:00Z', { proc: system(null) });
    fs.rmSync(join(data, '.lock'));
    expect(() => store.close()).not.toThrow();
  });
});

describe('Store.open: a lock whose holder is gone is moved aside and taken', () => {
  it.each([
    ['no such process', held(), system(null)],
    ['a zombie (killed, never reaped)', held(), system({ state: 'Z', start: '777' })],
    ['a dead task', held(), system({ state: 'X', start: '777' })],
    ['the pid reused by another program', held(), system({ state: 'S', start: '999' })],
    ['a lock from before a restart', held({ boot_id: 'boot-0' }), system({ state: 'S', start: '777' })],
  ] as const)('%s', (_what, lock, proc) => {
    const data = lockedData(lock);
    const store = Store.open(data, '2026-05-02T03:15:00Z', { proc });
    expect(readLock(store.lockPath)?.pid).toBe(process.pid);
    // The old lock is kept, byte for byte, under quarantine/lock-<ms>-<pid>.stale.
    const aside = stale(data);
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(new RegExp(`^lock-\\d+-${process.pid}\\.stale$`));
    expect(fs.readFileSync(join(data, 'quarantine', aside[0]!), 'utf8')).toBe(JSON.stringify(lock) + '\n');
    store.close();
  });

  it('a lock file torn mid-write (not a lock) is stale too', () => {
    const data = lockedData('{"pid": 42, "star');
    Store.open(data, '2026-05-02T03:15:00Z', { proc: system({ state: 'S', start: '777' }) }).close();
    expect(stale(data).map((f) => fs.readFileSync(join(data, 'quarantine', f), 'utf8'))).toEqual(['{"pid": 42, "star']);
  });

  it('waits for a holder still on its way out (running for a moment after SIGKILL), then takes the lock', () => {
    const data = lockedData(held());
    let looks = 0;
    const proc = system(null, { stat: (pid) => (pid === HOLDER ? (++looks <= 3 ? { state: 'R', start: '777' } : { state: 'Z', start: '777' }) : { state: 'R', start: '100' }) });
    const store = Store.open(data, '2026-05-02T03:15:00Z', { proc });
    expect(looks).toBe(4);
    expect(readLock(store.lockPath)?.pid).toBe(process.pid);
    store.close();
  });
});

describe('Store.open: a held lock keeps the next collector out', () => {
  it('a live holder: refused with exit 3, naming the holder; the lock untouched, nothing moved aside', () => {
    const lock = held();
    const data = lockedData(lock);
    let looks = 0;
    const proc = system(null, { stat: (pid) => (pid === HOLDER ? (looks++, { state: 'S', start: '777' }) : { state: 'R', start: '100' }) });
    const e = openError(data, proc);
    expect(e).toMatchObject({ name: 'CliError', exitCode: EXIT.locked, message: `another collector holds ${join(data, '.lock')} (pid ${HOLDER}, since 2026-05-01T03:15:00Z)` });
    expect(looks).toBeGreaterThan(1); // looked at again before refusing
    expect(fs.readFileSync(join(data, '.lock'), 'utf8')).toBe(JSON.stringify(lock) + '\n');
    expect(stale(data)).toEqual([]);
  });

  it('a holder on another host: refused with exit 3, saying it cannot be checked from here (the host name cut to 64 characters)', () => {
    const host = 'h'.repeat(70);
    const data = lockedData(held({ hostname: host }));
    const e = openError(data, system(null));
    expect(e.exitCode).toBe(EXIT.locked);
    expect(e.message).toBe(
      `another collector holds ${join(data, '.lock')} on host "${'h'.repeat(64)}" (pid ${HOLDER}, since 2026-05-01T03:15:00Z); it cannot be checked from here: remove the file if no collector runs there`,
    );
    expect(stale(data)).toEqual([]);
  });

  it('gives way when another collector takes the stale lock while this one judges it: its lock put back, nothing left aside', () => {
    const data = lockedData(held());
    const theirs = JSON.stringify({ ...held(), pid: 5151 }) + '\n';
    // While this collector looks at the dead holder, another recovers the lock and writes its own.
    const proc = system(null, {
      stat: (pid) => {
        if (pid === HOLDER) fs.writeFileSync(join(data, '.lock'), theirs);
        return pid === process.pid ? { state: 'R', start: '100' } : null;
      },
    });
    const e = openError(data, proc);
    expect(e).toMatchObject({ exitCode: EXIT.locked, message: `could not take ${join(data, '.lock')}: another collector is starting` });
    expect(fs.readFileSync(join(data, '.lock'), 'utf8')).toBe(theirs);
    expect(stale(data)).toEqual([]);
  });

  it('tries again when the stale lock is removed while it is judged, and takes it', () => {
    const data = lockedData(held());
    const proc = system(null, {
      stat: (pid) => {
        if (pid === HOLDER) fs.rmSync(join(data, '.lock'), { force: true });
        return pid === process.pid ? { state: 'R', start: '100' } : null;
      },
    });
    const store = Store.open(data, '2026-05-02T03:15:00Z', { proc });
    expect(readLock(store.lockPath)?.pid).toBe(process.pid);
    expect(stale(data)).toEqual([]);
    store.close();
  });
});

describe('Store.open: an unusable --data', () => {
  it('a path under a file: exit 2, naming the folder', () => {
    const file = join(tmpData('mcps-lockfast-'), 'file');
    fs.writeFileSync(file, 'x');
    const e = openError(join(file, 'data'), system(null));
    expect(e).toMatchObject({ name: 'CliError', exitCode: EXIT.usage });
    // Refused while making the layout (not later, at the lock), with the system's error as the cause.
    expect(e.message).toMatch(new RegExp(`^unusable --data ${join(file, 'data')}: ENOTDIR: not a directory, mkdir `));
    expect(e.cause).toMatchObject({ code: 'ENOTDIR' });
  });

});
