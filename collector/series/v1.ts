// Methodology v1 as a recorded series: rows.ts builds its rows, probe.ts probes (one initialize, one
// tools/list), host-signal.ts hostSignal reads the failure, the Store writes observations/<day>.jsonl.
// After the bridge v1 is no longer recorded: registry.ts drops it, and its reader (Store
// readObservations, src/archive/observations.ts) stays for restatement and the site.
import { join } from 'node:path';
import { dayFile } from '../../src/archive/layout.ts';
import { dayFileRows } from '../../src/archive/observations.ts';
import type { Observation, Run } from '../../src/lib/index.ts';
import { classify } from '../errors.ts';
import { hostSignal } from '../host-signal.ts';
import { DEFAULT_PROBE_LIMITS, probe, type ProbeLimits, type ProbeResult } from '../probe.ts';
import { excludedRow, noEndpointRow, notAttemptedRow, probeRow, retiredRow, runRow } from '../rows.ts';
import { wholeLines, type RecordedSeries } from './series.ts';

export const v1Series: RecordedSeries<Observation, Run> = {
  id: 'v1',
  retiredRow,
  excludedRow,
  noEndpointRow,
  notAttemptedRow,
  prober(env) {
    const limits: ProbeLimits = { ...DEFAULT_PROBE_LIMITS, ...env.probeLimits, timeoutMs: env.timeoutMs };
    return async (t, ctx) => {
      let result: ProbeResult;
      try {
        result = await probe(env.http, t.endpoint!, limits);
      } catch (error) {
        // A bug of ours must not cost the target its row.
        result = { ok: false, error: classify({ kind: 'thrown', step: 'initialize', error }), finalUrl: null, redirects: 0, protocolVersion: null, serverName: null, serverVersion: null, session: null, latencyMs: 0, body: null, bodyContentType: null };
      }
      const bodySha = result.body ? await env.store.putObject(result.body) : null;
      return { row: probeRow(ctx(), t, result, bodySha), signal: hostSignal(result.ok ? null : result.error, Date.now()) };
    };
  },
  append: (store, row) => store.appendObservation(row),
  readFolder: (dir, day) => {
    const name = dayFile(day);
    const text = wholeLines(join(dir, name));
    return text === null ? [] : dayFileRows(name, text);
  },
  read: (store, day) => store.readObservations(day),
  runRow,
};
