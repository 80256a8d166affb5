// Serve a World over loopback: the registry on 127.0.0.1 and the fleet on one listener per world host
// (127.0.1.1, 127.0.1.2, ... — all of 127/8 routes to lo on Linux), every listener sharing one MCP
// handler that resolves `/<target>/<remote>/...` against the world on the current simulated day.
// Many hosts matter: the collector allows one request in flight per host (host:port), so a fleet on one
// address would serialise the whole run. Where an address cannot be bound (macOS only has 127.0.0.1),
// the listener falls back to 127.0.0.1 on its own port: still a distinct host:port.
import { createServer, type IncomingMessage, type RequestListener, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createMcpHandler } from './mcp-host.ts';
import { startRegistry, type RegistryServer } from './registry-server.ts';
import { buildWorld, type World, type WorldOptions } from './world.ts';

export interface StartWorldOptions extends Partial<WorldOptions> {
  /** A prebuilt world (else built from seed and size). */
  world?: World;
  /** Initial simulated day (default 0). */
  day?: number;
  /** One port for everything: the registry on 127.0.0.1:port, listener i on its own address :port. 0 = ephemeral. */
  port?: number;
}

export interface RunningWorld {
  world: World;
  registry: RegistryServer;
  /** The list endpoint, e.g. http://127.0.0.1:PORT/v0.1/servers */
  registryUrl: string;
  /** Control endpoint: GET → state, POST ?day=N → set the simulated day. */
  controlUrl: string;
  /** `host:port` of each fleet listener, indexed like World.listeners. */
  hostports: readonly string[];
  readonly day: number;
  setDay(day: number): void;
  /** Requests served by the fleet so far. */
  readonly fleetRequests: number;
  readonly sessions: number;
  close(): Promise<void>;
}

export async function startWorld(opts: StartWorldOptions): Promise<RunningWorld> {
  const world = opts.world ?? buildWorld({ seed: opts.seed ?? 1, size: opts.size ?? 300, startDate: opts.startDate, maxListeners: opts.maxListeners });
  let day = opts.day ?? 0;
  const port = opts.port ?? 0;
  const handler = createMcpHandler();
  handler.setResolver((path) => world.resolve(path, day));

  let listeners: Listeners | undefined;
  let registry: RegistryServer | undefined;
  const closeAll = async () => {
    await handler.close();
    await listeners?.close();
    await registry?.close();
  };
  try {
    listeners = await startListeners(
      handler.handle,
      Array.from({ length: world.listeners }, (_, i) => world.listenerAddress(i)),
      port,
    );
    const hostports = listeners.hostports;
    registry = await startRegistry({
      entries: () => world.registryEntries(day, hostports),
      port,
      control: (req, res, url) => control(req, res, url),
    });
  } catch (err) {
    await closeAll();
    throw err;
  }
  const reg = registry;

  // Registry weather: throttling and failures for the first requests of a day; an outage for every
  // page past a name (by cursor, so retries fail too and the roster is cut short).
  let outageFrom: string | null = null;
  const applyWeather = () => {
    const w = world.registryWeather(day);
    reg.throttle(w.throttle, w.retryAfter);
    reg.failNext(w.fail, w.failStatus);
    outageFrom = w.outageFrom;
  };
  applyWeather();

  function control(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    if (outageFrom !== null && url.pathname.startsWith('/v0.1/servers')) {
      const cursor = url.searchParams.get('cursor');
      if (cursor !== null && cursor.split(':')[0]! >= outageFrom) {
        res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '1' });
        res.end(JSON.stringify({ title: 'Service Unavailable', status: 503, detail: 'simulated registry outage' }));
        return true;
      }
    }
    if (!url.pathname.startsWith('/_world')) return false;
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'POST') {
      const d = Number(url.searchParams.get('day') ?? (url.searchParams.has('advance') ? day + 1 : NaN));
      if (!Number.isInteger(d) || d < 0 || d > 100_000) {
        send(400, { error: 'day must be an integer 0..100000 (POST /_world?day=N or ?advance)' });
        return true;
      }
      day = d;
      applyWeather();
    }
    send(200, state());
    return true;
  }
  const state = () => ({ seed: world.seed, size: world.size, day, date: world.date(day), targets: world.targets.length, listeners: world.listeners, registry: reg.url });

  return {
    world,
    registry: reg,
    registryUrl: reg.url,
    controlUrl: `${reg.origin}/_world`,
    hostports: listeners!.hostports,
    get day() {
      return day;
    },
    setDay(d: number) {
      if (!Number.isInteger(d) || d < 0) throw new Error(`bad day ${d}`);
      day = d;
      applyWeather();
    },
    get fleetRequests() {
      return handler.requests;
    },
    get sessions() {
      return handler.sessions;
    },
    close: closeAll,
  };
}

export interface Listeners {
  /** `host:port` of each listener, in the order of the addresses given. */
  hostports: string[];
  close(): Promise<void>;
}

/**
 * One plain-HTTP listener per address, all sharing one handler, with a 5 s keep-alive: above undici's
 * 2 s keepAliveTimeoutThreshold (at 2 s no client could ever reuse a socket and every request
 * reconnected; bench/README.md, "Fleet"). A TLS ClientHello on these listeners is answered
 * "400 Bad Request" in plain text, which a client's TLS layer reports as a handshake failure
 * (ERR_SSL_WRONG_VERSION_NUMBER), as a misconfigured https port does in the wild.
 * Used by the world's fleet and by bench/fleet-server.ts.
 */
export async function startListeners(handle: RequestListener, addresses: readonly string[], port = 0): Promise<Listeners> {
  const servers: HttpServer[] = [];
  const sockets = new Set<Socket>();
  const hostports: string[] = [];
  const close = async () => {
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  };
  try {
    for (const address of addresses) {
      const server = createServer(handle);
      server.keepAliveTimeout = 5000;
      server.on('connection', (s) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      servers.push(server);
      hostports.push(await listen(server, address, port));
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { hostports, close };
}

async function listen(server: HttpServer, address: string, port: number): Promise<string> {
  try {
    await bind(server, address, port);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EADDRNOTAVAIL' && code !== 'EADDRINUSE') throw err;
    await bind(server, '127.0.0.1', 0);
  }
  const a = server.address() as AddressInfo;
  return `${a.address}:${a.port}`;
}

function bind(server: HttpServer, address: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, address, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
