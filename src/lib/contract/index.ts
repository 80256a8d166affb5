export * from './observation.ts';
export * from './run.ts';
export * from './roster.ts';
export * from './edition.ts';
export * from './observation-v2.ts';
