// The editions on the site (/editions/<id>/): each edition folder of the archive copied byte for byte
// (src/editions/cut-edition.ts wrote it once, page included), never rendered again, so a published
// edition stays what it was when later site code changes. A real site refuses a simulated edition.
import { cp, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { readEditions } from '../archive/editions.ts';
import type { Archive } from '../loader/views.ts';
import type { Publication } from './publication.ts';

export async function copyEditions(a: Pick<Archive, 'dir'>, outDir: string, pub: Pick<Publication, 'simulated'>): Promise<number> {
  const { editions } = readEditions(a.dir);
  for (const e of editions) {
    if (e.edition.simulated && !pub.simulated) throw new Error(`edition ${e.id} is simulated: a real site never publishes it (build with MCP_SCHEMA_SIMULATED=1, or remove it from the archive)`);
    const to = path.join(outDir, 'editions', e.id);
    await mkdir(to, { recursive: true });
    await cp(e.dir, to, { recursive: true, preserveTimestamps: true });
  }
  return editions.length;
}
