// Types for the ESM entry of fast-json-patch, imported by path in tools-patch.ts (the package's own
// declarations are written for its bare name).
declare module 'fast-json-patch/index.mjs' {
  export * from 'fast-json-patch';
}
