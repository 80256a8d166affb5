// The record's second copy, written as the first is: a MirroredStore puts every key into the primary
// bucket and then into the copy (another provider: MCP_SCHEMA_STORE_COPY, src/archive/store-config.ts),
// so the copy covers the whole record, the open month included, from the day it is configured (what
// was stored before is brought over once with `npm run store -- copy`).
//
//   - put: the primary, then the copy. Either failing is a StoreError, and the collector stops on it
//     as on any store failure (exit 5, the day's rows kept, a re-run with the same --now resumes): a
//     copy that silently lags would be a copy nobody can count on. To collect on the primary alone
//     while the copy's provider is down, unset MCP_SCHEMA_STORE_COPY; `store -- copy` catches up.
//   - get: the primary's bytes; the copy's only when the primary has none (a reader is not stopped by
//     a key lost in one bucket; verify reads each bucket on its own and names what is lost where).
//   - has, list: the primary's.
// Why every put and not a daily copy job: no lag (the open day is in both buckets as it is written),
// no daily listing of two buckets at archive scale, and the cost is a second PUT per new key
// (≈ 14 MB and a few thousand requests a day), the same as a daily copy would make.
import type { ObjectStore } from './object-store.ts';

export class MirroredStore implements ObjectStore {
  readonly description: string;

  constructor(
    readonly primary: ObjectStore,
    readonly copy: ObjectStore,
  ) {
    this.description = `${primary.description}, copied to ${copy.description}`;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    await this.primary.put(key, bytes);
    await this.copy.put(key, bytes);
  }

  async get(key: string): Promise<Buffer | null> {
    return (await this.primary.get(key)) ?? this.copy.get(key);
  }

  has(key: string): Promise<boolean> {
    return this.primary.has(key);
  }

  list(prefix: string): AsyncIterable<string> {
    return this.primary.list(prefix);
  }
}
