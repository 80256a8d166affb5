// serverHealth: how one server answered our probes lately (methodology v1, "Population figures"; the
// per-server descriptor's health block). Only probes count: ok and error rows are attempts; rows that
// contacted nothing (no_endpoint, excluded, retired) are not. Latency is the probe's wall time
// (initialize → tools/list) on ok probes only: a timeout's latency is our deadline, not the server's.
import { quantile } from 'd3-array';
import { wilson, type WilsonInterval } from './wilson.ts';

/** One probe: its instant (ms since the epoch), whether it answered tools/list, and its latency. */
export interface HealthProbe {
  ms: number;
  ok: boolean;
  latencyMs: number | null;
}

export interface ServerHealth {
  /** The window, inclusive UTC days: `days` days ending on `asOfDay`. */
  fromDay: string;
  toDay: string;
  /** Probes in the window, and the ok ones, with their share (Wilson 95%; p NaN with no probe). */
  probes: number;
  ok: number;
  okShare: WilsonInterval;
  /** Latency of the window's ok probes: how many, median and 90th percentile (d3 quantile, R type 7); null without one. */
  latency: { n: number; median: number | null; p90: number | null };
}

/** Days in the health window unless the caller says otherwise. */
export const HEALTH_DAYS = 30;

export function serverHealth(probes: readonly HealthProbe[], opts: { asOfDay: string; days?: number }): ServerHealth {
  const days = opts.days ?? HEALTH_DAYS;
  const end = Date.parse(`${opts.asOfDay}T00:00:00Z`) + 86_400_000;
  const start = end - days * 86_400_000;
  const inside = probes.filter((p) => p.ms >= start && p.ms < end);
  const ok = inside.filter((p) => p.ok);
  const latencies = ok.map((p) => p.latencyMs).filter((l): l is number => l !== null && Number.isFinite(l)).sort((a, b) => a - b);
  return {
    fromDay: new Date(start).toISOString().slice(0, 10),
    toDay: opts.asOfDay,
    probes: inside.length,
    ok: ok.length,
    okShare: wilson(ok.length, inside.length),
    latency: { n: latencies.length, median: quantile(latencies, 0.5) ?? null, p90: quantile(latencies, 0.9) ?? null },
  };
}
