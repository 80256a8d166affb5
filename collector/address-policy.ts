// Which addresses the prober may contact (methodology v1, "Address safety"; methodology v2 applies the
// same policy to every URL a server hands us: redirects, RFC 9728 metadata URLs, the HTTP+SSE detect).
// The registry is unvetted, so every endpoint is hostile until proven otherwise:
//   - literal hosts are checked before anything is sent (the WHATWG URL parser has already turned
//     decimal/octal/hex IPv4 spellings into dotted quads; `localhost` names are loopback by RFC 6761);
//   - DNS names are checked inside undici's connect `lookup` hook, on the addresses we are about to
//     connect to, so a name that re-binds between a check and the connect cannot slip through;
//   - and the socket's remote address is checked once more after connect (belt and braces).
// Policy `public` (the published archive) allows only ipaddr.js's `unicast` range: loopback, private,
// link-local (cloud metadata), CGNAT, multicast, reserved, unspecified, unique-local,
// 6to4/teredo/NAT64 and IPv4-mapped forms of any of them are refused. Policy `public+loopback` (local
// test worlds, whose servers all live on 127.0.0.0/8) also allows `loopback` — and nothing else: a
// metadata URL at 10.0.0.1 or 169.254.169.254 is refused in tests exactly as in production, so a test
// can prove the refusal instead of relying on a connect that happens to fail. We use ipaddr.js rather
// than hand-written CIDR tables: its range list is maintained against the IANA special-purpose
// registries. The transport (http.ts) applies this policy; it decides nothing about addresses itself.
import dns from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { buildConnector } from 'undici';
import { GUARD, GuardError } from './errors.ts';

/** Which addresses may be contacted: public unicast only, or that plus loopback (local worlds and tests). */
export type AddressPolicy = 'public' | 'public+loopback';
export const ADDRESS_POLICIES: readonly AddressPolicy[] = ['public', 'public+loopback'];

/** Why an IP address may not be contacted under `policy`, or null when it may. */
export function addressRefusal(address: string, policy: AddressPolicy = 'public'): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return `${bare} is not an ip address`;
  // process() unwraps IPv4-mapped IPv6 (::ffff:a.b.c.d) so the IPv4 ranges apply to it.
  const ip = ipaddr.process(bare);
  const range = ip.range();
  if (range === 'unicast') return null;
  if (range === 'loopback' && policy === 'public+loopback') return null;
  return `${bare} is ${range}`;
}

/** Why a URL's host may not be contacted (before any DNS), or null. DNS names are checked at connect. */
export function hostRefusal(url: URL, policy: AddressPolicy = 'public'): string | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `scheme ${url.protocol} is not http(s)`;
  return nameRefusal(url.hostname, policy);
}

/** A literal address or a localhost name (RFC 6761: always loopback, whatever DNS says). */
function nameRefusal(hostname: string, policy: AddressPolicy): string | null {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if ((host === 'localhost' || host.endsWith('.localhost')) && policy !== 'public+loopback') return `${hostname} is a localhost name (loopback)`;
  if (isIP(host)) return addressRefusal(host, policy);
  return null;
}

/** The error a refused address becomes (classified as tls at step `address`, errors.ts). */
export function refused(message: string): GuardError {
  return new GuardError(GUARD.addressRefused, `refused address: ${message}`);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
type Lookup = (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => void;

/** dns.lookup that fails when ANY resolved address is refused under `policy` (a mixed answer is a rebinding smell). */
export function lookupFor(policy: AddressPolicy): Lookup {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      for (const a of addresses) {
        const why = addressRefusal(a.address, policy);
        if (why) return callback(refused(`${hostname} resolves to ${why}`) as NodeJS.ErrnoException, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

/** The lookup hook of policy `public`. */
export const safeLookup: Lookup = lookupFor('public');

/**
 * An undici connector that refuses what `policy` refuses: literal hosts before connecting, names at
 * lookup, every socket after. `onConnect` (tests) hears of every connection attempt that passed the
 * literal check, before any socket exists: a refused literal never reaches it.
 */
export function guardedConnector(timeoutMs: number, policy: AddressPolicy = 'public', onConnect?: (hostname: string, port: string) => void): buildConnector.connector {
  const base = buildConnector({ timeout: timeoutMs, lookup: lookupFor(policy) as never });
  return (options, callback) => {
    // Literal addresses never reach the lookup hook, so they are checked here.
    const early = nameRefusal(options.hostname, policy);
    if (early) return callback(refused(early), null);
    onConnect?.(options.hostname, String(options.port ?? ''));
    base(options, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error('connect failed'), null);
      const why = socket.remoteAddress ? addressRefusal(socket.remoteAddress, policy) : 'socket has no remote address';
      if (why) {
        socket.destroy();
        return callback(refused(why), null);
      }
      callback(null, socket);
    });
  };
}
