// The raw bodies of every contract version and change (what server pages link to), of each server's
// latest successful answer, of each set hash and body finding (what the descriptors, tools, set files
// and feeds link to), copied to the site at the path they have in the archive (/objects/<aa>/<sha256>),
// served without an extension so hosts send them as downloads, never as HTML.
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { isObjectName, objectKey, objectPath } from '../archive/layout.ts';
import type { Archive } from '../loader/views.ts';

/** Copy the linked objects into `outDir`; returns how many were copied (a missing object is skipped). */
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
    const to = path.join(outDir, objectKey(sha));
    try {
      if (!dirs.has(path.dirname(to))) {
        await mkdir(path.dirname(to), { recursive: true });
        dirs.add(path.dirname(to));
      }
      await copyFile(objectPath(a.dir, sha), to);
      copied++;
    } catch (error) {
      if ((error as { code?: string }).code !== 'ENOENT') throw error;
    }
  }
  return copied;
}
