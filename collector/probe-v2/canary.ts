// The unknown-tool canary (methodology v2, "Probe", step 6; the study's RQ5): after a complete
// tools/list, one tools/call of a tool that cannot exist, named so an operator reading their logs sees
// who asked. Never a real tool. Whether the error came back in-channel (a JSON-RPC `error`, or a result
// with `isError: true`) is judged apart from the HTTP status: the conformance suite's modern mock answers
// in-channel with HTTP 500, SDK v1 with a 200 result whose isError is true (v2-protocol notes §6).
import { isObject } from '../../src/lib/index.ts';
import { NOT_SENT, type Exchange } from './wire.ts';

/** Plain ASCII, so it goes into `Mcp-Name` as is (2026-07-28 §Value Encoding needs no base64 for it). */
export const CANARY_TOOL_NAME = 'mcp-schema.probe.nonexistent-tool';
export const CANARY_ID = 3;

export interface CanaryResult {
  sent: boolean;
  /** HTTP status of the answer; null when none arrived (or not sent). */
  httpStatus: number | null;
  /** In-channel error; null when there was no HTTP answer to judge. */
  inChannel: boolean | null;
  jsonrpcCode: number | null;
}

export function canaryResult(x: Exchange | typeof NOT_SENT): CanaryResult {
  if (x === NOT_SENT) return { sent: false, httpStatus: null, inChannel: null, jsonrpcCode: null };
  if (!x.answered || x.status === null) return { sent: true, httpStatus: null, inChannel: null, jsonrpcCode: null };
  if (x.rpc) return { sent: true, httpStatus: x.status, inChannel: true, jsonrpcCode: x.rpc.code };
  const m = x.message;
  const isError = isObject(m) && m.id === CANARY_ID && isObject(m.result) && m.result.isError === true;
  return { sent: true, httpStatus: x.status, inChannel: isError, jsonrpcCode: null };
}
