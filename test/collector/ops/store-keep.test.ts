// A day interrupted by the object store is resumed, not lost: the collector (the CLI, as collect.yml
// runs it) stores into a real S3-compatible server on 127.0.0.1 that is killed while targets are being
// probed. It stops with exit 5 and one sentence; `store -- keep` packs what it wrote; on a new machine
// (a fresh folder) with the store back (a new, empty bucket: everything the first run stored went
// with the old one), `store -- restore` puts the folder back and pushes the kept keys, and a re-run
// with the same --now writes every remaining row once, and the archive verifies through the bucket.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Behaviour } from '../../../sandbox/mcp-host.ts';
import { runCli } from '../../helpers/cli.ts';
import { startS3Server, type S3TestServer } from '../../helpers/s3-server.ts';
import { scratchDirs } from '../../helpers/scratch.ts';
import { realTools, startWorld, type World } from '../world.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const temp = scratchDirs();
const NOW = '2026-05-04T03:15:00Z';
const DAY = NOW.slice(0, 10);
const ENDPOINTS = 8;

let world: World;
let first: S3TestServer;
let second: S3TestServer | undefined;
/** Set once the first bucket has been killed by a probe. */
let killed = false;

/** A well-behaved v1 server; the `killer` kills the first bucket when it is first asked, before it answers. */
function server(i: number, killer: boolean): Behaviour {
  return {
    kind: 'raw',
    handler(_req: IncomingMessage, res: ServerResponse, body: Buffer) {
      const msg = body.length ? (JSON.parse(body.toString()) as { id?: unknown; method?: string }) : {};
      const answer = () => {
        if (msg.method === 'initialize') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: `s${i}`, version: '1' } } }));
        } else if (msg.method === 'tools/list') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { tools: realTools(i) } }));
        } else res.writeHead(202).end();
      };
      if (killer && !killed) {
        killed = true;
        void first.close().then(answer);
      } else answer();
    },
  };
}

beforeAll(async () => {
  first = await startS3Server();
  world = await startWorld({ endpoints: ENDPOINTS, hostCount: 1, behave: (i) => server(i, i === 2) });
}, 60_000);
afterAll(async () => {
  await world?.close();
  await first?.close();
  await second?.close();
});

function storeEnv(s: S3TestServer): Record<string, string> {
  return { MCP_SCHEMA_STORE: `s3://${s.bucket}/archive`, MCP_SCHEMA_STORE_ENDPOINT: s.endpoint, AWS_ACCESS_KEY_ID: s.credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: s.credentials.secretAccessKey };
}

function collect(data: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const args = ['--registry', world.registry.url, '--data', data, '--allow-private', '--optout', '/dev/null', '--timeout', '5000', '--concurrency', '1', '--methodology', 'v1', '--now', NOW, '--json'];
    const child = spawn(process.execPath, ['--import', 'tsx', 'collector/cli.ts', ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const rowsOf = (data: string) => {
  const file = join(data, 'observations', `${DAY}.jsonl`);
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { target: string; run_id: string }) : [];
};

describe('a collection the store stopped', () => {
  it('collect --help documents exit 5', async () => {
    const help = await runCli('collector/cli.ts', ['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/5 the object store failed: the day's rows\s+so far are kept; re-run with the same --now to resume/);
  });

  it('exit 5 and one sentence; keep; restore on a new machine with the store back; the same --now resumes, every row once; the archive verifies', async () => {
    const runner = temp('mcps-keep-runner-');
    const stopped = await collect(runner, storeEnv(first));
    expect(killed).toBe(true);
    expect(stopped.code).toBe(5);
    const said = stopped.stderr.trim().split('\n');
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^collect: the object store failed \(s3 (put|has) (objects|pages)\/[0-9a-f]{2}\/[0-9a-f]{64}(\.json)?: .*ECONNREFUSED.*\): the day's rows so far are kept; re-run with the same --now to resume$/);
    expect(stopped.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(stopped.stderr).not.toContain(first.credentials.secretAccessKey); // no credential
    const before = rowsOf(runner);
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(ENDPOINTS);
    expect(existsSync(join(runner, 'runs.jsonl'))).toBe(false); // the run did not finish

    // The keep step (an artifact on a runner), with the run's --now.
    const kept = temp('mcps-kept-');
    const keep = await runCli('collector/ops/store-cli.ts', ['keep', join(kept, 'day'), '--now', NOW, '--data', runner], storeEnv(first));
    expect(keep.stderr).toBe('');
    expect(keep.code).toBe(0);
    expect(keep.stdout).toMatch(/^kept \d+ files and [1-9]\d* keys \(every cached key \(s3:\/\/[^)]* did not answer\); /);
    // A second keep into the same folder is refused (nothing kept is overwritten).
    expect((await runCli('collector/ops/store-cli.ts', ['keep', join(kept, 'day'), '--data', runner], {})).code).toBe(1);

    // A new machine: a fresh folder, the store back (an empty bucket).
    second = await startS3Server();
    const fresh = temp('mcps-keep-fresh-');
    const restore = await runCli('collector/ops/store-cli.ts', ['restore', join(kept, 'day'), '--data', fresh], storeEnv(second));
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);
    expect(restore.stdout).toMatch(/; \d+ keys in the folder, [1-9]\d* pushed to s3:\/\//);
    expect(restore.stdout).toContain(`resume with: npm run collect -- --now ${new Date(NOW).toISOString()}`);
    expect(rowsOf(fresh)).toEqual(before);
    // Restoring again changes nothing (every file the same, no key pushed twice).
    const twice = await runCli('collector/ops/store-cli.ts', ['restore', join(kept, 'day'), '--data', fresh], storeEnv(second));
    expect(twice.stdout).toMatch(/^restored 0 files, lengthened 0, \d+ already the same; \d+ keys in the folder, 0 pushed/);

    // Near miss: with the bucket answering and holding every key, keep leaves the keys out.
    const lean = await runCli('collector/ops/store-cli.ts', ['keep', join(kept, 'lean'), '--data', fresh], storeEnv(second));
    expect(lean.stdout).toMatch(/^kept [1-9]\d* files and 0 keys \(the cached keys s3:\/\/.* lacks; /);

    const resumed = await collect(fresh, storeEnv(second));
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const rows = rowsOf(fresh);
    expect(rows.slice(0, before.length)).toEqual(before);
    // Every target of the roster once (the world's names may list more targets than endpoints).
    expect(rows.length).toBeGreaterThanOrEqual(ENDPOINTS);
    expect(new Set(rows.map((r) => r.target)).size).toBe(rows.length);
    expect(readFileSync(join(fresh, 'runs.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1); // finished once
    expect(new Set(rows.map((r) => r.run_id))).toEqual(new Set([before[0]!.run_id]));

    const verify = await runCli('collector/ops/verify-cli.ts', ['--data', fresh, '--full'], storeEnv(second));
    expect(verify.stdout).toContain('ok: no problems');
    expect(verify.code).toBe(0);
  }, 180_000);

  it('restore refuses a kept folder whose file does not match kept.json, and one that would shorten a file, before writing anything', async () => {
    const runner = temp('mcps-keep-bad-');
    const { writeFileSync, mkdirSync, appendFileSync } = await import('node:fs');
    mkdirSync(join(runner, 'observations'), { recursive: true });
    writeFileSync(join(runner, 'observations', `${DAY}.jsonl`), '{"a":1}\n{"a":2}\n');
    writeFileSync(join(runner, 'runs.jsonl'), '{"mine":true}\n');
    const kept = join(temp('mcps-kept-bad-'), 'day');
    expect((await runCli('collector/ops/store-cli.ts', ['keep', kept, '--data', runner], {})).code).toBe(0);
    // The folder it goes back to holds more of the day file than was kept, and a different runs.jsonl.
    const target = temp('mcps-keep-target-');
    mkdirSync(join(target, 'observations'), { recursive: true });
    writeFileSync(join(target, 'observations', `${DAY}.jsonl`), '{"a":1}\n{"a":2}\n{"a":3}\n');
    writeFileSync(join(target, 'runs.jsonl'), '{"other":true}\n');
    const conflict = await runCli('collector/ops/store-cli.ts', ['restore', kept, '--data', target], {});
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toBe("store: runs.jsonl: the folder's copy and the kept one differ (neither is the start of the other): nothing restored; compare them by hand\n");
    expect(readFileSync(join(target, 'observations', `${DAY}.jsonl`), 'utf8')).toBe('{"a":1}\n{"a":2}\n{"a":3}\n');
    // Near miss: without the conflict, the longer day file stays as it is and the restore goes through.
    writeFileSync(join(target, 'runs.jsonl'), '');
    const ok = await runCli('collector/ops/store-cli.ts', ['restore', kept, '--data', target], {});
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(new RegExp(`^restored 0 files, lengthened 1, \\d+ already the same, 1 longer here \\(kept as they are: observations/${DAY}\\.jsonl\\)`));
    expect(readFileSync(join(target, 'runs.jsonl'), 'utf8')).toBe('{"mine":true}\n');
    expect(readFileSync(join(target, 'observations', `${DAY}.jsonl`), 'utf8')).toBe('{"a":1}\n{"a":2}\n{"a":3}\n');
    // A kept file changed after keep: refused by name.
    appendFileSync(join(kept, 'observations', `${DAY}.jsonl`), '{"forged":true}\n');
    const forged = await runCli('collector/ops/store-cli.ts', ['restore', kept, '--data', temp('mcps-keep-t2-')], {});
    expect(forged.code).toBe(1);
    expect(forged.stderr).toMatch(new RegExp(`^store: observations/${DAY}\\.jsonl in .* is not the file kept`));
    // A kept.json naming a path outside what a kept day holds is refused by name, nothing written.
    const hostile = join(temp('mcps-kept-hostile-'), 'day');
    mkdirSync(hostile, { recursive: true });
    writeFileSync(join(hostile, 'kept.json'), JSON.stringify({ format: 'mcp-schema/kept-day@1', now: null, files: [{ path: '../../etc/cron.d/x', sha256: '0'.repeat(64), bytes: 0 }] }));
    const refused = await runCli('collector/ops/store-cli.ts', ['restore', hostile, '--data', target], {});
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('store: kept.json names "../../etc/cron.d/x", which a kept day never holds\n');
  });
});
