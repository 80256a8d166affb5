// Types of @mcp-schema/guard (dist/index.js, built from src/guard.ts; test/guard/guard.test.ts holds the two in step).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

export type LockFailOn = 'ERR' | 'WARN' | 'INFO';

/** mcp-lock.json, version 1 (its JSON Schema: /api/schema/mcp-lock.v1.json on the archive's site). */
export interface McpLock {
  $schema?: string;
  lock_version: 1;
  archive?: string;
  fail_on?: LockFailOn;
  servers: {
    name: string;
    endpoint: string | null;
    set_sha256: string;
    tools: { name: string; definition_sha256: string }[];
    pinned: Record<string, unknown>;
    fail_on?: LockFailOn;
  }[];
}

export interface GuardOptions {
  lock: McpLock | string;
  server?: string;
  archive?: string;
  mode?: 'hold' | 'warn';
  allowUnknown?: boolean;
  failOn?: LockFailOn;
  onDrift?: (event: DriftEvent) => void;
}

export interface GuardFinding {
  rule: string;
  axis: string;
  level: string;
  tool: string;
  path: string;
  message: string;
}

export interface HeldTool {
  tool: string;
  reason: 'changed' | 'unknown' | 'unclassified';
  findings: GuardFinding[];
}

export interface DriftReport {
  server: string;
  baseline: 'lock' | 'archive';
  fail_on: LockFailOn;
  live_set_sha256: string;
  baseline_set_sha256: string | null;
  archive_set_sha256: string | null;
  archive_saw: 'no-change' | 'same-change' | 'different-list' | 'unknown';
  findings: GuardFinding[];
  held: HeldTool[];
  notes: string[];
}

export type DriftEvent = { kind: 'checked'; report: DriftReport } | { kind: 'called-through'; error: ContractDriftError };

export declare class ContractDriftError extends Error {
  readonly name: 'ContractDriftError';
  readonly tool: string;
  readonly reason: HeldTool['reason'];
  readonly findings: GuardFinding[];
  readonly report: DriftReport;
}

export interface GuardedClient {
  readonly client: Client;
  report(): DriftReport;
  refresh(): Promise<DriftReport>;
  unguard(): void;
}

export declare const DEFAULT_ARCHIVE: string;
export declare function guard(client: Client, options: GuardOptions): Promise<GuardedClient>;
