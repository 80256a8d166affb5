// A fixed Publication for tests of the outputs (src/outputs/publication.ts): the site's default URL,
// no release folder — what a build with no MCP_SCHEMA_* variables set uses.
import path from 'node:path';
import type { Publication } from '../../src/outputs/publication.ts';
import { registrySchemas } from '../../src/outputs/registry-schemas.ts';

const SITE = 'https://mcp-schema.example.org';

export const TEST_PUBLICATION: Publication = {
  permalink: (pathname) => `${SITE}/${pathname.replace(/^\/+/, '')}`,
  releaseDir: null,
  releaseUrl: `${SITE}/data/release/`,
  simulated: false,
};

/** The same, for a simulated build (the demo's). */
export const SIMULATED_PUBLICATION: Publication = { ...TEST_PUBLICATION, simulated: true };

/** The official server.json schemas the site checks registry entries against (fixtures/registry/spec/), as the site reads them. */
export const REGISTRY_SPEC_DIR = path.join(import.meta.dirname, '..', '..', 'fixtures', 'registry', 'spec');
export const TEST_REGISTRY_SCHEMAS = registrySchemas(REGISTRY_SPEC_DIR);
