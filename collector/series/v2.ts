// Methodology v2 as a recorded series: rows-v2.ts builds its rows, probe-v2/ probes (discovery, every
// tools/list page, canary, auth), host-signal.ts hostSignalV2 reads the result, the Store writes
// observations-v2/<day>.jsonl.
import { join } from 'node:path';
import { dayFile, SERIES_FOLDER } from '../../src/archive/layout.ts';
import { dayFileRowsV2 } from '../../src/archive/observations.ts';
import type { ObservationV2, RunV2 } from '../../src/lib/index.ts';
import { hostSignalV2 } from '../host-signal.ts';
import { DEFAULT_PROBE_V2_LIMITS, probeV2, type ProbeV2Limits } from '../probe-v2/index.ts';
import { excludedRowV2, noEndpointRowV2, notAttemptedRowV2, probeV2Row, retiredRowV2, runRowV2, sharedRowV2 } from '../rows-v2.ts';
import { wholeLines, type RecordedSeries } from './series.ts';

export const v2Series: RecordedSeries<ObservationV2, RunV2> = {
  id: 'v2',
  retiredRow: retiredRowV2,
  excludedRow: excludedRowV2,
  noEndpointRow: noEndpointRowV2,
  notAttemptedRow: notAttemptedRowV2,
  // One probe per normalised endpoint URL per run: the other names' rows are that probe's (rows-v2.ts).
  sharedRow: sharedRowV2,
  prober(env) {
    const limits: ProbeV2Limits = { ...DEFAULT_PROBE_V2_LIMITS, ...env.probeV2Limits, timeoutMs: env.timeoutMs };
    return async (t, ctx) => {
      // probeV2 keeps a bug of ours from costing the target its row (its own catch, probe-v2/index.ts).
      const result = await probeV2(env.http, t.endpoint!, limits);
      const handshake = result.handshake ? await env.store.putObject(result.handshake.body) : null;
      const pages: string[] = [];
      for (const p of result.pages) pages.push(await env.store.putObject(p.body));
      return { row: probeV2Row(ctx(), t, result, { handshake, pages }), signal: hostSignalV2(result, Date.now()) };
    };
  },
  append: (store, row) => store.appendObservationV2(row),
  readFolder: (dir, day) => {
    const name = dayFile(day, false, SERIES_FOLDER.v2);
    const text = wholeLines(join(dir, name));
    return text === null ? [] : dayFileRowsV2(name, text);
  },
  read: (store, day) => store.readObservationsV2(day),
  runRow: runRowV2,
};
