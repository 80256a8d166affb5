// The validation worksheet's curl commands (collector/ops/validation.ts curlCommands): run through a
// real shell with a `curl` on PATH that only prints the arguments it was given, so what a reviewer's
// shell would hand curl is checked word for word — hostile registry URLs included, and nothing else
// runs. The end-to-end gate (draw → curl against loopback servers → score → record → page) is
// test/site/validation-gate.test.ts.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { curlCommands, worksheetMarkdown } from '../../../collector/ops/validation.ts';
import { discoverBody, initializeBody, modernHeaders } from '../../../collector/probe-v2/requests.ts';
import { WORKSHEET_FORMAT, type Worksheet } from '../../../src/lib/index.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'mcps-curl-'));
const bin = path.join(dir, 'bin');
execFileSync('mkdir', ['-p', bin]);
writeFileSync(path.join(bin, 'curl'), `#!/usr/bin/env node\nprocess.stdout.write(JSON.stringify(process.argv.slice(2)));\n`);
chmodSync(path.join(bin, 'curl'), 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The argv curl would get from `command`, in `sh`, with `env`. */
function argv(command: string, env: Record<string, string> = {}): string[] {
  return JSON.parse(execFileSync('sh', ['-c', command], { cwd: dir, env: { PATH: `${bin}:${process.env.PATH}`, ...env }, encoding: 'utf8' })) as string[];
}
const valueOf = (args: string[], flag: string) => args[args.indexOf(flag) + 1];
const headersOf = (args: string[]) => args.flatMap((a, i) => (args[i - 1] === '--header' ? [a] : []));

describe('curlCommands', () => {
  const hostile = "https://evil.example/$(touch pwned)/'x'/`touch pwned2`/[a]{b};rm -rf x?q='1'&r=$HOME";
  const commands = curlCommands(hostile, 'Bearer realm="x", resource_metadata="https://evil.example/meta\'$(touch pwned3)"');

  it('quotes every word: a hostile URL reaches curl as one argument, its WHATWG form, and runs nothing', () => {
    expect(commands.length).toBeGreaterThanOrEqual(12);
    for (const c of commands) {
      const args = argv(c.command);
      expect(args[0], c.step).toBe('--silent');
      expect(args).toContain('--globoff');
      expect(args.at(-2)).toBe('--url');
    }
    expect(valueOf(argv(commands[0]!.command), '--url')).toBe(new URL(hostile).href);
    for (const f of ['pwned', 'pwned2', 'pwned3']) expect(existsSync(path.join(dir, f)), f).toBe(false);
  });

  it("sends the probe's own bytes: discover with the 2026-07-28 headers, then initialize as the legacy fallback", () => {
    const discover = argv(commands[0]!.command);
    expect(valueOf(discover, '--request')).toBe('POST');
    expect(valueOf(discover, '--data-raw')).toBe(discoverBody());
    expect(headersOf(discover)).toEqual(Object.entries(modernHeaders('server/discover')).map(([k, v]) => `${k}: ${v}`));
    const init = argv(commands.find((c) => c.step.startsWith('4.'))!.command);
    expect(valueOf(init, '--data-raw')).toBe(initializeBody('2025-11-25'));
    expect(headersOf(init).some((h) => h.startsWith('mcp-protocol-version'))).toBe(false);
    expect(commands.find((c) => c.step.startsWith('3.'))!.command).toContain("'mcp-name: mcp-schema.probe.nonexistent-tool'");
  });

  it('the legacy session headers come from MCP_SESSION and MCP_PV when set, and are left out when not', () => {
    const list = commands.find((c) => c.step.startsWith('7.'))!.command;
    expect(headersOf(argv(list)).filter((h) => h.startsWith('mcp-'))).toEqual([]);
    expect(headersOf(argv(list, { MCP_SESSION: "s 1'$(x)", MCP_PV: '2025-06-18' })).filter((h) => h.startsWith('mcp-'))).toEqual(["mcp-session-id: s 1'$(x)", 'mcp-protocol-version: 2025-06-18']);
  });

  it("RFC 9728: the challenge's resource_metadata URL, then the well-known URLs from the path and at the root, by GET", () => {
    const lookups = commands.filter((c) => c.step.includes('RFC 9728')).map((c) => argv(c.command));
    const u = new URL(hostile);
    expect(lookups.map((a) => valueOf(a, '--url'))).toEqual([new URL("https://evil.example/meta'$(touch pwned3)").href, `${u.origin}/.well-known/oauth-protected-resource${u.pathname}${u.search}`, `${u.origin}/.well-known/oauth-protected-resource`]);
    for (const a of lookups) expect(headersOf(a)[0]).toBe('accept: application/json');
    // Without a challenge, no hint lookup; an endpoint at the root has no path form.
    expect(curlCommands('https://plain.example/', null).filter((c) => c.step.includes('RFC 9728'))).toHaveLength(1);
    expect(curlCommands('not a url', null)).toEqual([]);
    // A hint naming the well-known URL itself is one lookup, as the probe fetches it once.
    const same = curlCommands('https://x.example/mcp', 'Bearer resource_metadata="https://x.example/.well-known/oauth-protected-resource/mcp"').filter((c) => c.step.includes('RFC 9728'));
    expect(same.map((c) => c.step)).toEqual(["11. RFC 9728: the challenge's resource_metadata URL", '12. RFC 9728: the well-known URL at the root']);
  });

  it('the Markdown shows registry text as code, control characters escaped, and the recorded statuses only at the end', () => {
    const ws: Worksheet = {
      format: WORKSHEET_FORMAT, run_id: 'r', run_day: '2026-12-01', prober_version: 'p', seed: 1, n: 1, rule: 'rule', vocabulary: ['ok'], population: { ok: 1 }, allocation: { ok: 1 },
      endpoints: [{ target: 'evil`\u001b[31m|name', endpoint: hostile, recorded: { status: 'ok', era: 'legacy', protocol_version: null, step: null, http_status: null, jsonrpc_code: null, detail: 'a|b', www_authenticate: null, auth_metadata_url: null, tool_count: 1, canary_in_channel: null }, objects: [], curl: commands, reviewer_status: null, reviewer_note: null }],
    };
    const md = worksheetMarkdown(ws, 'w.json');
    expect(md).not.toContain('\u001b');
    expect(md).toContain('`` evil`\\u001b[31m|name ``');
    const end = md.indexOf('What the archive recorded');
    expect(md.slice(0, end)).not.toMatch(/\| ok \| legacy \|/);
    expect(md.slice(end)).toMatch(/\| ok \| legacy \|/);
  });
});
