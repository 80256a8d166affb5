// Who the collector says it is. The contact URL is the one place a server operator can reach us
// from their access logs (User-Agent), so it is a single constant.
import { readFileSync } from 'node:fs';

export const CONTACT_URL = 'https://github.com/mcp-schema/mcp-schema';

export const DEFAULT_REGISTRY = 'https://registry.modelcontextprotocol.io/v0.1/servers';

/** package.json version: written into every row as prober_version and sent as clientInfo.version. */
export const PROBER_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export const USER_AGENT = `mcp-schema/${PROBER_VERSION} (+${CONTACT_URL}; archive of MCP tool contracts)`;

/** The label of the project's signing key id (`mcp-schema-ed25519-<fingerprint>`; keys/mcp-schema-ed25519.pub). */
export const SIGNING_KEY_LABEL = 'mcp-schema';
