// src/lib: pure domain code shared by the collector, the site and the tests. No I/O, no clock, no env.
// This file only re-exports; every export has an entry in src/lib/README.md (checked by test/lib/readme.test.ts).
export * from './contract/index.ts';
export * from './canonical.ts';
export { repeatedMemberNames, JsonTextError, type RepeatedMember } from './json-text.ts';
export * from './tool-definition-hash.ts';
export * from './hidden-characters.ts';
export * from './tool.ts';
export * from './answer-body.ts';
export * from './methodology-series.ts';
export * from './surface-hashes.ts';
export * from './pointer-diff.ts';
export * from './summarise-diff.ts';
export * from './track-tombstones.ts';
export * from './detect-drift.ts';
export * from './contract-intervals.ts';
export { fingerprint, type Axis, type BodyRule, type Finding, type Level, type Rule } from './rules/finding.ts';
export * from './rules/registry.ts';
export * from './survival/z.ts';
export * from './survival/kaplan-meier.ts';
export * from './survival/half-life.ts';
export * from './wilson.ts';
export * from './error-class-shares.ts';
export * from './schema-hygiene.ts';
export * from './volatility.ts';
export * from './first-change-intervals.ts';
export * from './ever-changed-share.ts';
export * from './half-life-text.ts';
