// Data contract: a monthly edition's manifest (editions/<id>/edition.json; methodology v1,
// "Editions"). An edition is cut once from the first full run of its month and never rewritten; a
// restatement publishes a revision beside it (`<month>-r<n>`) with a note.
import { z } from 'zod';
import { SHA256_HEX } from '../canonical.ts';

const sha256 = z.string().regex(SHA256_HEX);

export const EditionBundle = z
  .object({
    name: z.string().min(1).max(128),
    /** observations, runs, changes, contract-intervals (catalogue resource names). */
    resource: z.string().max(64),
    /** What the file covers: a whole month, the edition's month up to its run, or the whole archive up to its run. */
    covers: z.string().max(128),
    rows: z.number().int().nonnegative(),
    bytes: z.number().int().nonnegative(),
    sha256,
    /** Its permanent URL: a file of this edition, or of the earlier edition that first published it. */
    url: z.string().max(4096),
    /** The edition that published the file (this one, or an earlier one for a month it closed). */
    edition: z.string().max(32),
  })
  .strict();
export type EditionBundle = z.infer<typeof EditionBundle>;

export const Edition = z
  .object({
    edition: z.string().regex(/^\d{4}-\d{2}(-r[1-9]\d*)?$/),
    month: z.string().regex(/^\d{4}-\d{2}$/),
    /** 0 for the edition, n for its n-th revision. */
    revision: z.number().int().nonnegative(),
    /** The edition a revision revises (null for the original). */
    revises: z.string().max(32).nullable(),
    /** Why a revision was published (a restatement); null for the original. */
    note: z.string().max(4096).nullable(),
    /** The run it was cut from: the first full run of its month. */
    cut_from_run: z.string().min(1).max(64),
    data_as_of: z.string().datetime({ offset: true }),
    data_as_of_day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    /** When it was cut. */
    cut_at: z.string().datetime({ offset: true }),
    /** Its permanent URL (the site's /editions/<id>/). */
    url: z.string().max(4096),
    /** What its figures rest on (src/lib headlineMethodology): `v1`, or `v2, stitched onto v1 before <seam day>`. */
    methodology: z.string().max(64),
    simulated: z.boolean(),
    /** The manifest of its run on the hash chain: it pins every row the edition counts. */
    chain_head: z.object({ seq: z.number().int().nonnegative(), sha256, run_id: z.string(), key_id: z.string().nullable() }).strict().nullable(),
    /** The key id whose Ed25519 signature of SHA256SUMS is SHA256SUMS.sig; null: unsigned. */
    signed_by: z.string().max(128).nullable(),
    /** The data as of its run: immutable files, each with its permanent URL. */
    bundles: z.array(EditionBundle),
    /**
     * The dataset's concept DOI (its Zenodo record, all versions) when the edition was cut with one;
     * absent otherwise, and on editions cut before DOIs. The edition's own version DOI is minted after
     * it is cut (when its release is published), so it is on the record, not here.
     */
    concept_doi: z.string().max(256).optional(),
  })
  .strict();
export type Edition = z.infer<typeof Edition>;
