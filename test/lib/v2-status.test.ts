// v2Status(facts): every row of the study's outcome table (§4) and every tie between two rows.
import { describe, expect, it } from 'vitest';
import { V2_STATUSES, v2Status, type V2Facts, type V2Status } from '../../src/lib/v2-status.ts';

/** An endpoint that answered 404 to everything: the facts every case below starts from. */
const base: V2Facts = {
  excluded: false,
  answered: true,
  auth: null,
  handshake: false,
  toolsListed: false,
  modernError: false,
  sseEndpoint: false,
  initializeRejected: false,
  httpStatuses: [404, 404],
};
const bearer401 = { httpStatus: 401 as const, bearer: true, metadataValid: true };

const ROWS: Array<[string, Partial<V2Facts>, V2Status]> = [
  // One row of §4 each.
  ['opted out', { excluded: true, answered: false }, 'excluded'],
  ['every request failed below HTTP', { answered: false, httpStatuses: [] }, 'unreachable'],
  ['401 + Bearer + valid metadata', { auth: bearer401, httpStatuses: [401, 401] }, 'auth_compliant'],
  ['401 + Bearer, metadata invalid or missing', { auth: { ...bearer401, metadataValid: false } }, 'auth_noncompliant'],
  ['401 with a Basic challenge and valid metadata', { auth: { ...bearer401, bearer: false } }, 'auth_noncompliant'],
  ['403 + WWW-Authenticate (Bearer, valid metadata): never compliant', { auth: { ...bearer401, httpStatus: 403 } }, 'auth_noncompliant'],
  ['handshake and tools/list', { handshake: true, toolsListed: true, httpStatuses: [200, 200, 202, 200] }, 'ok'],
  ['handshake, tools/list failed', { handshake: true, httpStatuses: [200, 200, 202, 400] }, 'handshake_only'],
  ['a modern error, no result', { modernError: true, httpStatuses: [400] }, 'modern_rejected'],
  ['the HTTP+SSE endpoint event', { sseEndpoint: true }, 'legacy_sse'],
  ['initialize rejected in JSON-RPC, both revisions', { initializeRejected: true, httpStatuses: [400, 200, 200] }, 'jsonrpc_error'],
  ['402', { httpStatuses: [402, 402] }, 'payment_required'],
  ['5xx', { httpStatuses: [500, 502] }, 'server_error'],
  ['503', { httpStatuses: [503] }, 'server_error'],
  ['429', { httpStatuses: [429] }, 'server_error'],
  ['anything else: 404/405/HTML 200', {}, 'not_mcp'],
  ['anything else: 400 without a modern error', { httpStatuses: [400, 400] }, 'not_mcp'],
  ['anything else: 599 is 5xx, 600 is not', { httpStatuses: [600] }, 'not_mcp'],
  // Each edge of the 5xx range alone, with its near miss (no other status in the list to lean on).
  ['500 alone, the first 5xx', { httpStatuses: [500] }, 'server_error'],
  ['499 alone is not a server error', { httpStatuses: [499] }, 'not_mcp'],
  ['599 alone, the last 5xx', { httpStatuses: [599] }, 'server_error'],
  ['428 and 430 are not 429', { httpStatuses: [428, 430] }, 'not_mcp'],
  ['401 or 403 without an auth fact (no challenge) is not auth', { httpStatuses: [401, 403] }, 'not_mcp'],
  ['401 + Bearer + valid metadata but no answer: unreachable never comes from an auth fact', { answered: false, auth: bearer401, httpStatuses: [] }, 'unreachable'],
  // Ties: the earlier row wins.
  ['excluded over everything', { excluded: true, auth: bearer401, handshake: true, toolsListed: true }, 'excluded'],
  ['unreachable over a stale auth fact', { answered: false, auth: bearer401 }, 'unreachable'],
  ['auth over ok (a 401 on a protocol step after the handshake)', { auth: bearer401, handshake: true, toolsListed: true }, 'auth_compliant'],
  ['auth_noncompliant over ok', { auth: { ...bearer401, bearer: false }, handshake: true, toolsListed: true }, 'auth_noncompliant'],
  ['ok over a modern error and 5xx seen on the way', { handshake: true, toolsListed: true, modernError: true, httpStatuses: [500, 200, 200] }, 'ok'],
  ['handshake_only over a modern error', { handshake: true, modernError: true }, 'handshake_only'],
  ['handshake_only over 5xx on tools/list', { handshake: true, httpStatuses: [200, 202, 503] }, 'handshake_only'],
  ['modern_rejected over legacy_sse', { modernError: true, sseEndpoint: true }, 'modern_rejected'],
  ['modern_rejected over jsonrpc_error', { modernError: true, initializeRejected: true }, 'modern_rejected'],
  ['legacy_sse over jsonrpc_error', { sseEndpoint: true, initializeRejected: true }, 'legacy_sse'],
  ['legacy_sse over 402 and 5xx', { sseEndpoint: true, httpStatuses: [402, 500] }, 'legacy_sse'],
  ['jsonrpc_error over 5xx (HTTP 500 carrying JSON-RPC -32603, twice)', { initializeRejected: true, httpStatuses: [500, 500, 500] }, 'jsonrpc_error'],
  ['jsonrpc_error over 402', { initializeRejected: true, httpStatuses: [402] }, 'jsonrpc_error'],
  ['payment_required over server_error', { httpStatuses: [500, 402] }, 'payment_required'],
  ['server_error over not_mcp statuses', { httpStatuses: [404, 502] }, 'server_error'],
];

describe('v2Status(facts)', () => {
  it.each(ROWS)('%s → %s', (_label, facts, want) => {
    expect(v2Status({ ...base, ...facts })).toBe(want);
  });

  it('every status is reachable from some facts (the table has no dead row)', () => {
    expect(new Set(ROWS.map((r) => r[2]))).toEqual(new Set(V2_STATUSES));
  });

  it('precedence is the order of V2_STATUSES: for any two statuses the earlier one wins when both rules hold', () => {
    // One fact set per status that makes exactly that rule hold.
    const only: Record<V2Status, Partial<V2Facts>> = {
      excluded: { excluded: true },
      unreachable: { answered: false },
      auth_compliant: { auth: bearer401 },
      auth_noncompliant: { auth: { ...bearer401, bearer: false } },
      ok: { handshake: true, toolsListed: true },
      handshake_only: { handshake: true },
      modern_rejected: { modernError: true },
      legacy_sse: { sseEndpoint: true },
      jsonrpc_error: { initializeRejected: true },
      payment_required: { httpStatuses: [402] },
      server_error: { httpStatuses: [503] },
      not_mcp: {},
    };
    V2_STATUSES.forEach((a, i) => {
      for (const b of V2_STATUSES.slice(i + 1)) {
        // auth_compliant/auth_noncompliant and ok/handshake_only share one fact each: not a tie.
        if ((a === 'auth_compliant' && b === 'auth_noncompliant') || (a === 'ok' && b === 'handshake_only')) continue;
        const facts = { ...base, ...only[b], ...only[a], httpStatuses: [...(only[a].httpStatuses ?? []), ...(only[b].httpStatuses ?? [])] };
        expect(v2Status(facts), `${a} vs ${b}`).toBe(a);
      }
    });
  });
});
