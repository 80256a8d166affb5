// src/lib: pure domain code shared by the collector, the site and the tests. No I/O, no clock, no env.
// This file only re-exports; every export has an entry in src/lib/README.md.
export * from './contract/index.ts';
export * from './canonical.ts';
