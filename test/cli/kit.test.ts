// The shared CLI convention (collector/cli-kit): the validators' one wording and their edges, and
// execute's one error path (help, a CliError, a bug of ours: exit 70, the stack only when asked).
import { describe, expect, it } from 'vitest';
import { CliError, command, day, duration, execute, existing, expected, integer, isoTime, month, oneOf, required, url } from '../../collector/cli-kit/index.ts';

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof CliError ? `${e.exitCode} ${e.message}` : `not a CliError: ${String(e)}`;
  }
  return 'accepted';
};

describe('validators', () => {
  it('integer: decimal digits within the bounds, one wording', () => {
    expect(integer('limit', '1', { min: 1 })).toBe(1);
    expect(integer('limit', undefined, { min: 1 })).toBeUndefined();
    expect(refusal(() => integer('limit', '0', { min: 1 }))).toBe('2 --limit must be an integer ≥ 1, got "0"');
    expect(refusal(() => integer('limit', 'x', { min: 1 }))).toBe('2 --limit must be an integer ≥ 1, got "x"');
    for (const v of ['1e3', '-1', ' 1', '1.0', '', '99999999999999999999']) expect(refusal(() => integer('n', v, { min: 0 })), v).toMatch(/^2 --n must be an integer ≥ 0, got /);
    expect(integer('port', '65535', { min: 0, max: 65535 })).toBe(65535);
    expect(refusal(() => integer('port', '65536', { min: 0, max: 65535 }))).toBe('2 --port must be an integer from 0 to 65535, got "65536"');
  });

  it('duration: h, m, s, ms and none; nothing else', () => {
    expect(duration('deadline', '5h')).toBe(5 * 3_600_000);
    expect(duration('deadline', '90m')).toBe(5_400_000);
    expect(duration('deadline', '600s')).toBe(600_000);
    expect(duration('deadline', '1.5s')).toBe(1500);
    expect(duration('deadline', '1500ms')).toBe(1500);
    expect(duration('deadline', 'none')).toBeNull();
    expect(duration('deadline', undefined)).toBeUndefined();
    for (const v of ['5', '0h', '5d', 'h', '5 h', '-5h']) expect(refusal(() => duration('deadline', v)), v).toBe(`2 --deadline must be a duration such as 5h, 90m or 600s (or none), got ${JSON.stringify(v)}`);
  });

  it('day, month, ISO time, URL, one of, an existing path, a required value', () => {
    expect(day('today', '2026-02-28')).toBe('2026-02-28');
    for (const v of ['2026-02-30', '2026-13-01', '2026-2-01', '20260201']) expect(refusal(() => day('today', v)), v).toBe(`2 --today must be a day, YYYY-MM-DD, got ${JSON.stringify(v)}`);
    expect(month('month', '2026-12')).toBe('2026-12');
    expect(refusal(() => month('month', '2026-13'))).toBe('2 --month must be a month, YYYY-MM, got "2026-13"');
    expect(isoTime('now', '2026-05-01T03:15:00Z')?.toISOString()).toBe('2026-05-01T03:15:00.000Z');
    expect(refusal(() => isoTime('now', 'yesterday'))).toBe('2 --now must be an ISO time such as 2026-05-01T03:15:00Z, got "yesterday"');
    expect(url('registry', 'http://127.0.0.1:1/v0/servers')).toBe('http://127.0.0.1:1/v0/servers');
    expect(refusal(() => url('registry', 'file:///etc/passwd'))).toBe('2 --registry must be an http(s) URL, got "file:///etc/passwd"');
    expect(oneOf('fail-on', 'WARN', ['ERR', 'WARN'] as const)).toBe('WARN');
    expect(refusal(() => oneOf('fail-on', 'warn', ['ERR', 'WARN'] as const))).toBe('2 --fail-on must be one of ERR, WARN, got "warn"');
    expect(existing('data', import.meta.dirname, 'dir')).toBe(import.meta.dirname);
    expect(refusal(() => existing('data', import.meta.filename, 'dir'))).toMatch(/^2 --data must be an existing folder, got /);
    expect(refusal(() => required('dir', undefined, 'the folder to upload'))).toBe('2 --dir is required: the folder to upload');
    // Hostile values are cut, quoted: no newline reaches the terminal raw.
    expect(refusal(() => integer('n', `1\n${'x'.repeat(100)}`, { min: 0 }))).toMatch(/^2 --n must be an integer ≥ 0, got "1\\nx{58}…"$/);
  });
});

describe('execute: one error path', () => {
  const c = command({ name: 'demo-cmd', help: 'usage: demo-cmd [--n <n>]\n\nexit codes: 0 done', options: { n: { type: 'string' } }, positionals: 1 });
  const io = (env: NodeJS.ProcessEnv = {}) => {
    const out = { stdout: '', stderr: '' };
    return { out, io: { stdout: (t: string) => void (out.stdout += t), stderr: (t: string) => void (out.stderr += t), env } };
  };

  it('-h and --help print the help on stdout and exit 0 without running the command', async () => {
    for (const flag of ['-h', '--help']) {
      const { out, io: i } = io();
      expect(await execute(c, () => 5, [flag], i)).toBe(0);
      expect(out.stdout).toBe('usage: demo-cmd [--n <n>]\n\nexit codes: 0 done\n');
      expect(out.stderr).toBe('');
    }
  });

  it('returns the run\'s code; void is 0', async () => {
    expect(await execute(c, () => 1, [], io().io)).toBe(1);
    expect(await execute(c, () => {}, ['one'], io().io)).toBe(0);
  });

  it('a CliError is `<command>: <message>` with its code; a stray argument or an unknown option is a usage error', async () => {
    const a = io();
    expect(await execute(c, () => { throw new CliError('locked', 3); }, [], a.io)).toBe(3);
    expect(a.out.stderr).toBe('demo-cmd: locked\n');
    const b = io();
    expect(await execute(c, () => 0, ['one', 'two'], b.io)).toBe(2);
    expect(b.out.stderr).toBe('demo-cmd: takes at most 1 argument, got 2 (see --help)\n');
    const d = io();
    expect(await execute(c, () => 0, ['--m', '1'], d.io)).toBe(2);
    expect(d.out.stderr).toBe("demo-cmd: Unknown option '--m' (see --help)\n");
    const e = io();
    expect(await execute(c, () => 0, ['--n'], e.io)).toBe(2);
    expect(e.out.stderr).toMatch(/^demo-cmd: Option '--n <value>' argument missing/);
  });

  it('anything else is a bug of ours: one line and exit 70; the stack only with MCP_SCHEMA_DEBUG=1', async () => {
    const boom = () => {
      throw new TypeError('x is not a function\nsecond line');
    };
    const quiet = io();
    expect(await execute(c, boom, [], quiet.io)).toBe(70);
    expect(quiet.out.stderr).toBe('demo-cmd: unexpected failure (a bug of ours; MCP_SCHEMA_DEBUG=1 prints its stack): x is not a function\n');
    const loud = io({ MCP_SCHEMA_DEBUG: '1' });
    expect(await execute(c, boom, [], loud.io)).toBe(70);
    expect(loud.out.stderr).toMatch(/^demo-cmd: unexpected failure .*\nTypeError: x is not a function\nsecond line\n\s+at /);
  });

  it('expected(): the work\'s own failures become exit 1 (or the code given), a TypeError stays a bug', async () => {
    const failing = io();
    expect(await execute(c, () => expected(Promise.reject(new Error('the store did not answer'))), [], failing.io)).toBe(1);
    expect(failing.out.stderr).toBe('demo-cmd: the store did not answer\n');
    expect(await execute(c, () => expected(() => { throw new Error('bad key'); }, 2), [], io().io)).toBe(2);
    expect(await execute(c, () => expected(() => { throw new TypeError('bug'); }), [], io().io)).toBe(70);
  });
});
