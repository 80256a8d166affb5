// The static API's name indexes: which servers serve a tool of a given name, and which
// servers the archive probes at a given endpoint URL. A reader who knows only a name or a URL must not
// download every descriptor, so each index is cut into NAME_INDEX_SHARDS files by the first hex digits
// of the SHA-256 of the key (its UTF-8 bytes): the reader hashes the key, fetches one shard and looks
// the key up there. Every shard is written, empty or not, so a missing shard means an archive built
// before the index, never an unknown name.
//
// One rule for the writer (src/outputs/name-index.ts) and every reader (the check, the MCP server);
// the shard's shape is the zod schema below, published as JSON Schema beside the descriptor's.
import { z } from 'zod';
import { sha256Hex } from './canonical.ts';

/** Hex digits of the key's SHA-256 that name its shard: 2 → 256 shards. */
export const NAME_INDEX_SHARD_DIGITS = 2;
export const NAME_INDEX_SHARDS = 16 ** NAME_INDEX_SHARD_DIGITS;

export const TOOL_INDEX_DIR = '/api/tool-names';
export const ENDPOINT_INDEX_DIR = '/api/endpoints';
export const TOOL_INDEX_SCHEMA_PATH = '/api/schema/tool-names.json';
export const ENDPOINT_INDEX_SCHEMA_PATH = '/api/schema/endpoints.json';

export const SHARD_RULE = `the first ${NAME_INDEX_SHARD_DIGITS} hex digits of the SHA-256 of the key's UTF-8 bytes`;

/** The shard a key (a tool name, an endpoint URL) is listed in: lowercase hex. */
export function nameIndexShard(key: string): string {
  return sha256Hex(key).slice(0, NAME_INDEX_SHARD_DIGITS);
}

/** Every shard name, in order ("00" … "ff"). */
export function allShards(): string[] {
  return Array.from({ length: NAME_INDEX_SHARDS }, (_, i) => i.toString(16).padStart(NAME_INDEX_SHARD_DIGITS, '0'));
}

export const toolIndexPath = (shard: string) => `${TOOL_INDEX_DIR}/${shard}.json`;
export const endpointIndexPath = (shard: string) => `${ENDPOINT_INDEX_DIR}/${shard}.json`;

const common = {
  version: z.literal(2).describe('Shard format version; a change that removes or renames a field gets a new number (2: no date of the latest run, first_seen for observed_at).'),
  shard: z.string().regex(/^[0-9a-f]+$/),
  shard_rule: z.string().describe('How a key finds its shard: the first hex digits of the SHA-256 of its UTF-8 bytes.'),
  methodology: z.literal('v1'),
  simulated: z.literal(true).optional().describe('Present in a simulated build (the demo): the data is not real.'),
};

const serverRef = {
  name: z.string().describe('The registry name (registry text, unvetted); its tools file, with the tool whole, is /api/tools/<slug>.json (the descriptor links it).'),
  status: z.string().describe("The server's status in the latest run (ok, error, retired, excluded, not_attempted, no_endpoint)."),
  descriptor_url: z.string().describe('Its descriptor, /api/servers/<slug>.json.'),
};

export const ToolIndexShard = z
  .object({
    ...common,
    kind: z.literal('tool-names'),
    tools: z
      .array(
        z
          .object({
            tool: z.string().describe('The tool name as served (server text, unvetted).'),
            servers: z.array(
              z
                .object({
                  ...serverRef,
                  definition_sha256: z.string().nullable().describe('The tool definition hash (version 1) of this tool as that server served it; null when its answer has no canonical form.'),
                  set_sha256: z.string().nullable().describe('The set hash of the answer the tool is in.'),
                  first_seen: z.string().nullable().describe('When the archive first saw that server serve its current contract (a shard changes only when a server in it does; the latest answer\'s instant is in the server\'s status file).'),
                })
                .strict(),
            ),
          })
          .strict(),
      )
      .describe('Tool names whose key falls in this shard, sorted by UTF-16 code units; each with every server whose latest successful answer lists a tool of that name.'),
  })
  .strict()
  .describe('One shard of the tool-name index: /api/tool-names/<shard>.json.');

export const EndpointIndexShard = z
  .object({
    ...common,
    kind: z.literal('endpoints'),
    endpoints: z
      .array(z.object({ endpoint: z.string().describe('The endpoint URL the archive probes (the first streamable-http remote of the latest entry; registry text).'), servers: z.array(z.object(serverRef).strict()) }).strict())
      .describe('Endpoint URLs whose key falls in this shard, sorted by UTF-16 code units, each with the servers probed there.'),
  })
  .strict()
  .describe('One shard of the endpoint index: /api/endpoints/<shard>.json.');

export type ToolIndexShard = z.infer<typeof ToolIndexShard>;
export type EndpointIndexShard = z.infer<typeof EndpointIndexShard>;
