// The survival chart's zip on the live site (/charts/schema-survival/schema-survival[-SIMULATED].zip),
// written by the post-build step beside the SVG, PNG and CSV the chart page serves.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CHART_PATH } from '../outputs/survival-export.ts';
import { survivalFiles, survivalZip } from '../outputs/survival-files.ts';
import type { Archive } from '../loader/views.ts';
import { simulatedName, type Publication } from '../outputs/publication.ts';
import { liveChartContext } from './chart-context.ts';

export function chartZipName(pub: Pick<Publication, 'simulated'>): string {
  return simulatedName('schema-survival.zip', pub);
}

export async function writeChartZip(a: Archive, outDir: string, pub: Publication): Promise<string> {
  const dir = path.join(outDir, ...CHART_PATH.split('/').filter(Boolean));
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, chartZipName(pub));
  await writeFile(file, survivalZip(await survivalFiles(a, liveChartContext(a))));
  return file;
}
