// The lock dies with its holder: holder() decides from what /proc says (a table over a
// made-up system view, then the real one), and a collector killed with SIGKILL whose parent never
// reaps it — a zombie, as in a container without an init process — does not keep the next collector
// out, again and again.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holder, linuxProc, lockFor, parseStat, readLock, type LockInfo, type ProcView } from '../../collector/lock.ts';
import { Store } from '../../collector/store.ts';
import { tmpData } from './world.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function view(procs: Record<number, { state: string; start: string }>, over: Partial<ProcView> = {}): ProcView {
  return { hostname: () => 'box', bootId: () => 'boot-1', stat: (pid) => procs[pid] ?? null, exists: (pid) => pid in procs, ...over };
}
const lock = (over: Partial<LockInfo> = {}): LockInfo => ({ pid: 42, started_at: '2026-05-01T03:15:00Z', proc_start: '1000', boot_id: 'boot-1', hostname: 'box', ...over });

describe('holder(lock, proc)', () => {
  it.each([
    ['a live holder', lock(), view({ 42: { state: 'S', start: '1000' } }), 'alive'],
    ['no such process', lock(), view({}), 'dead'],
    ['a zombie', lock(), view({ 42: { state: 'Z', start: '1000' } }), 'dead'],
    ['a dead task (X)', lock(), view({ 42: { state: 'X', start: '1000' } }), 'dead'],
    ['the pid reused by another program', lock(), view({ 42: { state: 'R', start: '9999' } }), 'dead'],
    ['a lock from before a restart', lock({ boot_id: 'boot-0' }), view({ 42: { state: 'S', start: '1000' } }), 'dead'],
    ['a lock from another host', lock({ hostname: 'other' }), view({}), 'elsewhere'],
    ['an old lock (pid and time only), holder alive', { pid: 42, started_at: 'x' }, view({ 42: { state: 'S', start: '5' } }), 'alive'],
    ['an old lock (pid and time only), holder a zombie', { pid: 42, started_at: 'x' }, view({ 42: { state: 'Z', start: '5' } }), 'dead'],
    ['no /proc: kill(pid, 0) says it exists', lock(), view({ 42: { state: '', start: '' } }, { stat: () => undefined }), 'alive'],
    ['no /proc: kill(pid, 0) finds nothing', lock(), view({}, { stat: () => undefined }), 'dead'],
  ] as const)('%s → %s', (_what, l, proc, state) => expect(holder(l, proc).state).toBe(state));
});

describe('parseStat(text)', () => {
  it('counts fields after the last parenthesis, whatever the command name holds', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    fields[0] = 'Z';
    expect(parseStat(`123 (a) (b c) ${fields.join(' ')}\n`)).toEqual({ state: 'Z', start: '22' });
    expect(parseStat('garbage')).toBeNull();
  });

  it('reads this process from the real /proc: alive, with the start time the lock records', () => {
    const mine = lockFor('2026-05-01T00:00:00Z');
    expect(mine.pid).toBe(process.pid);
    expect(mine.proc_start).toMatch(/^\d+$/);
    expect(holder(mine).state).toBe('alive');
    expect(holder({ ...mine, proc_start: String(Number(mine.proc_start) + 1) }).state).toBe('dead');
  });
});

/** A registry that never answers: a collector started against it holds the lock while it waits. */
let registry: Server;
let registryUrl: string;
beforeAll(async () => {
  registry = createServer(() => {});
  await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/v0.1/servers`;
});
afterAll(async () => {
  registry.closeAllConnections();
  await new Promise<void>((r) => registry.close(() => r()));
});

/**
 * `sh` starts the collector in the background and a sibling that waits for its lock and kills it
 * with SIGKILL, then becomes `sleep` (exec): sleep never waits for children, so the killed
 * collector stays a zombie for as long as sleep lives. Resolves with the collector's pid and the shell (the sleep) to end.
 */
function killedCollector(data: string): Promise<{ pid: number; parent: ChildProcess }> {
  const script = [
    `node --import tsx collector/cli.ts --registry "$REGISTRY" --data "$DATA" --now 2026-05-01T03:15:00Z --timeout 600000 --optout /dev/null &`,
    'p=$!',
    // A sibling waits for the lock and kills; the shell itself becomes sleep at once. Had the shell
    // killed and then exec'd, it could reap the dead collector in between (dash reaps finished
    // background jobs when it looks at them) and the premise would hold only when the timing allowed.
    '( while [ ! -s "$DATA/.lock" ]; do sleep 0.02; done; kill -9 $p; echo "$p" ) &',
    'exec sleep 300',
  ].join('\n');
  const parent = spawn('sh', ['-c', script], { cwd: ROOT, env: { ...process.env, REGISTRY: registryUrl, DATA: data }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    parent.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('\n')) resolve({ pid: Number(out.trim()), parent });
    });
    parent.on('exit', (code) => reject(new Error(`sh exited ${code} before killing the collector`)));
  });
}

describe('Store.open after a collector killed with SIGKILL', () => {
  it('takes the lock at once, 20 times in a row, while the killed holder is an unreaped zombie', async () => {
    const data = tmpData('mcps-lock-');
    for (let round = 0; round < 20; round++) {
      const { pid, parent } = await killedCollector(data);
      try {
        expect(readLock(join(data, '.lock'))?.pid).toBe(pid);
        // At once: the killed collector may still be on its way out (state R) when this starts.
        const store = Store.open(data, new Date().toISOString());
        expect(readLock(join(data, '.lock'))?.pid).toBe(process.pid);
        // The premise: the old holder is now a zombie nobody reaps, which kill(pid, 0) calls alive.
        expect(linuxProc.stat(pid)?.state).toBe('Z');
        expect(linuxProc.exists(pid)).toBe(true);
        store.close();
        expect(fs.existsSync(join(data, '.lock'))).toBe(false);
      } finally {
        parent.kill('SIGKILL');
        await new Promise((r) => (parent.exitCode !== null || parent.signalCode !== null ? r(null) : parent.once('exit', r)));
      }
    }
    expect(fs.readdirSync(join(data, 'quarantine')).filter((f) => f.endsWith('.stale'))).toHaveLength(20);
  }, 300_000);

  it('still refuses while the holder lives, and a lock naming a live pid with another start time is stale', async () => {
    const data = tmpData('mcps-lock-');
    const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' });
    try {
      const real = linuxProc.stat(sleeper.pid!)!;
      const body = (l: LockInfo) => fs.writeFileSync(join(data, '.lock'), JSON.stringify(l));
      fs.mkdirSync(data, { recursive: true });
      body({ ...lockFor('2026-05-01T00:00:00Z'), pid: sleeper.pid!, proc_start: real.start });
      expect(() => Store.open(data, new Date().toISOString())).toThrow(/another collector holds/);
      body({ ...lockFor('2026-05-01T00:00:00Z'), pid: sleeper.pid!, proc_start: String(Number(real.start) + 7) });
      Store.open(data, new Date().toISOString()).close();
      body({ ...lockFor('2026-05-01T00:00:00Z'), hostname: 'elsewhere.example' });
      expect(() => Store.open(data, new Date().toISOString())).toThrow(/on host "elsewhere.example".*remove the file/);
    } finally {
      sleeper.kill('SIGKILL');
    }
  });
});
