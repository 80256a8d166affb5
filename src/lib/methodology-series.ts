// Methodology series: the rules by which a contract hash is derived from a stored tools/list body.
// v1 is what the collector applies live. Other series are restatements, re-derived from the same raw
// objects by `npm run restate` into data/restatements/<id>/ and never written over v1's rows
// (methodology v1, "Restatements"). Each series has a note in content/changelog/ (`note`).
import { toolsSha256 } from './canonical.ts';
import { contractSha256 } from './surface-hashes.ts';
import type { Tool } from './tool.ts';

export const METHODOLOGY_SERIES = ['v1', 'v1-contract'] as const;
export type MethodologySeriesId = (typeof METHODOLOGY_SERIES)[number];

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
};
