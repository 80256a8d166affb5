// The survival chart's files, the same for the live site (its zip, src/site/chart-files.ts) and for an
// edition (src/editions/): the framed SVG and PNG, the Kaplan–Meier table as CSV, a metadata JSON and
// a README, and all five in one zip.
import { survivalCsv } from './survival-csv.ts';
import { zipFiles } from './zip.ts';
import { chartMetadata, chartReadme, emptyChartSvg, survivalExportPng, survivalExportSvg, type ChartContext, type ChartData } from './survival-export.ts';

export interface ChartFiles {
  svg: string;
  png: Buffer;
  csv: string;
  metadata: string;
  readme: string;
}

export async function survivalFiles(d: ChartData, ctx: ChartContext): Promise<ChartFiles> {
  const svg = `<?xml version="1.0" encoding="UTF-8"?>\n${survivalExportSvg(d, ctx) ?? emptyChartSvg(ctx)}`;
  return {
    svg,
    png: await survivalExportPng(svg, ctx),
    csv: survivalCsv(d, ctx.simulated),
    metadata: `${JSON.stringify(chartMetadata(d, ctx), null, 2)}\n`,
    readme: chartReadme(d, ctx),
  };
}

/** The five files in one zip (names inside as the chart page offers them). */
export function survivalZip(f: ChartFiles): Buffer {
  return zipFiles([
    ['schema-survival.svg', f.svg],
    ['schema-survival.png', f.png],
    ['schema-survival.csv', f.csv],
    ['metadata.json', f.metadata],
    ['README.md', f.readme],
  ]);
}
