// Bundles src/guard.ts with the src/lib code it uses (the archive's hashing, lock format and rules:
// one implementation, never a copy) into dist/index.js, a plain ES module that runs where the
// repository is absent. The SDK stays external (a peer dependency). esbuild comes from the
// repository's node_modules (it is there through tsx and vite); `npm pack` runs this (prepack).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const esbuild = require('esbuild');
const here = (p) => fileURLToPath(new URL(p, import.meta.url));

await esbuild.build({
  entryPoints: [here('./src/guard.ts')],
  outfile: here('./dist/index.js'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  // ES module builds first (jsonc-parser's UMD build requires its parts dynamically, which an ES bundle cannot).
  mainFields: ['module', 'main'],
  target: 'node20',
  external: ['@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*'],
  banner: { js: '// @mcp-schema/guard: built by build.mjs from packages/guard/src/guard.ts and the mcp-schema src/lib code it imports.' },
  legalComments: 'eof',
  logLevel: 'warning',
});
