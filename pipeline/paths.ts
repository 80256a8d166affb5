// Where the pipeline's steps hand files to each other: the runner's temp folder (RUNNER_TEMP on GitHub,
// the system's elsewhere). Apart from steps.ts and shards.ts, which both read these, so neither imports
// the other for them.
import os from 'node:os';
import path from 'node:path';
import { envOf, type Ctx } from './exec.ts';

export function tempRoot(ctx: Ctx): string {
  return envOf(ctx, 'RUNNER_TEMP') || path.join(os.tmpdir(), 'mcp-schema-pipeline');
}
/** The collector's JSON summary (the day's commit message body). */
export const summaryFile = (ctx: Ctx) => envOf(ctx, 'COLLECT_SUMMARY') || path.join(tempRoot(ctx), 'collect-summary.json');
