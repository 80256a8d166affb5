// The raw bodies of every contract version and change (what server pages link to), of each server's
// latest successful answer, of each set hash and body finding (what the descriptors, tools, set files
// and feeds link to), copied to the site at their archive path plus an extension from the Content-Type
// they were served with (/objects/<aa>/<sha256>.json, or .txt for text/event-stream and anything else):
// static hosts type files by extension, so JSON is sent as JSON and an SSE body as plain text —
// readable in a browser, never HTML, never an extension-less octet-stream download (issue 16). The
// name before the extension is still the SHA-256 of the bytes; every link to a raw body goes through
// rawObjectPath.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isObjectName, objectKey } from '../archive/layout.ts';
import { readObject } from '../archive/objects.ts';
import type { Archive } from '../loader/views.ts';

/** The site path of a raw body: its archive key plus the extension its Content-Type calls for. */
export function rawObjectPath(sha256: string, contentType: string | null): string {
  const json = /^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType?.trim() ?? '');
  return `/${objectKey(sha256)}${json ? '.json' : '.txt'}`;
}

/** Copy the linked objects into `outDir`; returns how many were copied (a missing or corrupt object is skipped). */
export async function copyLinkedObjects(a: Archive, outDir: string): Promise<number> {
  const shas = new Set<string>();
  for (const s of a.servers) for (const v of s.versions) if (v.bodySha256) shas.add(v.bodySha256);
  for (const c of a.changes) for (const sha of [c.beforeBody, c.afterBody]) if (sha) shas.add(sha);
  for (const s of a.servers) if (s.current) shas.add(s.current.bodySha256);
  for (const set of a.sets) shas.add(set.bodySha256);
  for (const b of a.bodyFindings) shas.add(b.bodySha256);
  let copied = 0;
  const dirs = new Set<string>();
  for (const sha of shas) {
    if (!isObjectName(sha)) continue;
    const to = path.join(outDir, ...rawObjectPath(sha, a.contentType(sha)).split('/').filter(Boolean));
    try {
      if (!dirs.has(path.dirname(to))) {
        await mkdir(path.dirname(to), { recursive: true });
        dirs.add(path.dirname(to));
      }
      // Read through the archive's object store (a bucket when one is configured) and checked against
      // the name: a missing or corrupt object is skipped, never published.
      const bytes = await readObject(a.dir, sha);
      if (bytes === null) continue;
      await writeFile(to, bytes);
      copied++;
    } catch (error) {
      if ((error as { code?: string }).code !== 'ENOENT') throw error;
    }
  }
  return copied;
}
