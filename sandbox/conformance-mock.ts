// The official conformance suite's mock MCP server (@modelcontextprotocol/conformance), run as a child
// process on loopback. For revision 2026-07-28 its client scenarios serve a stateless, modern-only mock
// (src/mock-server/stateless.ts upstream): it answers server/discover, validates MCP-Protocol-Version and
// the `_meta` envelope, and routes the scenario's methods. It is the suite's own idea of a modern server,
// written independently of SDK v2, which is why the zoo carries it.
//
// Why a child process: the package ships one minified CLI bundle with no exports, so nothing can be
// imported; its `client --scenario S` command without `--command` is the suite's interactive mode —
// it starts the scenario's mock, prints "Server URL: …" and serves until SIGINT/SIGTERM. No network:
// the mock is express on loopback (see conformance-preload.mjs for the three Node 20 / loopback fixes).
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { request as httpRequest } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Serve } from './era-sdk.ts';

export interface ConformanceMock {
  /** The mock's MCP endpoint, on 127.0.0.1 (the suite prints `localhost`). */
  url: string;
  /** SIGTERM (the suite's own shutdown: it stops the scenario and exits), then wait for the exit. */
  close(): Promise<void>;
}

/** Start the suite's mock for `scenario` at `specVersion` (tools_call at 2026-07-28: one tool, add_numbers). */
export async function startConformanceMock(opts: { scenario?: string; specVersion?: string } = {}): Promise<ConformanceMock> {
  const require = createRequire(import.meta.url);
  // The package has no "main"/"exports": resolve its package.json and take the bin from there.
  const pkgPath = require.resolve('@modelcontextprotocol/conformance/package.json');
  const bin = join(dirname(pkgPath), (require(pkgPath) as { bin: { conformance: string } }).bin.conformance);
  const preload = join(dirname(fileURLToPath(import.meta.url)), 'conformance-preload.mjs');
  const child = spawn(
    process.execPath,
    ['--import', preload, bin, 'client', '--scenario', opts.scenario ?? 'tools_call', '--spec-version', opts.specVersion ?? '2026-07-28'],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let url: string;
  try {
    url = await serverUrl(child);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  const exited = new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
  return {
    url,
    async close() {
      if (child.exitCode === null) child.kill('SIGTERM');
      child.stdin?.end();
      await exited;
    },
  };
}

/** Resolve with the URL the suite prints, or reject with what it said if it exits first. */
function serverUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Server URL: (http:\/\/localhost:(\d+)\/\S*)/.exec(out);
      if (m) resolve(m[1]!.replace('//localhost:', '//127.0.0.1:'));
    });
    child.once('exit', (code) => reject(new Error(`conformance mock exited (${code}) before serving: ${(err || out).slice(-600)}`)));
    child.once('error', reject);
  });
}

/**
 * Forward a request verbatim to `target` (an origin on loopback) and stream the answer back, so the
 * zoo can record what a client sent to a server it does not control.
 */
export function forwardTo(target: string): Serve {
  const base = new URL(target);
  return (req, res, body) =>
    new Promise<void>((resolve) => {
      const headers = { ...req.headers, host: base.host };
      delete headers['content-length'];
      if (body.length > 0) headers['content-length'] = String(body.length);
      const upstream = httpRequest({ hostname: base.hostname, port: base.port, path: req.url, method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', resolve);
        answer.on('error', () => resolve());
      });
      upstream.on('error', (e) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`era zoo proxy: ${e.message}`);
        resolve();
      });
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
}
