// not_attempted rows through the loader: a collector-made archive where a host stops
// answering, read back as the site reads it — the server's status and strip say "not attempted (host
// unresponsive)", the error-class shares leave those rows out of both denominators and count them,
// and the coverage tile counts them as eligible, not attempted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCollector } from '../../collector/run.ts';
import { loadArchive, type Archive } from '../../src/loader/load-archive.ts';
import { statusText } from '../../src/site/format.ts';
import { stripCellLabel as stripLabel } from '../../src/site/strip-kinds.ts';
import { hang, mcpResponder, startCountingHosts, type CountingHosts } from '../../sandbox/counting-hosts.ts';
import { OFFICIAL_META, startRegistry, type RegistryServer } from '../../sandbox/registry-server.ts';
import { realTools, tmpData } from '../collector/world.ts';

let hosts: CountingHosts;
let registry: RegistryServer;
let a: Archive;

beforeAll(async () => {
  hosts = await startCountingHosts(['127.0.7.1', '127.0.7.2']);
  const [dead, alive] = hosts.hosts;
  const entry = (name: string, url: string) => ({
    server: { name, version: '1.0.0', description: 'loader test', remotes: [{ type: 'streamable-http', url }] },
    _meta: { [OFFICIAL_META]: { status: 'active', isLatest: true, publishedAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' } },
  });
  const entries = [];
  for (let j = 0; j < 12; j++) {
    dead!.mount(`/d${j}`, hang);
    entries.push(entry(`io.test.dead/d${String(j).padStart(2, '0')}`, `${dead!.origin}/d${j}`));
  }
  for (let j = 0; j < 3; j++) {
    alive!.mount(`/a${j}`, mcpResponder({ tools: realTools(j) }));
    entries.push(entry(`io.test.alive/a${j}`, `${alive!.origin}/a${j}`));
  }
  registry = await startRegistry({ entries });
  const data = tmpData('mcps-loader-na-');
  for (const day of ['2026-05-01', '2026-05-02']) {
    await runCollector({ registry: registry.url, data, allowPrivate: true, now: new Date(`${day}T03:15:00Z`), timeoutMs: 300, unresponsiveAfter: 3, optout: null });
  }
  a = await loadArchive(data);
}, 60_000);
afterAll(async () => {
  await registry?.close();
  await hosts?.close();
});

describe('loadArchive(dir) with not_attempted rows', () => {
  it('shows a server its run did not contact as not attempted, with the reason, in its status and its strip', () => {
    const skipped = a.servers.filter((s) => s.status === 'not_attempted');
    expect(skipped.length).toBeGreaterThan(0);
    const s = skipped[0]!;
    expect(s.notAttemptedReason).toBe('host_unresponsive');
    expect(statusText(s.status, s.errorClass ?? s.notAttemptedReason)).toBe('not attempted (host unresponsive)');
    const last = s.strip.at(-1)!;
    expect(last).toMatchObject({ kind: 'not_attempted', errorClass: 'host_unresponsive' });
    expect(stripLabel(last)).toMatch(/not attempted \(host unresponsive\)/);
    expect(a.servers.filter((x) => x.status === 'ok')).toHaveLength(3);
  });

  it('keeps not_attempted rows out of the error-class denominators, counts them, and counts them as eligible', () => {
    const shares = a.errorShares!;
    expect(shares.notAttempted).toBe(9);
    expect(shares.attempted.n).toBe(6); // 3 timeouts + 3 ok
    expect(shares.attempted.classes.timeout.count).toBe(3);
    const run = a.runs.at(-1)!;
    expect(run).toMatchObject({ eligible: 15, attempts: 6, degraded: true, outcomes: { not_attempted: 9 } });
    expect(a.tiles.coverage).toBeCloseTo(6 / 15, 12);
  });
});
