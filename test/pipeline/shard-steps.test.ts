// The steps of the sharded day and of the planned full verify, with stand-ins for npm on PATH (the
// real commands run in test/pipeline/sharded-day.test.ts): the matrix each plan hands the workflow
// through GITHUB_OUTPUT, a collector output that is no shard list refused, the day kept when the
// store stops seal or close (exit 5) and only then, restore's refusal of an empty folder, a resumed
// seal of a run sealed before, and verify-copy skipping cleanly without a copy.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Ctx } from '../../pipeline/exec.ts';
import { clockOf, plan, probe, restore, seal, verifyCopy, verifyPlan } from '../../pipeline/shards.ts';
import { close } from '../../pipeline/steps.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An npm stand-in that logs its arguments and runs `body`; a runner temp; a GITHUB_OUTPUT file. */
function sandbox(npm: string) {
  const bin = mkdtempSync(path.join(tmpdir(), 'mcp-schema-shard-steps-'));
  dirs.push(bin);
  const log = path.join(bin, 'calls.log');
  writeFileSync(path.join(bin, 'npm'), `#!/bin/bash\necho "npm $*" >> "${log}"\n${npm}\n`, { mode: 0o755 });
  const env: NodeJS.ProcessEnv = { PATH: `${bin}:${process.env.PATH}`, HOME: bin, RUNNER_TEMP: path.join(bin, 'temp'), GITHUB_OUTPUT: path.join(bin, 'output') };
  const lines: string[] = [];
  const ctx = (step: string, collectArgs: string[] = []): Ctx => ({ env, cwd: bin, data: 'data', collectArgs, step, log: (l) => lines.push(l) });
  const calls = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);
  const outputs = () => (existsSync(env.GITHUB_OUTPUT!) ? readFileSync(env.GITHUB_OUTPUT!, 'utf8') : '');
  return { bin, env, ctx, lines, calls, outputs };
}

describe('plan', () => {
  it("hands the workflow the plan's shards as a matrix and the run's clock", async () => {
    const s = sandbox(`echo '{"run_id":"2026-05-01T031500Z","shards":[0,1,2]}'`);
    const r = await plan(s.ctx('plan', ['--now', '2026-05-01T03:15:00.456Z', '--allow-private']));
    expect(r).toEqual({ shards: [0, 1, 2], now: '2026-05-01T03:15:00Z' });
    expect(s.outputs()).toBe('matrix={"shard":[0,1,2]}\nnow=2026-05-01T03:15:00Z\n');
    expect(s.calls()).toEqual([`npm run --silent collect -- plan --json --work ${path.join(s.bin, 'temp', 'collect-work')} --data data --now 2026-05-01T03:15:00.456Z --allow-private`]);
  });

  it('refuses a collector output that is no shard list 0..n-1 (no matrix is written)', async () => {
    for (const printed of ['> mcp-schema collect', '{"shards":[]}', '{"shards":[0,2]}']) {
      const s = sandbox(`echo '${printed}'`);
      await expect(plan(s.ctx('plan'))).rejects.toMatchObject({ exitCode: 1, message: expect.stringMatching(/^plan: the collector printed no shard list 0\.\.n-1/) });
      expect(s.outputs()).toBe('');
    }
  });

  it("the clock: COLLECT_NOW, else --now, else now to the second; a clock that is no ISO time is refused", () => {
    const s = sandbox('');
    expect(clockOf(s.ctx('plan'), new Date('2026-05-01T03:15:07.999Z'))).toBe('2026-05-01T03:15:07Z');
    s.env.COLLECT_NOW = '2026-05-02T03:15:00Z';
    expect(clockOf(s.ctx('plan', ['--now', '2026-05-01T03:15:00Z']))).toBe('2026-05-02T03:15:00Z');
    s.env.COLLECT_NOW = 'yesterday';
    expect(() => clockOf(s.ctx('plan'))).toThrow(/the run's clock must be an ISO time, got "yesterday"/);
  });
});

describe('probe', () => {
  it('needs its shard after --, and probes into the work folder', async () => {
    const s = sandbox('');
    await expect(probe(s.ctx('probe'))).rejects.toMatchObject({ exitCode: 2 });
    await probe(s.ctx('probe', ['--shard', '1']));
    expect(s.calls()).toEqual([`npm run collect -- probe --work ${path.join(s.bin, 'temp', 'collect-work')} --shard 1`]);
  });
});

describe('the day the store stopped', () => {
  it('seal exiting 5 keeps the day (with the plan\'s clock) and fails with 5; exiting 1 keeps nothing', async () => {
    const s = sandbox('case " $* " in *" seal "*) exit 5 ;; esac');
    const work = path.join(s.bin, 'temp', 'collect-work');
    mkdirSync(work, { recursive: true });
    writeFileSync(path.join(work, 'plan.json'), JSON.stringify({ clock: '2026-05-01T03:15:00.000Z' }));
    await expect(seal(s.ctx('seal'))).rejects.toMatchObject({ exitCode: 5, message: expect.stringMatching(/^seal: the object store failed: the day is kept in .*kept-day \(artifact collect-kept-day\)/) });
    expect(s.calls().at(-1)).toBe(`npm run store -- keep ${path.join(s.bin, 'temp', 'kept-day')} --now 2026-05-01T03:15:00.000Z --data data`);
    const other = sandbox('case " $* " in *" seal "*) exit 1 ;; esac');
    await expect(seal(other.ctx('seal'))).rejects.toMatchObject({ exitCode: 1 });
    expect(other.calls().some((c) => c.includes(' keep '))).toBe(false);
  });

  it('a resumed seal of a run sealed before the store stopped goes on (exit 4 then only); close keeps the day when offload fails', async () => {
    const s = sandbox('case " $* " in *" seal "*) exit 4 ;; *" offload "*) exit 1 ;; esac');
    await expect(seal(s.ctx('seal'))).rejects.toMatchObject({ exitCode: 1 });
    s.env.RESUME_RUN_ID = '77';
    await seal(s.ctx('seal'));
    expect(s.lines.at(-1)).toBe('seal: the resumed run was sealed before the store stopped: on to close');
    s.env.MCP_SCHEMA_STORE = 's3://b/p';
    await expect(close(s.ctx('close'))).rejects.toMatchObject({ exitCode: 5, message: expect.stringMatching(/^close: the object store failed during offload/) });
    expect(s.calls().at(-1)).toMatch(/^npm run store -- keep \S+kept-day --data data$/);
  });

  it('restore refuses an empty or missing folder, and restores a kept one', async () => {
    const s = sandbox('');
    await expect(restore(s.ctx('restore'))).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/^restore: no kept day in /) });
    mkdirSync(path.join(s.bin, 'temp', 'kept-day'), { recursive: true });
    await expect(restore(s.ctx('restore'))).rejects.toMatchObject({ exitCode: 2 });
    writeFileSync(path.join(s.bin, 'temp', 'kept-day', 'kept.json'), '{}');
    await restore(s.ctx('restore'));
    expect(s.calls()).toEqual([`npm run store -- restore ${path.join(s.bin, 'temp', 'kept-day')} --data data`]);
  });
});

describe('verify-plan and verify-copy', () => {
  it("hands the workflow verify's parts and whether a copy is configured; refuses output that is no part list", async () => {
    const s = sandbox(`echo '{"parts":3,"matrix":{"part":[1,2,3]}}'`);
    expect(await verifyPlan(s.ctx('verify-plan'))).toEqual([1, 2, 3]);
    expect(s.outputs()).toBe('matrix={"part":[1,2,3]}\nparts=3\ncopy=false\n');
    const bad = sandbox(`echo '{"matrix":{"part":[0,1]}}'`);
    await expect(verifyPlan(bad.ctx('verify-plan'))).rejects.toThrow(/^verify-plan: verify printed no part list 1\.\.n/);
  });

  it('checks part k/n of the copy when one is configured, and nothing otherwise', async () => {
    const s = sandbox('');
    await verifyCopy(s.ctx('verify-copy'), '2/3');
    expect(s.calls()).toEqual([]);
    expect(s.lines).toEqual(['verify-copy: no second copy (MCP_SCHEMA_STORE_COPY unset): nothing to check']);
    s.env.MCP_SCHEMA_STORE_COPY = 's3://copy/p';
    await verifyCopy(s.ctx('verify-copy'), '2/3');
    expect(s.calls()).toEqual(['npm run verify -- --against copy --part 2/3 --data data']);
  });
});
