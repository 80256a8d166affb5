// The registry over days: the listing on any day (versions published, isLatest moving, deprecations,
// departures, remote URLs pointed at the loopback listeners) and the registry's own weather (429s,
// 5xx answers, an outage that cuts the listing short).
import { OFFICIAL_META, type RegistryEntry } from './registry-server.ts';
import { unit } from './prng.ts';
import { cmpBytes, timestampFrom, type Remote } from './world-sources.ts';
import { WEATHER_RATE, type RegistryWeather, type WorldSetup, type WorldTarget } from './world-model.ts';

/** The loopback address of listener `i`: 127.0.1.1, 127.0.1.2, … (250 a block). */
export function listenerAddress(i: number): string {
  return `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;
}

/** The listing on `day`, memoised for the last few days asked; `hostports[i]` is listener i's `host:port`. */
export function registryListing({ key, startMs }: WorldSetup, targets: readonly WorldTarget[], listeners: number): (day: number, hostports?: readonly string[]) => RegistryEntry[] {
  const startIso = (day: number, k: string) => timestampFrom(startMs, day, k);
  const listingCache = new Map<string, RegistryEntry[]>();
  function registryEntries(day: number, hostports?: readonly string[]): RegistryEntry[] {
    const hp = hostports ?? Array.from({ length: listeners }, (_, i) => `${listenerAddress(i)}:80`);
    const cacheKey = `${day}|${hp.join(',')}`;
    const hit = listingCache.get(cacheKey);
    if (hit) return hit;
    const out: RegistryEntry[] = [];
    for (const t of targets) {
      if (day < t.joinDay) continue;
      const host = hp[t.listener] ?? hp[0] ?? '127.0.0.1:9';
      const scheme = t.tls ? 'https' : 'http';
      const rows = t.baseRows.map((row) => ({ server: { ...row.server }, _meta: { ...row._meta, [OFFICIAL_META]: { ...row._meta?.[OFFICIAL_META] } } }));
      const meta = (e: RegistryEntry) => e._meta![OFFICIAL_META]!;
      for (const v of t.versions) {
        if (v.day > day) break;
        const prev = rows.find((e) => meta(e).isLatest === true);
        if (prev) {
          meta(prev).isLatest = false;
          meta(prev).updatedAt = v.at;
        }
        const template = prev ?? rows[rows.length - 1]!;
        const server: RegistryEntry['server'] = { ...template.server, version: v.version };
        if (Array.isArray(server.packages)) {
          server.packages = (server.packages as Array<Record<string, unknown>>).map((p) => (typeof p.version === 'string' ? { ...p, version: v.version } : p));
        }
        rows.push({ server, _meta: { [OFFICIAL_META]: { status: 'active', publishedAt: v.at, updatedAt: v.at, isLatest: true } } });
      }
      if (t.deprecateDay !== null && day >= t.deprecateDay) {
        const latest = rows.find((e) => meta(e).isLatest === true);
        if (latest) {
          const at = startIso(t.deprecateDay, key('deprecate', t.name));
          meta(latest).status = 'deprecated';
          if (!(Date.parse(String(meta(latest).updatedAt)) >= Date.parse(at))) meta(latest).updatedAt = at;
        }
      }
      if (t.leaveDay !== null && day >= t.leaveDay) {
        const at = startIso(t.leaveDay, key('leave', t.name));
        for (const e of rows) {
          meta(e).status = 'deleted';
          meta(e).updatedAt = at;
        }
      }
      // Targets are in name order already; within a name, versions sort as byte strings.
      rows.sort((a, b) => cmpBytes(a.server.version, b.server.version));
      for (const e of rows) {
        if (Array.isArray(e.server.remotes)) {
          e.server.remotes = (e.server.remotes as Remote[]).map((rem) => ({ ...rem, url: String(rem.url).replace('{scheme}', scheme).replace('{host}', host) }));
        }
        out.push(e);
      }
    }
    if (listingCache.size >= 4) listingCache.delete(listingCache.keys().next().value!);
    listingCache.set(cacheKey, out);
    return out;
  }
  return registryEntries;
}

/** The registry's own trouble on `day`, one draw a day (never day 0). */
export function registryWeatherOf({ key }: WorldSetup, targets: readonly WorldTarget[]): (day: number) => RegistryWeather {
  function registryWeather(day: number): RegistryWeather {
    const clear: RegistryWeather = { throttle: 0, retryAfter: '1', fail: 0, failStatus: 502, outageFrom: null };
    if (day === 0) return clear;
    const u = unit(key('weather', day));
    if (u < WEATHER_RATE.throttle) return { ...clear, throttle: 1 };
    if (u < WEATHER_RATE.throttle + WEATHER_RATE.fail) return { ...clear, fail: 1 };
    if (u < WEATHER_RATE.throttle + WEATHER_RATE.fail + WEATHER_RATE.outage) {
      const listed = targets.filter((t) => day >= t.joinDay);
      return { ...clear, outageFrom: listed[Math.floor(listed.length / 2)]?.name ?? null };
    }
    return clear;
  }
  return registryWeather;
}
