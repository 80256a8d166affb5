// `npm run verify`'s report as text (verify.ts makes it; --json prints it as it is).
import { LAYOUT } from '../../src/archive/layout.ts';
import { SHARDS, type VerifyReport } from './verify-types.ts';

export const MAX_LISTED = 200;

export function formatReport(r: VerifyReport): string {
  const out: string[] = [];
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (r.mode === 'incremental') {
    out.push(`mode: incremental, from the head verified on ${r.since!.verified_at} (manifest ${r.since!.seq}, ${r.since!.hash.slice(0, 12)}…)`);
  } else out.push(r.fallback ? `mode: full, not incremental: ${r.fallback}` : 'mode: full');
  const runs = r.mode === 'incremental' ? (r.scope.runs.length === 0 ? 'no new run' : `${plural(r.scope.runs.length, 'new run')} (${r.scope.runs.slice(0, 5).join(', ')}${r.scope.runs.length > 5 ? ', …' : ''})`) : `every run (${plural(r.scope.runs.length, 'run')})`;
  const chain = r.chain ? `; chain: ${r.chain.checked} of ${r.chain.manifests} manifests checked` : '';
  out.push(`covered: ${runs}: ${plural(r.runs, 'run row')}, ${plural(r.dayFiles, 'day file')}, ${plural(r.rows, 'row')}, ${plural(r.rosters, 'roster')}; ${plural(r.objects, 'object')} hashed (${r.referenced} referenced, ${plural(r.scrub.keys, 'key')} scrubbed)${chain}`);
  const hex = (n: number) => n.toString(16).padStart(2, '0');
  const shards = r.scrub.first > r.scrub.last ? 'no shard today' : r.scrub.first === 0 && r.scrub.last === SHARDS - 1 ? `all ${SHARDS} shards` : `shards ${hex(r.scrub.first)}..${hex(r.scrub.last)} of ${SHARDS}`;
  if (r.pageEntries.read + r.pageEntries.reused > 0) out.push(`pages: ${r.pageEntries.read === 1 ? '1 entry' : `${r.pageEntries.read} entries`} read to check the packed pages' joins, ${r.pageEntries.reused} reads saved (entries repeated across pages)`);
  if (r.stored.named > 0) out.push(`stored: ${plural(r.stored.named, 'closed file')} named by ${LAYOUT.stored} covered, ${r.stored.brought} brought from the object store to be read`);
  out.push(`scrub: ${shards}${r.mode === 'incremental' ? ` (cycle day ${r.scrub.cycleDay}/${r.scrub.cycleDays})` : ''}, ${plural(r.scrub.keys, 'key')} listed${r.scrub.named > 0 ? `, ${r.scrub.named} named by ${LAYOUT.stored} checked present` : ''}`);
  const l = r.listings;
  if (l.compared + l.first > 0) out.push(`listings: ${plural(l.compared, 'shard')} compared with the listing recorded on its last scrub${l.first > 0 ? `, ${plural(l.first, 'shard')} listed for the first time (nothing to compare with)` : ''}${l.recorded > 0 ? `; ${plural(l.recorded, 'listing')} recorded` : ''}`);
  out.push(`archive ${r.dir}: ${r.dayFiles} day files, ${r.rows} rows, ${r.runs} runs, ${r.rosters} rosters, ${r.objects} objects, ${r.editions} editions`);
  const h = r.chain?.head;
  if (h) out.push(`chain: ${r.chain!.manifests} manifests, head ${h.hash} (manifest ${h.seq}${h.run_id ? `, run ${h.run_id}` : ''}), ${h.key_id ? `signed by ${h.key_id}` : 'unsigned'}`);
  const broken = r.problems.find((p) => p.kind.startsWith('chain'));
  if (broken) out.push(`chain: first broken link: ${broken.message}`);
  for (const [label, list] of [['problem', r.problems], ['warning', r.warnings]] as const) {
    for (const f of list.slice(0, MAX_LISTED)) out.push(`${label}: ${f.kind} at ${f.where}: ${f.message}`);
    if (list.length > MAX_LISTED) out.push(`… and ${list.length - MAX_LISTED} more ${label}s`);
  }
  out.push(r.problems.length === 0 ? 'ok: no problems' : `FAILED: ${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}`);
  if (r.recorded) out.push(`state: recorded ${LAYOUT.verifyState} at manifest ${r.chain!.head!.seq}`);
  else if (r.notRecorded) out.push(`state: not recorded (${r.notRecorded})`);
  out.push(`time: ${(r.ms / 1000).toFixed(2)} s`);
  return out.join('\n');
}
