// The local world: a pure function of (seed, size, day). No clock, no I/O after the fixtures are read,
// no Math.random. `buildWorld({ seed, size })` returns the registry listing and the behaviour of every
// endpoint on any simulated day; `sandbox/fleet.ts` serves it over loopback.
//
// What it is made of (see sandbox/README.md for the rates and why):
//   - targets: real registry names, descriptions, versions and remote shapes from
//     fixtures/registry/real (listing of 2025-12-12, 1,055 names). Worlds up to 1,055 targets are a
//     stratified sample of them; larger worlds add synthetic copies named `<real name>-sim-<k>` whose
//     entries say so in `server._meta["io.mcp-schema.sandbox/simulated"]`;
//   - endpoints: every remote URL is rewritten to a loopback listener (127.0.x.y, one per distinct real
//     host, so politeness per host behaves as it would in the wild); TLS-failure targets get `https://`
//     on a plain-HTTP listener, a real handshake failure;
//   - outcomes: the listing's own shape decides no_endpoint (no remote, sse-only) and, mostly, auth
//     (required header declarations); the rest get a profile (ok, 4xx, 5xx, HTML, broken JSON, TLS,
//     timeouts, 429, modern-only, session lost, flapping, dying, redirect);
//   - drift: most contracts never change; an occasional minority changes once or twice; a volatile
//     few change repeatedly, by every kind of change (tools added/removed, required property added,
//     enum narrowed, description rewritten, annotation flipped to destructive, tool hidden then
//     returned, a rare revert, a reorder that changes the bytes but not the canonical hash);
//     io.github.github/github-mcp-server steps through its real releases (fixtures), with its real
//     version tags published to the registry;
//   - registry over days: new versions (isLatest moves; `+build` versions too), deprecations, servers
//     joining late and leaving (status deleted, hidden from the default listing);
//   - eras (MCP 2026-07-28): among endpoints that serve tools, a few are real SDK v2 servers, modern-only
//     or dual-era, and some migrate on a drawn day (legacy → dual-era, dual-era → modern-only), with or
//     without a new tool list; some serve `instructions`, and a few change them;
//   - what the methodology-v2 probe classifies: auth walls with and without valid RFC 9728 metadata,
//     402 walls, deprecated HTTP+SSE endpoints, paginated tools/list;
//   - security drift for the content rules: tools renamed, hidden characters, links and secret or
//     file-path mentions added to descriptions, a tools/list body that repeats a member name.
// Every draw added for eras, auth metadata and security drift has a key of its own, so none of them
// moves an older draw (sandbox/README.md, "Eras, auth walls, security drift").
//
// buildWorld composes the steps below, one module each: the options checked and the bases chosen
// (world-targets.ts), the targets drawn (world-targets.ts, with their plans from world-plans.ts and
// their drift from world-drift.ts), the tool lists over days (world-drift.ts, security changes from
// world-security.ts), the registry listing and weather (world-registry.ts), the endpoints' behaviours
// (world-behaviours.ts) and what a probe should record (world-expected.ts). The vocabulary (types and
// rates) is world-model.ts; the fixtures it is all drawn from, world-sources.ts.
import { expectations } from './world-expected.ts';
import { serveBehaviours } from './world-behaviours.ts';
import { toolTimelines } from './world-drift.ts';
import { listenerAddress, registryListing, registryWeatherOf } from './world-registry.ts';
import { DAY_MS, realBases } from './world-sources.ts';
import { chooseBases, drawTargets, placeOnListeners, worldSetup } from './world-targets.ts';
import type { World, WorldOptions } from './world-model.ts';

export {
  AUTH_RATE,
  DEFAULT_START_DATE,
  DRIFT_RATE,
  ERA_RATE,
  GITHUB_COMPRESSION,
  GITHUB_NAME,
  HORIZON_DAYS,
  INSTRUCTIONS_RATE,
  MIGRATION_RATE,
  PAGINATION_RATE,
  PAYMENT_REQUIRED_RATE,
  PROFILE_WEIGHTS,
  SANDBOX_META,
  SECURITY_RATE,
  SECURITY_WEIGHTS,
  SSE_LEGACY_RATE,
  WEATHER_RATE,
  type AuthPlan,
  type ChangeEvent,
  type ChangeKind,
  type DriftClass,
  type EraStep,
  type Expected,
  type ExpectedV2,
  type Profile,
  type RegistryWeather,
  type V2Status,
  type VersionEvent,
  type World,
  type WorldOptions,
  type WorldTarget,
} from './world-model.ts';
export { INSTRUCTION_ADDITIONS } from './world-plans.ts';
export { JSON_SCHEMA_2020_12, modernTools } from './world-security.ts';
export { FUTURE_ONLY, WELL_KNOWN } from './world-behaviours.ts';

/** The world for these options: the same options, the same world, byte for byte. */
export function buildWorld(opts: WorldOptions): World {
  const setup = worldSetup(opts);
  const chosen = chooseBases(setup, realBases());
  const { listeners, listenerOfHost } = placeOnListeners(chosen, setup.maxListeners);
  const targets = drawTargets(setup, chosen, listenerOfHost);
  const days = toolTimelines(setup, targets);
  const { behaviour, resolve } = serveBehaviours(setup, targets, days);
  const { expected, expectedV2 } = expectations(targets, days, { behaviour, resolve });
  const indexByName = new Map(targets.map((t) => [t.name, t.index]));
  return {
    seed: setup.seed,
    size: setup.size,
    startDate: setup.startDate,
    targets,
    listeners,
    listenerAddress,
    date: (day) => new Date(setup.startMs + day * DAY_MS).toISOString().slice(0, 10),
    registryEntries: registryListing(setup, targets, listeners),
    behaviour,
    resolve,
    toolsAt: days.toolsAt,
    expected,
    expectedV2,
    indexOf: (name) => indexByName.get(name) ?? -1,
    eraAt: days.eraAt,
    instructionsAt: days.instructionsAt,
    repeatAt: days.repeatAt,
    toolsTextAt: days.toolsTextAt,
    registryWeather: registryWeatherOf(setup, targets),
  };
}
