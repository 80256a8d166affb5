// Methodology series: the rules by which a contract hash is derived from a stored tools/list body.
// v1 is what the collector applies live. Other series are restatements, re-derived from the same raw
// objects by `npm run restate` into data/restatements/<id>/ and never written over v1's rows
// (methodology v1, "Restatements"). Each series has a note in content/changelog/ (`note`).
// v2 is a second collector series (the dual-era probe, methodology v2) with rows of its own
// (ObservationV2); its contract hash is v1's recipe over every page. V1_SERIES are the series whose
// rows are v1 Observation rows: v1 itself and its restatements.
import { toolsSha256 } from './canonical.ts';
import { contractSha256 } from './surface-hashes.ts';
import type { Tool } from './tool.ts';

export const METHODOLOGY_SERIES = ['v1', 'v1-contract', 'v2'] as const;
export type MethodologySeriesId = (typeof METHODOLOGY_SERIES)[number];
/** Series whose rows are v1 Observation rows (what a v1 row's methodology_version and `npm run restate` accept). */
export const V1_SERIES = ['v1', 'v1-contract'] as const satisfies readonly MethodologySeriesId[];
export type V1SeriesId = (typeof V1_SERIES)[number];

export interface MethodologySeries {
  id: MethodologySeriesId;
  title: string;
  /** One sentence for readers: what a "change" means in this series. */
  summary: string;
  /** The changelog entry (content/changelog/<note>.md) that explains the series. */
  note: string;
  /** The contract hash of a tools array under this series. */
  hash(tools: readonly Tool[]): string;
}

export const SERIES: Readonly<Record<MethodologySeriesId, MethodologySeries>> = {
  v1: {
    id: 'v1',
    title: 'v1 (published)',
    summary: 'Any change to the canonical tools array counts, descriptions included.',
    note: '2026-11-30-restatement-v1',
    hash: toolsSha256,
  },
  'v1-contract': {
    id: 'v1-contract',
    title: 'v1, contract tier only (sensitivity)',
    summary: 'Only names, input and output schemas and annotations count; edits to tool descriptions and titles do not.',
    note: '2026-11-30-restatement-v1-contract',
    hash: contractSha256,
  },
  v2: {
    id: 'v2',
    title: 'v2 (dual-era probe)',
    summary: 'Any change to the canonical tools array of every page counts, descriptions included; modern (2026-07-28) servers are observed too.',
    // The changelog entry is written when v2 ships.
    note: 'methodology-v2',
    hash: toolsSha256,
  },
};
