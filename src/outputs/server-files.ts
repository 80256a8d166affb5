// Per-server machine-readable files, written by the post-build step (src/site/post-build.ts) rather
// than as Astro routes: an Astro route costs milliseconds of rendering machinery per file, and a
// year of the full registry has 25,000 servers, each with an API answer and (once it has a
// contract) a tools file and two feeds.
//   /api/servers/<slug>.json         the server's descriptor (descriptor.ts; fields: descriptor-schema.ts)
//   /api/tools/<slug>.json           every tool of its latest successful answer, with its hashes (not
//                                    /api/servers/<slug>/tools.json: names may end in .json, so the
//                                    directory of one slug could be the descriptor file of another)
//   /api/servers.json                every descriptor in one file, shaped as the registry's list
//                                    answer ({"servers": [...], "metadata": {...}}), with a .sha256 beside it;
//                                    with a release folder it goes there instead (SERVERS_JSON_WHERE)
//   /data/servers.jsonl.gz           the same descriptors, one per line (a /data/ bundle: SHA256SUMS, datapackage.json)
//   /api/sets/<set hash>.json        every set hash the archive has seen: who served it, first and last seen
//   /api/status/<shard>.json         what moves daily for each server of the shard (status-files.ts)
//   /api/schema/descriptor.json      the JSON Schema of a descriptor (format 2); descriptor.v1.json the frozen format 1
//   /api/tool-names/<shard>.json, /api/endpoints/<shard>.json   tool name / endpoint URL → servers
//                                    (name-index.ts; the shard rule is src/lib name-index.ts)
//   /servers/<slug>/feed.xml, .json  RSS 2.0 and JSON Feed 1.1 of the server's changes and body findings
//   /servers/<slug>/breaking.xml, .json   the same feeds filtered to ERR and security HIGH (breaking-feeds.ts)
//   /api/schema/mcp-lock.v1.json     the JSON Schema of mcp-lock.json (src/lib mcp-lock.ts)
//   /servers/<slug>/badge.svg        the README badge (server-badge.ts), every server
//   /servers/<slug>/changes/<change id>.patch.json   each change as an RFC 6902 JSON Patch (src/lib
//                                    toolsPatch over the name-keyed tools), when both bodies parse
// One descriptor is built at a time and streamed into the bulk files: nothing holds them all. Files are
// compact JSON: at 25,000 servers indentation alone would cost the site tens of megabytes (bench/README.md,
// "Deployability").
//
// SERVERS_JSON_WHERE: /api/servers.json holds every descriptor again (about 4 KB a server, 100 MB at
// 25,000), the size of the whole-archive bundles that already live in the release folder; the site keeps
// its gzipped twin, /data/servers.jsonl.gz (about a tenth of that).
import { createReadStream } from 'node:fs';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { toolsPatch, type RegistrySchemaChecker } from '../lib/index.ts';
import type { Archive, BodyFindingView, ChangeView, ServerView, SetView } from '../loader/views.ts';
import { bodyUrl } from './linked-objects.ts';
import { badgeText, serverBadge } from './server-badge.ts';
import { descriptorJsonSchema } from './descriptor-schema.ts';
import type { BundleFile } from './catalogue.ts';
import { bulkUrl, DESCRIPTOR_SCHEMA_PATH, DESCRIPTOR_V1_SCHEMA_PATH, descriptorPath, repositoryIndex, serverDescriptor, serverFacts, serverToolsFile, setPath, toolsPath } from './descriptor.ts';
import { jsonFeed, rssFeed, SERVER_FEED_ITEMS, serverChannel } from './feeds.ts';
import { breakingFeedPaths, serverBreakingFeeds } from './breaking-feeds.ts';
import { mcpLockJsonSchema } from './mcp-lock-schema.ts';
import { MCP_LOCK_SCHEMA_PATH } from '../lib/index.ts';
import { HashedFile } from './hashed-file.ts';
import { eachServer } from '../loader/shards.ts';
import { NameIndexes } from './name-index.ts';
import { serverStatusEntry, StatusFiles } from './status-files.ts';
import descriptorV1Schema from './descriptor-schema.v1.json';
import { SIMULATED_MARK, SIMULATED_NOTE, simulatedName, type Publication } from './publication.ts';

/** A file of lines appended a megabyte at a time (a shard's descriptors until the bulk files take them). */
class LineFile {
  private pending: string[] = [];
  private size = 0;
  constructor(private readonly file: string) {}
  async add(line: string): Promise<void> {
    this.pending.push(`${line}\n`);
    this.size += line.length + 1;
    if (this.size > 1 << 20) await this.flush();
  }
  async end(): Promise<void> {
    await this.flush();
  }
  private async flush(): Promise<void> {
    await appendFile(this.file, this.pending.join(''));
    this.pending = [];
    this.size = 0;
  }
}

/** The /api/servers/<slug>.json body. */
export async function serverApiJson(a: Archive, s: ServerView, pub: Publication, schemas: RegistrySchemaChecker): Promise<string> {
  return JSON.stringify(serverDescriptor(a, s, await serverFacts(a, s, schemas), await repositoryIndex(a), pub));
}


/** A feed per server that has a contract (answered tools/list at least once): only those can change. */
export function hasFeeds(s: ServerView): boolean {
  return s.head !== null;
}

export async function serverFeeds(s: ServerView, pub: Pick<Publication, 'permalink' | 'simulated'>, bodyFindings: readonly BodyFindingView[] = []): Promise<{ rss: string; json: string }> {
  const channel = serverChannel(s.name, s.slug);
  // The newest SERVER_FEED_ITEMS (bounded: the site stays under 1 GB); a server's findings are read newest first like its changes.
  const findings = [...bodyFindings].sort((x, y) => Date.parse(y.observedAt) - Date.parse(x.observedAt));
  return { rss: await rssFeed(s.changes, channel, pub, findings, s.instructionChanges, SERVER_FEED_ITEMS), json: jsonFeed(s.changes, channel, pub, findings, s.instructionChanges, SERVER_FEED_ITEMS) };
}

/**
 * Site path of a change's JSON Patch; it exists when the change has a diff (both bodies parsed). A JSON
 * Patch is a bare array with no place for a note, so a simulated build says it in the name.
 */
export function patchPath(c: Pick<ChangeView, 'slug' | 'id'>, pub: Pick<Publication, 'simulated'>): string {
  return `/servers/${c.slug}/changes/${simulatedName(`${c.id}.patch.json`, pub)}`;
}

export function hasPatch(c: Pick<ChangeView, 'diff'>): boolean {
  return c.diff !== null;
}

/** A change as RFC 6902 operations turning its before tools into its after tools (name-keyed), or null without both lists. */
export async function changePatch(a: Pick<Archive, 'tools'>, c: ChangeView): Promise<string | null> {
  if (!hasPatch(c) || !c.beforeBody || !c.afterBody) return null;
  const [before, after] = [await a.tools(c.beforeBody, c.beforeSha256), await a.tools(c.afterBody, c.afterSha256)];
  if (!Array.isArray(before) || !Array.isArray(after)) return null;
  return `${JSON.stringify(toolsPatch(before, after), null, 2)}\n`;
}

export interface WrittenServerFiles {
  files: number;
  /** The bulk descriptor files, for datapackage.json and the SHA256SUMS of where they live. */
  bundles: { file: BundleFile; where: 'data' | 'release' | 'api' }[];
}

/**
 * Write every server's descriptor, tools file and feeds, the bulk descriptors, the set files and the
 * schema. `schemas`: the official server.json schemas each registry entry is checked against
 * (registry-schemas.ts registrySchemas). `only`: the slugs whose badge, feeds and JSON Patches are
 * written (the servers whose fingerprint moved, src/outputs/server-pages-incremental.ts); null for
 * every server. Descriptors, tools files and set files are written for every server either way, but
 * name neither the latest run nor a rolling window (those are in the status files, a bounded number
 * rewritten daily): their bytes move only when their server changes, so publish-files uploads only those.
 */
export async function writeServerFiles(a: Archive, outDir: string, pub: Publication, schemas: RegistrySchemaChecker, only: ReadonlySet<string> | null = null): Promise<WrittenServerFiles> {
  let files = 0;
  const api = path.join(outDir, 'api');
  await mkdir(path.join(api, 'servers'), { recursive: true });
  await mkdir(path.join(api, 'tools'), { recursive: true });
  const repos = await repositoryIndex(a);
  const findingsOf = new Map<string, BodyFindingView[]>();
  for (const b of a.bodyFindings) findingsOf.set(b.target, [...(findingsOf.get(b.target) ?? []), b]);

  const bulkDir = pub.releaseDir ?? api;
  const bulk = new HashedFile(path.join(bulkDir, 'servers.json'));
  // A simulated build names the bundle -SIMULATED and marks every file below (Publication.simulated).
  const linesName = simulatedName('servers.jsonl.gz', pub);
  const mark = <T extends Record<string, unknown>>(o: T): T => (pub.simulated ? { ...o, simulated: true } : o);
  const lines = new HashedFile(path.join(outDir, 'data', linesName));
  await bulk.write(Buffer.from('{"servers":['));
  const indexes = new NameIndexes(pub);
  const status = new StatusFiles(pub);
  // Which server still serves which set (its latest row is ok with that set): the set file says "still
  // serving" for those, and their ongoing count is in the status file.
  const serving = new Set<string>();
  const setObservations = new Map<string, number>();
  for (const set of a.sets) for (const x of set.servers) setObservations.set(servingKey(set.setHash, x.target), x.observations);
  // Shard by shard (Archive.serversIn: one shard's views alive at a time); each shard's descriptor lines
  // (in name order) go to a file of their own, and the bulk files take them back in name order below.
  const parts = await mkdtemp(path.join(tmpdir(), 'mcp-schema-descriptors-'));
  const partFile = (k: number) => path.join(parts, `${k}.jsonl`);
  const part = Array.from({ length: a.shards }, (_, k) => new LineFile(partFile(k)));
  for await (const [k, s] of eachServer(a)) {
    const facts = await serverFacts(a, s, schemas);
    const d = serverDescriptor(a, s, facts, repos, pub);
    indexes.add(s, facts.tools, facts.hashes);
    const served = s.status === 'ok' && s.current?.setHash ? servingKey(s.current.setHash, s.name) : null;
    if (served) serving.add(served);
    await status.add(serverStatusEntry(a, s, facts, served ? (setObservations.get(served) ?? null) : null));
    const line = JSON.stringify(d);
    await writeFile(path.join(api, 'servers', `${s.slug}.json`), line);
    files++;
    await part[k]!.add(line);
    const tools = serverToolsFile(s, facts, pub);
    if (tools) {
      await writeFile(path.join(outDir, toolsPath(s.slug)), JSON.stringify(mark(tools)));
      files++;
    }
    if (only && !only.has(s.slug)) continue;
    const dir = path.join(outDir, 'servers', s.slug);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'badge.svg'), serverBadge(simulatedBadge(badgeText(s, a.asOfDay), pub)));
    files++;
    if (s.changes.some(hasPatch)) await mkdir(path.join(dir, 'changes'), { recursive: true });
    for (const c of s.changes) {
      const patch = await changePatch(a, c);
      if (patch === null) continue;
      await writeFile(path.join(outDir, ...patchPath(c, pub).split('/').filter(Boolean)), patch);
      files++;
    }
    if (!hasFeeds(s)) continue;
    const f = await serverFeeds(s, pub, findingsOf.get(s.name));
    await writeFile(path.join(dir, 'feed.xml'), f.rss);
    await writeFile(path.join(dir, 'feed.json'), f.json);
    const b = await serverBreakingFeeds(s, pub, findingsOf.get(s.name));
    const bp = breakingFeedPaths(s.slug);
    await writeFile(path.join(outDir, ...bp.rss.split('/').filter(Boolean)), b.rss);
    await writeFile(path.join(outDir, ...bp.json.split('/').filter(Boolean)), b.json);
    files += 4;
  }
  for (const p of part) await p.end();
  // Every descriptor in name order (Archive.rows): each row's line is the next one of its shard's file.
  const readers = Array.from({ length: a.shards }, (_, k) => createInterface({ input: createReadStream(partFile(k)), crlfDelay: Infinity })[Symbol.asyncIterator]());
  let pending: string[] = [];
  let pendingSize = 0;
  for (const [i, row] of a.rows.entries()) {
    const next = await readers[row.shard]!.next();
    if (next.done) throw new Error(`server-files: shard ${row.shard} wrote no descriptor for ${JSON.stringify(row.name.slice(0, 200))}`);
    const line = next.value as string;
    await bulk.write(Buffer.from(i === 0 ? line : `,\n${line}`));
    pending.push(`${line}\n`);
    pendingSize += line.length;
    if (pendingSize > 1 << 20) {
      await lines.gzipChunk(pending.join(''));
      pending = [];
      pendingSize = 0;
    }
  }
  for (const r of readers) await r.return?.();
  await rm(parts, { recursive: true, force: true });
  await lines.gzipChunk(pending.join('')); // an empty archive still downloads as valid gzip
  await bulk.write(Buffer.from(`],"metadata":${JSON.stringify(mark({ count: a.rows.length, generated_at: a.asOf, schema_url: pub.permalink(DESCRIPTOR_SCHEMA_PATH) }))}}\n`));
  const written = { bulk: await bulk.end(), lines: await lines.end() };
  if (!pub.releaseDir) {
    // A simulated build says so on a comment line (`sha256sum -c --strict` skips lines that start with #).
    await writeFile(path.join(api, 'servers.json.sha256'), `${pub.simulated ? `# ${SIMULATED_NOTE}\n` : ''}${written.bulk.sha256}  servers.json\n`);
    files += 2;
  }

  await mkdir(path.join(api, 'sets'), { recursive: true });
  for (const set of a.sets) {
    await writeFile(path.join(outDir, setPath(set.setHash)), JSON.stringify(mark(await setFile(a, set, pub, serving))));
    files++;
  }
  await mkdir(path.join(api, 'schema'), { recursive: true });
  await writeFile(path.join(outDir, DESCRIPTOR_SCHEMA_PATH), JSON.stringify(descriptorJsonSchema(pub.permalink(DESCRIPTOR_SCHEMA_PATH)), null, 2));
  files++;
  await writeFile(path.join(outDir, DESCRIPTOR_V1_SCHEMA_PATH), JSON.stringify({ $id: pub.permalink(DESCRIPTOR_V1_SCHEMA_PATH), ...descriptorV1Schema }, null, 2));
  files++;
  await writeFile(path.join(outDir, MCP_LOCK_SCHEMA_PATH), JSON.stringify(mcpLockJsonSchema(pub.permalink(MCP_LOCK_SCHEMA_PATH)), null, 2));
  files++;
  files += await indexes.write(outDir);
  files += await status.write(outDir, a.asOf);
  const rows = a.rows.length;
  return {
    files,
    bundles: [
      { file: { name: linesName, resource: 'servers', rows, ...written.lines }, where: 'data' },
      { file: { name: 'servers.json', url: bulkUrl(pub), resource: 'servers', rows, ...written.bulk }, where: pub.releaseDir ? 'release' : 'api' },
    ],
  };
}

const servingKey = (setHash: string, name: string) => `${setHash}\n${name}`;

/**
 * /api/sets/<set hash>.json: the set's lines, and every server that served it with first and last seen.
 * `serving`: the servers that still serve it (servingKey), whose last_seen and count are null here
 * (still serving; the count is in their status file), so the file changes only when a server starts or
 * stops serving the set.
 */
export async function setFile(a: Archive, set: SetView, pub: Pick<Publication, 'permalink' | 'objectsUrl'>, serving: ReadonlySet<string>): Promise<Record<string, unknown>> {
  const hashes = await a.toolHashes(set.bodySha256);
  const lines = typeof hashes === 'string' ? null : hashes.lines;
  return {
    set_sha256: set.setHash,
    definition_hash: 'tool definition hash, version 1 (mcp-pin docs/TOOL_DEFINITION_HASH.md): the SHA-256 of `lines` joined with "\\n" (no final newline); each line is a tool name and the SHA-256 of the RFC 8785 form of its definition as served',
    methodology: 'v1',
    tools: lines?.length ?? null,
    lines,
    raw_body_url: bodyUrl(a, set.bodySha256, pub.objectsUrl, pub.permalink),
    servers_total: set.servers.length,
    servers: set.servers.map((s) => {
      const still = serving.has(servingKey(set.setHash, s.target));
      return {
        name: s.target,
        descriptor_url: pub.permalink(descriptorPath(s.slug)),
        page_url: pub.permalink(`/servers/${s.slug}/`),
        first_seen: s.firstSeen,
        still_serving: still,
        last_seen: still ? null : s.lastSeen,
        observations: still ? null : s.observations,
      };
    }),
  };
}

/** A badge embedded in a README has no banner beside it: in a simulated build its label says so. */
function simulatedBadge(t: ReturnType<typeof badgeText>, pub: Pick<Publication, 'simulated'>): ReturnType<typeof badgeText> {
  return pub.simulated ? { ...t, label: `${SIMULATED_MARK} ${t.label}` } : t;
}
