// npm run bench:survival — Kaplan–Meier + half-life on 1,000,000 contract intervals (goal: < 1 s).
// Durations are whole days, as the methodology's intervals are, so ties are heavy (≤ 366 distinct times),
// which is the realistic case; a second pass uses fractional durations (1M distinct times) as the worst case.
import { performance } from 'node:perf_hooks';
import { cpus } from 'node:os';
import { halfLife, kaplanMeier } from '../src/lib/index.ts';
import { rng as createRng } from '../sandbox/prng.ts';

const N = Number(process.env.N ?? 1_000_000);
const REPEAT = 5;

function intervals(integerDays: boolean) {
  const rng = createRng('bench-survival');
  const durations = new Array<number>(N);
  const events = new Array<boolean>(N);
  for (let i = 0; i < N; i++) {
    // Exponential lifetimes, median ~120 days, administratively censored at 365 days.
    const life = -Math.log(1 - rng.next()) * (120 / Math.LN2);
    const censorAt = rng.next() * 365;
    const t = Math.min(life, censorAt);
    durations[i] = integerDays ? Math.floor(t) : t;
    events[i] = life <= censorAt;
  }
  return { durations, events };
}

console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}`);
for (const integerDays of [true, false]) {
  const { durations, events } = intervals(integerDays);
  const times: number[] = [];
  let rows = 0;
  let median: number | null = null;
  for (let r = 0; r < REPEAT; r++) {
    const t0 = performance.now();
    const km = kaplanMeier(durations, events);
    const hl = halfLife(km);
    times.push(performance.now() - t0);
    rows = km.length;
    median = hl?.median ?? null;
  }
  times.sort((a, b) => a - b);
  console.log(
    `${integerDays ? 'whole days ' : 'fractional '}: n=${N.toLocaleString('en')} rows=${rows} median=${median?.toFixed(2)} ` +
      `best ${times[0]!.toFixed(0)} ms, median ${times[Math.floor(REPEAT / 2)]!.toFixed(0)} ms over ${REPEAT} runs (goal < 1000 ms)`,
  );
}
