// A tiny static server for a built site on 127.0.0.1 (ephemeral port): directories serve index.html,
// types from the extension, files without one as octet-stream (as GitHub Pages does).
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript', '.json': 'application/json', '.xml': 'application/xml',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.csv': 'text/csv', '.gz': 'application/gzip', '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm', '.cff': 'text/plain; charset=utf-8', '.pf_meta': 'application/octet-stream',
};

export interface StaticSite {
  origin: string;
  close(): Promise<void>;
}

/** Serve a folder; `notFound` (a file in it, e.g. 404.html) answers a missing path with status 404, as GitHub Pages does. */
export async function serveStatic(root: string, opts: { notFound?: string } = {}): Promise<StaticSite> {
  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      let file = path.join(root, decodeURIComponent(url.pathname));
      if (!file.startsWith(root)) throw new Error('outside root');
      if ((await stat(file).catch(() => null))?.isDirectory()) file = path.join(file, 'index.html');
      const s = await stat(file);
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'Content-Length': s.size });
      createReadStream(file).pipe(res);
    } catch {
      if (opts.notFound) {
        const body = await readFile(path.join(root, opts.notFound)).catch(() => null);
        if (body) return void res.writeHead(404, { 'Content-Type': 'text/html; charset=utf-8' }).end(body);
      }
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
