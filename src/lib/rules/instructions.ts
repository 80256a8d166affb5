// Rule family: the server's instructions (methodology v2, "Drift"). The `instructions` string a server
// returns in its handshake (discover or initialize result) is read by the agent like a tool description
// is: a change to it changes what the agent is told, whether or not the tools changed. The v2 series
// keeps its hash (`instructions_sha256`, src/lib instructionsHash); this rule compares two successive
// successful answers' hashes — null is "no instructions", so appearing and vanishing count too.
import { finding, type Axis, type Finding, type Level } from './finding.ts';

/** A rule on two successive handshakes: their instructions hashes (null: none sent). */
export interface InstructionsRule {
  id: string;
  axis: Axis;
  level: Level;
  rationale: string;
  checkInstructions: (before: string | null, after: string | null) => Finding[];
}

export const serverInstructionsChanged: InstructionsRule = {
  id: 'server-instructions-changed',
  axis: 'security',
  level: 'WARN',
  rationale: 'The instructions a server sends in its handshake steer an agent as much as a tool description does; a change to them changes what the agent is told, whether or not the tools changed (methodology v2).',
  checkInstructions: (before, after) => {
    if (before === after) return [];
    const short = (h: string) => h.slice(0, 12);
    const message =
      before === null ? `The server started sending instructions (sha256 ${short(after!)}).`
      : after === null ? `The server stopped sending instructions (they had sha256 ${short(before)}).`
      : `The server's instructions changed (sha256 ${short(before)} → ${short(after)}).`;
    return [finding(serverInstructionsChanged, { tool: '', path: '/instructions', before: before ?? undefined, after: after ?? undefined, message })];
  },
};
