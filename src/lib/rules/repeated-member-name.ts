// Rule family: the served body itself. A member name repeated within one object of a tools/list answer
// is a parser differential: JavaScript's JSON.parse keeps the last copy, other parsers the first, so the
// definition a client shows a person, the one a verifier hashed and the one the model reads can differ
// (mcp-pin docs/TOOL_DEFINITION_HASH.md §1 and §6: such a definition has no canonical form, and a
// verifier forwarding the bytes must reject it). Parsing into tools erases the evidence, so this rule
// reads the JSON text of the answer; it fires on every body that has it, not only when it appears.
import { readJsonText } from '../json-text.ts';
import { unescapePointerToken } from '../pointer-diff.ts';
import { finding, quote, type BodyRule } from './finding.ts';

export const toolsRepeatedMemberName: BodyRule = {
  id: 'tools-repeated-member-name',
  axis: 'security',
  level: 'HIGH',
  rationale: 'A member name repeated in one object of the served body is read differently by different JSON parsers, so what a person approved, what a pin hashed and what the model reads can differ.',
  checkBody: (answerText) => {
    const { value, repeated } = readJsonText(answerText);
    const tools = toolsOf(value);
    return repeated.map(({ path, copies }) => {
      // Inside a definition: name the tool (JSON.parse's reading, the last copy) and point into it.
      // Anywhere else (a repeated `result` or `tools`): no one tool, the pointer is into the message.
      const m = /^\/result\/tools\/(\d+)(\/.*)$/s.exec(path);
      const name = m ? tools[Number(m[1])]?.name : undefined;
      const tool = typeof name === 'string' ? name : '';
      const at = tool === '' ? path : m![2]!;
      return finding(toolsRepeatedMemberName, {
        tool,
        path: at,
        before: undefined,
        after: copies,
        message: `${tool === '' ? 'The tools/list answer' : `Tool ${quote(tool)}`} repeats the member ${quote(unescapePointerToken(at.slice(at.lastIndexOf('/') + 1)))} ${copies.length} times in one object: parsers that keep the first copy and parsers that keep the last read different definitions.`,
      });
    });
  },
};

function toolsOf(message: unknown): { name?: unknown }[] {
  const result = (message as { result?: { tools?: unknown } } | null)?.result;
  return Array.isArray(result?.tools) ? (result.tools as { name?: unknown }[]) : [];
}
