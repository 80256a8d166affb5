// A published mcp-schema archive, read from its static files only: a base URL (the public
// site, or any copy of it) or a local folder holding a built site (dist/). The check and the MCP
// server read descriptors, tools files, set files, feeds and index shards through this one reader;
// nothing here knows the archive's data/ layout, and nothing is a second implementation of the site.
//
// The files are the archive's, but every string in them that came from a registry or a server is
// still hostile text: callers print it as data (text.ts).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { FILE_HOST_INDEX_PATH, onFileHost } from '../../src/lib/index.ts';
import { USER_AGENT } from '../version.ts';

/** No published file the check reads is near this (a tools file is tens of KB; 8 MiB is a tools/list cap). */
export const ARCHIVE_FILE_CAP = 16 * 1024 * 1024;
const TIMEOUT_MS = 20_000;

export class ArchiveUnavailable extends Error {
  override readonly name = 'ArchiveUnavailable';
}

export type ArchiveRead = { found: true; text: string; url: string } | { found: false; url: string };

export class PublishedArchive {
  readonly kind: 'url' | 'folder';
  private readonly base: string;
  /** The archive's own permalink prefix, learnt from the first descriptor's self_url (see learnPrefix). */
  private prefix: string | null = null;

  constructor(base: string) {
    if (/^https?:\/\//i.test(base)) {
      let u: URL;
      try {
        u = new URL(base);
      } catch {
        throw new ArchiveUnavailable(`--archive is not a valid URL: ${JSON.stringify(base.slice(0, 200))}`);
      }
      this.kind = 'url';
      this.base = u.href.replace(/\/*$/, '/');
    } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(base)) {
      throw new ArchiveUnavailable(`--archive must be an http(s) URL or a folder, got ${JSON.stringify(base.slice(0, 200))}`);
    } else {
      this.kind = 'folder';
      this.base = path.resolve(base);
    }
  }

  /** Where the archive is, as the user named it (for the report). */
  get where(): string {
    return this.base;
  }

  /** The location of a site path (`/api/servers/x.json`) in this archive. */
  locate(sitePath: string): string {
    const rel = sitePath.replace(/^\/+/, '');
    return this.kind === 'url' ? new URL(rel.split('/').map(encodeURIComponent).join('/'), this.base).href : path.join(this.base, ...rel.split('/'));
  }

  /** Read a site path; `found: false` for a file the archive does not have (404, or no such file). */
  async read(sitePath: string): Promise<ArchiveRead> {
    // A site path names a file inside the archive: never a step out of it.
    if (sitePath.split('/').some((seg) => seg === '..' || seg === '.' || seg.includes('\\') || seg.includes('\0'))) return { found: false, url: sitePath };
    if (onFileHost(sitePath)) {
      const host = await (this.#fileHost ??= this.findFileHost());
      if (host !== null) return this.readAt(new URL(sitePath.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/'), host).href);
    }
    return this.readAt(this.locate(sitePath));
  }

  #fileHost: Promise<string | null> | undefined;

  /**
   * Where the archive's machine-readable files are: a site published with a file host (src/lib/
   * file-host.ts) says so in /api/index.json, and its descriptors, tools and set files, indexes and
   * feeds are read there. Null: they are in this archive (no index, or one naming no other host).
   */
  private async findFileHost(): Promise<string | null> {
    const r = await this.readAt(this.locate(FILE_HOST_INDEX_PATH));
    if (!r.found) return null;
    let host: unknown;
    try {
      host = (JSON.parse(r.text) as { file_host?: unknown } | null)?.file_host;
    } catch {
      throw new ArchiveUnavailable(`the archive's ${FILE_HOST_INDEX_PATH} is not JSON (${r.url})`);
    }
    if (host === null || host === undefined) return null;
    let u: URL;
    try {
      u = new URL(String(host));
    } catch {
      throw new ArchiveUnavailable(`the archive's ${FILE_HOST_INDEX_PATH} names a file host that is not a URL (${JSON.stringify(String(host).slice(0, 120))})`);
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new ArchiveUnavailable(`the archive's ${FILE_HOST_INDEX_PATH} names a file host that is not http(s) (${JSON.stringify(u.href.slice(0, 120))})`);
    const base = u.href.replace(/\/*$/, '/');
    if (this.kind === 'folder') {
      throw new ArchiveUnavailable(`this site folder was built with a file host, ${base}, which holds its descriptors and tools files: pass that URL as --archive (or the folder the build wrote with MCP_SCHEMA_FILES_DIR)`);
    }
    return base === this.base ? null : base;
  }

  /** Read a site path as JSON; null when absent; ArchiveUnavailable when it is not JSON. */
  async json(sitePath: string): Promise<{ value: unknown; url: string } | null> {
    const r = await this.read(sitePath);
    if (!r.found) return null;
    try {
      return { value: JSON.parse(r.text) as unknown, url: r.url };
    } catch {
      throw new ArchiveUnavailable(`the archive's ${sitePath} is not JSON (${r.url})`);
    }
  }

  /**
   * Remember the archive's permalink prefix: a descriptor's `self_url` is `<prefix>/api/servers/<slug>.json`.
   * A permalink in any file can then be read from this archive, wherever it is served or copied.
   */
  learnPrefix(selfUrl: unknown, sitePath: string): void {
    if (typeof selfUrl === 'string' && selfUrl.endsWith(sitePath)) this.prefix = selfUrl.slice(0, selfUrl.length - sitePath.length);
  }

  /**
   * Where a permalink from one of the archive's files is in the copy being read (on its file host when
   * it has one): links handed on name the copy the reader chose, never the default domain. A link that
   * is not one of the archive's own is returned as it is.
   */
  async here(url: string): Promise<string> {
    if (this.prefix === null || !url.startsWith(`${this.prefix}/`)) return url;
    let sitePath: string;
    try {
      sitePath = decodeURIComponent(url.slice(this.prefix.length));
    } catch {
      return url;
    }
    if (onFileHost(sitePath)) {
      const host = await (this.#fileHost ??= this.findFileHost());
      if (host !== null) return new URL(sitePath.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/'), host).href;
    }
    return this.locate(sitePath);
  }

  /** Read a permalink from one of the archive's files: through this archive when it is one of its own, else (a URL archive only) as it is. */
  async readPermalink(url: string): Promise<ArchiveRead> {
    if (this.prefix !== null && url.startsWith(`${this.prefix}/`)) {
      let sitePath: string;
      try {
        sitePath = decodeURIComponent(url.slice(this.prefix.length));
      } catch {
        return { found: false, url };
      }
      return this.read(sitePath);
    }
    if (this.kind === 'url' && /^https?:\/\//i.test(url)) return this.readAt(url);
    return { found: false, url };
  }

  private async readAt(where: string): Promise<ArchiveRead> {
    if (this.kind === 'folder' && !/^https?:\/\//i.test(where)) {
      try {
        const buf = await readFile(where);
        if (buf.length > ARCHIVE_FILE_CAP) throw new ArchiveUnavailable(`${where} is over ${ARCHIVE_FILE_CAP} bytes`);
        return { found: true, text: buf.toString('utf8'), url: where };
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return { found: false, url: where };
        if (e instanceof ArchiveUnavailable) throw e;
        throw new ArchiveUnavailable(`cannot read the archive folder: ${(e as Error).message}`);
      }
    }
    let res: Response;
    try {
      res = await fetch(where, { headers: { 'user-agent': USER_AGENT, accept: 'application/json, */*' }, redirect: 'follow', signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (e) {
      throw new ArchiveUnavailable(`the archive at ${this.base} could not be reached (${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message})`);
    }
    if (res.status === 404 || res.status === 410) {
      await res.body?.cancel();
      return { found: false, url: where };
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new ArchiveUnavailable(`the archive answered HTTP ${res.status} for ${where}`);
    }
    const len = Number(res.headers.get('content-length') ?? 0);
    if (len > ARCHIVE_FILE_CAP) {
      await res.body?.cancel();
      throw new ArchiveUnavailable(`${where} is over ${ARCHIVE_FILE_CAP} bytes`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of res.body ?? []) {
      size += (chunk as Uint8Array).length;
      if (size > ARCHIVE_FILE_CAP) throw new ArchiveUnavailable(`${where} is over ${ARCHIVE_FILE_CAP} bytes`);
      chunks.push(chunk as Uint8Array);
    }
    return { found: true, text: Buffer.concat(chunks).toString('utf8'), url: where };
  }
}
