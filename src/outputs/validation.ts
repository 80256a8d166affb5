// What /statistics/ says about the validation gate (docs/VALIDATION.md): the gate that stands for the
// figures of the latest full v2 run (src/lib gateFor: the latest record of the run's prober version),
// and where its record is published (/data/validations/<day>-<sha256>.json, src/pages/data/validations/).
import { gateFor, type GateState, type RunV2 } from '../lib/index.ts';
import type { StoredValidation } from '../archive/validations.ts';
import { simulatedName, type Publication } from './publication.ts';

/** The site path of a record (`validations/<name>.json` in the archive → `/data/validations/<name>.json`). */
export function validationHref(file: string, pub: Pick<Publication, 'simulated'>): string {
  return `/data/validations/${simulatedName(file.split('/').at(-1)!, pub)}`;
}

/** The gate for a run's figures; null when there is no run (no figures). */
export function gateForRun(run: RunV2 | null, records: readonly StoredValidation[]): GateState | null {
  return run === null ? null : gateFor(records, run.prober_version);
}
