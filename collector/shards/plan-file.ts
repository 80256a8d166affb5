// The files a sharded run passes between its steps (docs: "Sharded runs" in OPERATIONS.md):
//   <work>/plan.json                 written by `plan`: the run, its roster, its options, its shards;
//   <shard-dir>/shard.json           written by `probe` when it starts: which run and shard the folder holds;
//   <shard-dir>/shard-report.json    written by `probe` last, atomically: the shard finished; its schedule facts.
// Each is validated on read (zod, strict): a plan or report from another run or a hand edit is refused
// with the file named, never half-used. And the one assignment of hosts to shards (assignShards).
import fs from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeAtomic } from '../../src/archive/atomic.ts';
import { RosterTarget, RUN_SERIES } from '../../src/lib/index.ts';
import { CliError, EXIT } from '../cli-error.ts';

export const PLAN_FILE = 'plan.json';
export const SHARD_MARK = 'shard.json';
export const SHARD_REPORT = 'shard-report.json';

const iso = z.string().datetime({ offset: true });
const count = z.number().int().nonnegative();

export const PlanShard = z
  .object({
    index: count,
    /** Each host of the shard and how many of the run's targets it has (every one of them is in this shard). */
    hosts: z.array(z.object({ host: z.string().min(1).max(4096), targets: z.number().int().positive() }).strict()),
    /** The shard's targets, in the order the run draws them (hash of run id and name). */
    targets: z.array(RosterTarget),
  })
  .strict();
export type PlanShard = z.infer<typeof PlanShard>;

export const Plan = z
  .object({
    plan: z.literal('mcp-schema/plan/v1'),
    run_id: z.string().min(1).max(64),
    day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    /** The run's clock (--now). */
    clock: iso,
    /** observed_at of the shards' rows counts from here (the run clock plus the roster stage). */
    probes_from: iso,
    /** The series the run records (decided once, by the plan). */
    series: z.array(z.enum(RUN_SERIES)).min(1),
    registry: z.string().max(4096),
    roster_file: z.string().max(128),
    roster_complete: z.boolean(),
    incomplete_reason: z.string().max(4096).nullable(),
    limit: z.number().int().positive().nullable(),
    eligible: count,
    options: z
      .object({
        concurrency: z.number().int().positive(),
        per_host_divisor: z.number().int().positive(),
        per_host_max: z.number().int().positive(),
        /** Absent in plans written before the rule had a span: the cap alone. */
        per_host_span: z.number().int().positive().nullable().optional(),
        unresponsive_after: count,
        timeout_ms: z.number().int().positive(),
        deadline_ms: z.number().int().positive().nullable(),
        allow_private: z.boolean(),
        max_endpoints_per_shard: z.number().int().positive().nullable(),
      })
      .strict(),
    shards: z.array(PlanShard).min(1),
  })
  .strict();
export type Plan = z.infer<typeof Plan>;

export const ShardReport = z
  .object({
    report: z.literal('mcp-schema/shard-report/v1'),
    run_id: z.string().min(1).max(64),
    shard: count,
    scheduler: z.enum(['lpt', 'host-queues']),
    max_in_flight_per_host: count,
    hosts: z.array(z.object({ host: z.string().max(4096), targets: count, limit: count, maxInFlight: count, backoffs: count, wallMs: count, notAttempted: count }).strict()),
    deadline_at: iso.nullable(),
    finished_at: iso,
    /** Jobs this attempt of the shard scheduled (targets without a row when it started). */
    probed: count,
    /** Probes made, over every series (from 2026-12-07; absent before). */
    probes: count.optional(),
    /** Rows written from another name's probe of the same normalised endpoint URL (from 2026-12-07; absent before). */
    shared_rows: count.optional(),
    probe_ms: count,
  })
  .strict();
export type ShardReport = z.infer<typeof ShardReport>;

const ShardMark = z.object({ run_id: z.string().min(1).max(64), shard: count }).strict();
export type ShardMark = z.infer<typeof ShardMark>;

function readJson<T>(file: string, schema: z.ZodType<T>, what: string): T | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CliError(`cannot read ${what} ${file}: ${(e as Error).message}`, EXIT.usage, { cause: e });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new CliError(`${what} ${file} is not JSON: ${(e as Error).message}`, EXIT.usage, { cause: e });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new CliError(`${what} ${file} does not validate: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`, EXIT.usage);
  return parsed.data;
}

const writeJson = (file: string, value: unknown) => writeAtomic(file, Buffer.from(JSON.stringify(value) + '\n'), { durable: true });

export function writePlan(work: string, plan: Plan): string {
  fs.mkdirSync(work, { recursive: true });
  const file = join(work, PLAN_FILE);
  writeJson(file, Plan.parse(plan));
  return file;
}

export function readPlan(work: string): Plan {
  const file = join(work, PLAN_FILE);
  const plan = readJson(file, Plan, 'plan');
  if (plan === null) throw new CliError(`no plan at ${file}: run \`npm run collect -- plan --work ${work} …\` first`, EXIT.usage);
  plan.shards.forEach((s, i) => {
    if (s.index !== i) throw new CliError(`plan ${file}: shard ${i} is numbered ${s.index}`, EXIT.usage);
  });
  return plan;
}

export const readShardMark = (dir: string): ShardMark | null => readJson(join(dir, SHARD_MARK), ShardMark, 'shard mark');
export const writeShardMark = (dir: string, mark: ShardMark) => writeJson(join(dir, SHARD_MARK), ShardMark.parse(mark));
export const readShardReport = (dir: string): ShardReport | null => readJson(join(dir, SHARD_REPORT), ShardReport, 'shard report');
/** Written last by a shard: its presence means the shard finished. */
export const writeShardReport = (dir: string, report: ShardReport) => writeJson(join(dir, SHARD_REPORT), ShardReport.parse(report));

/**
 * Hosts to shards. n = max(1, ceil(endpoints / maxPerShard)) (null: one shard). Hosts are taken by size,
 * largest first, then by name, and each goes whole to the least-loaded shard (lowest index on a tie):
 * longest-processing-time first, so every endpoint of a host lands in one shard and the same hosts
 * give the same shards. A host larger than the bound gets a shard of its own (such a shard is closed
 * to every other host; n grows when the big hosts alone need more shards than n).
 */
export function assignShards(hostTargets: ReadonlyMap<string, number>, maxPerShard: number | null): { hosts: { host: string; targets: number }[] }[] {
  const hosts = [...hostTargets].map(([host, targets]) => ({ host, targets })).sort((a, b) => b.targets - a.targets || (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
  const endpoints = hosts.reduce((n, h) => n + h.targets, 0);
  const bound = maxPerShard ?? Infinity;
  const big = hosts.filter((h) => h.targets > bound);
  const rest = endpoints - big.reduce((n, h) => n + h.targets, 0);
  const n = Math.max(1, Math.ceil(endpoints / bound), big.length + (rest > 0 ? 1 : 0));
  const shards = Array.from({ length: n }, () => ({ hosts: [] as { host: string; targets: number }[], load: 0, closed: false }));
  for (const h of hosts) {
    let target = shards[0]!;
    if (h.targets > bound) target = shards.find((s) => s.load === 0)!;
    else for (const s of shards) if (!s.closed && (target.closed || s.load < target.load)) target = s;
    target.hosts.push(h);
    target.load += h.targets;
    if (h.targets > bound) target.closed = true;
  }
  return shards.map((s) => ({ hosts: s.hosts }));
}
