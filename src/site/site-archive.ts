// The archive the site is built from: the loader (src/loader/) pointed at the folders the settings
// name, with the bundle members written by the day-summary workers of a first build
// (src/outputs/members.ts). Pages and the post-build step call siteArchive(); it is loaded once per
// build (loadArchive caches it process-wide).
import { loadArchive, type Archive } from '../loader/load-archive.ts';
import { membersPrebuild } from '../outputs/members.ts';
import { bridgeDays, cacheDir, dataDir, objectsUrl, registrySchemaDir, shards, sourceRoot, storeEnv, workers } from './settings.ts';
import { registrySchemas } from '../outputs/registry-schemas.ts';
import type { RegistrySchemaChecker } from '../lib/index.ts';
import { useObjectStore } from '../archive/objects.ts';
import { openObjectStore, readStoreConfig } from '../archive/store-config.ts';
import { buildTimings } from './timings.ts';
import { loadSiteBodies } from '../outputs/linked-objects.ts';

export function siteArchive(): Promise<Archive> {
  const dir = dataDir();
  // Objects in a bucket (MCP_SCHEMA_STORE): read through it, cached in the archive folder.
  if (readStoreConfig(storeEnv()) !== null) useObjectStore(dir, openObjectStore(dir, storeEnv()));
  const cache = { dir: cacheDir(), sourceRoot: sourceRoot() };
  return loadArchive(dir, {
    cache,
    prebuild: { workers: workers(), ...membersPrebuild(dir, cache.dir, cache.sourceRoot) },
    timings: buildTimings,
    bridgeDays: bridgeDays(),
    // Fold checkpoints (src/loader/checkpoint.ts): a daily build folds the days after the last closed one,
    // and the cache keeps no day summary of the days before it, so its size follows targets, not days.
    checkpoints: true,
    // By the archive's size (shards.ts shardCount over runs.jsonl), or MCP_SCHEMA_SHARDS: the pages and
    // the per-server files read one shard's views at a time (serversIn, server), so the bytes are the same.
    shards: shards(),
  }).then(async (a) => {
    // With an object store, which bodies stay on the site is a site-wide fact every body link asks (siteBodies): gathered once, shard by shard.
    if (objectsUrl()) await loadSiteBodies(a);
    return a;
  });
}

/** The official server.json schemas, compiled once per process: what descriptors and /statistics/ check registry entries against. */
export function siteRegistrySchemas(): RegistrySchemaChecker {
  return registrySchemas(registrySchemaDir());
}
