// A series the collector records (methodology v1, v2; "The bridge between v1 and v2"), as ONE object:
// its row builders for every outcome that needs no request, its probe (request, stored bodies, row and
// what the host did), where its rows go on the Store and how they are read back, and its run row.
// The stages of a run (run.ts, collector/shards/) loop over the series they record and never name one;
// each series lives in its own module (v1.ts, v2.ts) and registry.ts lists the ones recorded.
import fs from 'node:fs';
import type { AnyRun, NotAttemptedReason, Observation, ObservationV2, RosterTarget, RunSeries } from '../../src/lib/index.ts';
import type { HttpContext } from '../http.ts';
import type { ProbeLimits } from '../probe.ts';
import type { ProbeV2Limits } from '../probe-v2/index.ts';
import type { RowContext, RunFacts } from '../rows.ts';
import type { HostSignal } from '../schedule.ts';
import type { Store } from '../store.ts';

/** A file's whole lines (up to its last newline), or null when it does not exist. */
export function wholeLines(file: string): string | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  return text.slice(0, text.lastIndexOf('\n') + 1);
}

/** A row of any series. */
export type SeriesRow = Observation | ObservationV2;

/** The run facts a series' run row is built from, over that series' rows. */
export type SeriesRunFacts<Row extends SeriesRow> = Omit<RunFacts, 'rows'> & { rows: Row[] };

/** What a probe needs from the run: its HTTP context (per-host limits, address policy), where bodies go, and the bounds. */
export interface ProbeEnv {
  http: HttpContext;
  store: Store;
  timeoutMs: number;
  /** Each series reads its own bounds (tests and local worlds set them). */
  probeLimits?: Partial<Omit<ProbeLimits, 'timeoutMs'>>;
  probeV2Limits?: Partial<Omit<ProbeV2Limits, 'timeoutMs'>>;
}

/** One probe's outcome: the row (its bodies already stored) and what it tells the schedule of its host. */
export interface Probed<Row extends SeriesRow> {
  row: Row;
  signal: HostSignal;
}

/**
 * A recorded series. Methods (not function-valued properties) on purpose: a RecordedSeries<Observation>
 * is then usable where a RecordedSeries<SeriesRow> is, so the registry is one list.
 */
export interface RecordedSeries<Row extends SeriesRow = SeriesRow, Run extends AnyRun = AnyRun> {
  readonly id: RunSeries;
  /** A target of the previous complete roster absent from today's (`previousFile` names that roster). */
  retiredRow(ctx: RowContext, previous: RosterTarget, previousFile: string): Row;
  /** A target on the opt-out list. */
  excludedRow(ctx: RowContext, t: RosterTarget): Row;
  /** A target the roster gives no usable endpoint. */
  noEndpointRow(ctx: RowContext, t: RosterTarget): Row;
  /** An eligible target the run did not contact. */
  notAttemptedRow(ctx: RowContext, t: RosterTarget, reason: NotAttemptedReason): Row;
  /**
   * Present when the series makes one probe per normalised endpoint URL per run (v2; v1 probes every
   * name): the row of `t`, whose endpoint `from`'s probe answered (`from` is that probe's own row).
   */
  sharedRow?(ctx: RowContext, t: RosterTarget, from: Row): Row;
  /**
   * A prober for one run: probes a target, stores its bodies, builds its row at `ctx()` (read after the
   * bodies are stored) and reads the host signal off the result. Never throws for a target's failure.
   */
  prober(env: ProbeEnv): (t: RosterTarget, ctx: () => RowContext) => Promise<Probed<Row>>;
  /** Append one row to this series' day file (validated by its schema). */
  append(store: Store, row: Row): void;
  /** The rows of a day's open file of this series (validated on read). */
  read(store: Store, day: string): Row[];
  /**
   * The same from a folder this process does not hold (a shard's, maybe copied from another machine):
   * read without its lock, a torn last line (its writer killed mid-write) left out, every other line
   * validated.
   */
  readFolder(dir: string, day: string): Row[];
  /** This series' run row over its rows of the run. */
  runRow(facts: SeriesRunFacts<Row>): Run;
}
