// Data contract: the registry roster fetched by a run (data/rosters/<day>.json). Methodology v1, "Roster".
import { z } from 'zod';
import { SHA256_HEX } from '../canonical.ts';

/** The registry's own `_meta` key on every listed entry (`isLatest`, `status`, `publishedAt`, …). */
export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';

const sha256 = z.string().regex(SHA256_HEX);

export const RosterPage = z
  .object({
    /** Cursor sent for this page (null for the first page). Registry cursors are `name:version`. */
    cursor: z.string().max(2048).nullable(),
    url: z.string().max(8192),
    http_status: z.number().int().nullable(),
    /** Raw body stored under objects/ (null when no body was received). */
    sha256: sha256.nullable(),
    /** servers[] length on this page (null when the body did not parse). */
    count: z.number().int().nonnegative().nullable(),
    next_cursor: z.string().max(2048).nullable(),
    attempts: z.number().int().positive(),
    error: z.string().max(1024).nullable(),
    /**
     * Rosters paged over several cursor chains only (absent on a roster of one chain, and on every
     * roster written before them): the chain that fetched the page, counted from 0. Pages are in chain
     * order, so the roster's pages are still the listing in order.
     */
    chain: z.number().int().nonnegative().optional(),
    /**
     * Rosters paged over several cursor chains only: on the last page of a chain, the number of its
     * first servers[] entries that are the roster's; the rest are past the chain's end and listed by
     * the next chain. Absent: all `count` of them.
     */
    listed: z.number().int().nonnegative().optional(),
  })
  .strict();
export type RosterPage = z.infer<typeof RosterPage>;

export const RosterTarget = z
  .object({
    name: z.string().min(1).max(512),
    version: z.string().max(256),
    status: z.string().max(64).nullable(),
    endpoint: z.string().max(4096).nullable(),
    /** Why there is no endpoint: `no_streamable_http`, `templated_url`, `invalid_url`, ... */
    endpoint_problem: z.string().max(128).nullable(),
    page_sha256: sha256,
    page_index: z.number().int().nonnegative(),
  })
  .strict();
export type RosterTarget = z.infer<typeof RosterTarget>;

export const Roster = z
  .object({
    day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    run_id: z.string().min(1).max(64),
    fetched_at: z.string().datetime({ offset: true }),
    source: z.string().max(4096),
    /** False whenever paging was cut short (failed page, repeated cursor, page or time bound). */
    complete: z.boolean(),
    incomplete_reason: z.string().max(1024).nullable(),
    pages: z.array(RosterPage),
    counts: z
      .object({
        pages: z.number().int().nonnegative(),
        /** name+version rows seen across pages */
        entries: z.number().int().nonnegative(),
        /** distinct server names = targets */
        targets: z.number().int().nonnegative(),
        with_endpoint: z.number().int().nonnegative(),
      })
      .strict(),
    /** One per distinct server.name, in roster order: the isLatest entry. */
    targets: z.array(RosterTarget),
  })
  .strict();
export type Roster = z.infer<typeof Roster>;
