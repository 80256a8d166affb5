// Which addresses the prober may contact (methodology v1, "Address safety"). The registry is
// unvetted, so every endpoint is hostile until proven otherwise:
//   - literal hosts are checked before anything is sent (the WHATWG URL parser has already turned
//     decimal/octal/hex IPv4 spellings into dotted quads; `localhost` names are loopback by RFC 6761);
//   - DNS names are checked inside undici's connect `lookup` hook, on the addresses we are about to
//     connect to, so a name that re-binds between a check and the connect cannot slip through;
//   - and the socket's remote address is checked once more after connect (belt and braces).
// Only ipaddr.js's `unicast` range is allowed: loopback, private, link-local (cloud metadata),
// CGNAT, multicast, reserved, unspecified, unique-local, 6to4/teredo/NAT64 and IPv4-mapped forms of
// any of them are refused. We use ipaddr.js rather than hand-written CIDR tables: its range list is
// maintained against the IANA special-purpose registries. The transport (http.ts) applies this
// policy; it decides nothing about addresses itself.
import dns from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { buildConnector } from 'undici';
import { GUARD, GuardError } from './errors.ts';

/** Why an IP address may not be contacted, or null when it is public unicast. */
export function addressRefusal(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return `${bare} is not an ip address`;
  // process() unwraps IPv4-mapped IPv6 (::ffff:a.b.c.d) so the IPv4 ranges apply to it.
  const ip = ipaddr.process(bare);
  const range = ip.range();
  return range === 'unicast' ? null : `${bare} is ${range}`;
}

/** Why a URL's host may not be contacted (before any DNS), or null. DNS names are checked at connect. */
export function hostRefusal(url: URL): string | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `scheme ${url.protocol} is not http(s)`;
  return nameRefusal(url.hostname);
}

/** A literal address or a localhost name (RFC 6761: always loopback, whatever DNS says). */
function nameRefusal(hostname: string): string | null {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return `${hostname} is a localhost name (loopback)`;
  if (isIP(host)) return addressRefusal(host);
  return null;
}

/** The error a refused address becomes (classified as tls at step `address`, errors.ts). */
export function refused(message: string): GuardError {
  return new GuardError(GUARD.addressRefused, `refused address: ${message}`);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** dns.lookup that fails when ANY resolved address is refused (a mixed answer is a rebinding smell). */
export function safeLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    for (const a of addresses) {
      const why = addressRefusal(a.address);
      if (why) return callback(refused(`${hostname} resolves to ${why}`) as NodeJS.ErrnoException, []);
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}

/** An undici connector that refuses non-unicast addresses: literal hosts before connecting, names at lookup, every socket after. */
export function guardedConnector(timeoutMs: number): buildConnector.connector {
  const base = buildConnector({ timeout: timeoutMs, lookup: safeLookup as never });
  return (options, callback) => {
    // Literal addresses never reach the lookup hook, so they are checked here.
    const early = nameRefusal(options.hostname);
    if (early) return callback(refused(early), null);
    base(options, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error('connect failed'), null);
      const why = socket.remoteAddress ? addressRefusal(socket.remoteAddress) : 'socket has no remote address';
      if (why) {
        socket.destroy();
        return callback(refused(why), null);
      }
      callback(null, socket);
    });
  };
}
