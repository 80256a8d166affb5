// One collector at a time per archive: `.lock` names its holder, and a holder that is gone never holds
// it. `kill(pid, 0)` alone is not enough: a collector killed with SIGKILL stays a zombie until its
// parent reaps it, and kill() calls a zombie alive — in a container without an init process that
// zombie is never reaped, and the daily job would be locked out for good. So the lock records the
// holder's pid, its start time in clock ticks since boot (/proc/<pid>/stat field 22), the boot id and
// the hostname, and a holder counts as dead when (Linux, `man 5 proc`):
//   - /proc/<pid> does not exist;
//   - its state (field 3) is Z (zombie) or X (dead);
//   - its start time differs from the recorded one (the pid was reused by another program);
//   - the boot id differs (the machine restarted since).
// A lock written on another host (hostname differs) cannot be checked from here and is respected; the
// message says so. Without /proc (not Linux) the fallback is kill(pid, 0), zombies included.
import fs from 'node:fs';
import { hostname } from 'node:os';

export interface LockInfo {
  pid: number;
  started_at: string;
  /** /proc/<pid>/stat starttime (clock ticks since boot), as text; null where there is no /proc. */
  proc_start?: string | null;
  boot_id?: string | null;
  hostname?: string;
}

/** What this module reads of the system; tests pass their own. */
export interface ProcView {
  hostname(): string;
  bootId(): string | null;
  /** null: no such process; undefined: this system has no /proc. */
  stat(pid: number): { state: string; start: string } | null | undefined;
  /** kill(pid, 0): the process exists (zombies too). */
  exists(pid: number): boolean;
}

export type Holder = { state: 'alive' } | { state: 'dead'; why: string } | { state: 'elsewhere'; host: string };

export const linuxProc: ProcView = {
  hostname: () => hostname(),
  bootId() {
    try {
      return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      return null;
    }
  },
  stat(pid) {
    if (!fs.existsSync('/proc/self/stat')) return undefined;
    let text: string;
    try {
      text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return null;
    }
    return parseStat(text);
  },
  exists(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'EPERM'; // exists, not ours
    }
  },
};

/** The lock this process writes. */
export function lockFor(startedAt: string, sys: ProcView = linuxProc): LockInfo {
  return { pid: process.pid, started_at: startedAt, proc_start: sys.stat(process.pid)?.start ?? null, boot_id: sys.bootId(), hostname: sys.hostname() };
}

/** Is the holder named by a lock still there? */
export function holder(lock: LockInfo, sys: ProcView = linuxProc): Holder {
  if (lock.hostname !== undefined && lock.hostname !== sys.hostname()) return { state: 'elsewhere', host: lock.hostname };
  const boot = sys.bootId();
  if (lock.boot_id && boot && lock.boot_id !== boot) return { state: 'dead', why: 'written before the machine restarted' };
  const stat = sys.stat(lock.pid);
  if (stat === undefined) return sys.exists(lock.pid) ? { state: 'alive' } : { state: 'dead', why: `no process ${lock.pid}` };
  if (stat === null) return { state: 'dead', why: `no process ${lock.pid}` };
  if (stat.state === 'Z' || stat.state === 'X') return { state: 'dead', why: `process ${lock.pid} is a zombie (state ${stat.state})` };
  if (lock.proc_start && lock.proc_start !== stat.start) return { state: 'dead', why: `pid ${lock.pid} now belongs to another process (started at tick ${stat.start}, not ${lock.proc_start})` };
  return { state: 'alive' };
}

export function readLock(path: string): LockInfo | null {
  try {
    const j = JSON.parse(fs.readFileSync(path, 'utf8')) as Partial<LockInfo>;
    if (typeof j.pid !== 'number' || !Number.isInteger(j.pid) || j.pid <= 0) return null;
    return {
      pid: j.pid,
      started_at: String(j.started_at ?? ''),
      proc_start: typeof j.proc_start === 'string' ? j.proc_start : null,
      boot_id: typeof j.boot_id === 'string' ? j.boot_id : null,
      ...(typeof j.hostname === 'string' ? { hostname: j.hostname } : {}),
    };
  } catch {
    return null;
  }
}

/**
 * State (field 3) and starttime (field 22) of a /proc/<pid>/stat line. The command name (field 2) is
 * in parentheses and may itself hold spaces and parentheses: fields are counted after the LAST ')'.
 */
export function parseStat(text: string): { state: string; start: string } | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const rest = text.slice(close + 1).trim().split(/\s+/);
  const state = rest[0];
  const start = rest[22 - 3];
  return state && start && /^\d+$/.test(start) ? { state, start } : null;
}
