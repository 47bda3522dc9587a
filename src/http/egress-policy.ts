/**
 * Egress policy (RELIABILITY B4): which IP addresses a backend call may reach.
 *
 * The check runs at CONNECT time, on the address the socket will really use:
 * IP literals are checked before the socket is opened, and host names are
 * checked inside the DNS `lookup` hook that `net.connect` calls, so the address
 * we check is the address we connect to (no DNS rebinding window between a
 * check and a second resolution). This also covers any URL a later redirect
 * policy might follow.
 */
import dns from 'node:dns';
import net from 'node:net';
import { buildConnector, errors } from 'undici';
import { SculptorError } from '../errors/sculptor-error.ts';

/** IPv4 ranges no public backend lives in: where a request there goes is our own network. */
const FORBIDDEN_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network": 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // CGNAT (e.g. 100.100.100.200, a cloud metadata address)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, 169.254.169.254 metadata
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including 255.255.255.255
];

const FORBIDDEN_V6: ReadonlyArray<readonly [string, number]> = [
  ['::', 96], // unspecified (::), loopback (::1) and the deprecated IPv4-compatible form
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard prefix
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
];

function v4ToHexGroups(address: string): [string, string] {
  const [a = 0, b = 0, c = 0, d = 0] = address.split('.').map(Number);
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}

function buildBlockList(): net.BlockList {
  const list = new net.BlockList();
  for (const [address, prefix] of FORBIDDEN_V4) {
    // BlockList matches IPv4-mapped IPv6 (::ffff:a.b.c.d) against these IPv4
    // rules by itself; the tests pin that down.
    list.addSubnet(address, prefix, 'ipv4');
    // Translation prefixes carry an IPv4 address inside an IPv6 one: a NAT64
    // or 6to4 gateway would deliver 64:ff9b::7f00:1 to 127.0.0.1.
    const [hi, lo] = v4ToHexGroups(address);
    list.addSubnet(`64:ff9b::${hi}:${lo}`, 96 + prefix, 'ipv6');
    list.addSubnet(`2002:${hi}:${lo}::`, 16 + prefix, 'ipv6');
  }
  for (const [address, prefix] of FORBIDDEN_V6) list.addSubnet(address, prefix, 'ipv6');
  return list;
}

const BLOCK_LIST = buildBlockList();

/** True when `address` (an IP literal) must not be reached without `allowPrivate`. Non-IPs are refused too. */
export function isForbiddenAddress(address: string): boolean {
  // A scope id (fe80::1%eth0) is not part of the address BlockList parses.
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const ip = bare.split('%', 1)[0] ?? '';
  const family = net.isIP(ip);
  if (family === 0) return true;
  return BLOCK_LIST.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

function forbidden(host: string, address: string): SculptorError {
  // The message may reach the LLM: it names no host or address. The cause keeps them for logs.
  return new SculptorError(
    'upstream.forbidden_address',
    'The backend address is not allowed by the egress policy.',
    {
      cause: new Error(`egress policy refused ${host} (${address})`),
      hint: `${host === address ? address : `${host} resolves to ${address}`}, a loopback or private address: if the backend is internal, mark it \`allowPrivate: true\` in its backends file, or set SCULPTOR_ALLOW_PRIVATE_EGRESS=true for every backend (local development and tests); SCULPTOR_ALLOW_HTTP_BACKENDS alone allows http:// but not private addresses`,
    },
  );
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;
export type LookupFunction = (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => void;

const systemLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, callback);
};

/**
 * Wraps a resolver so that it refuses a name when ANY of its addresses is
 * forbidden. Filtering out the bad ones instead would let a name answer
 * "public, private" and leave the choice to the happy-eyeballs race.
 */
export function guardLookup(inner: LookupFunction = systemLookup): LookupFunction {
  return (hostname, options, callback) => {
    inner(hostname, { ...options, all: true }, (err, result, family) => {
      if (err) return callback(err, '');
      const addresses: dns.LookupAddress[] = Array.isArray(result)
        ? result
        : [{ address: result, family: family ?? net.isIP(result) }];
      const bad = addresses.find((a) => isForbiddenAddress(a.address));
      if (bad !== undefined || addresses.length === 0) {
        return callback(forbidden(hostname, bad?.address ?? 'no address'), '');
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

export interface ConnectorOptions {
  connectTimeoutMs: number;
  /** When false, the egress policy applies to every connection this connector opens. */
  allowPrivate: boolean;
  lookup?: LookupFunction | undefined;
}

/**
 * undici's connector with our own connect timer. undici runs its connect
 * timeout on its coarse "fast timers" (500 ms ticks: a 200 ms timeout fired
 * after about 1 s on this machine); a plain setTimeout keeps it to the
 * millisecond. The timer covers DNS lookup, TCP and TLS handshakes.
 */
function timedConnector(
  connectTimeoutMs: number,
  lookup: LookupFunction | undefined,
): buildConnector.connector {
  const base = buildConnector({ timeout: 0, ...(lookup === undefined ? {} : { lookup }) });
  return (connectOptions, callback) => {
    let timer: NodeJS.Timeout | undefined;
    // buildConnector documents that it returns the socket synchronously; its type says void.
    const socket = (
      base as unknown as (o: buildConnector.Options, cb: buildConnector.Callback) => net.Socket
    )(connectOptions, (...args) => {
      clearTimeout(timer);
      callback(...args);
    });
    timer = setTimeout(() => {
      socket.destroy(
        new errors.ConnectTimeoutError(
          `Connect Timeout Error (${connectOptions.hostname}, ${connectTimeoutMs}ms)`,
        ),
      );
    }, connectTimeoutMs);
  };
}

/** An undici connector (the Agent `connect` option) that applies the egress policy before any byte is sent. */
export function createConnector(options: ConnectorOptions): buildConnector.connector {
  const lookup = options.allowPrivate ? options.lookup : guardLookup(options.lookup);
  const connect = timedConnector(options.connectTimeoutMs, lookup);
  if (options.allowPrivate) return connect;
  return (connectOptions, callback) => {
    // net.connect skips `lookup` for IP literals, so those are checked here.
    // undici passes IPv6 hosts without brackets; the URL parser already
    // normalized forms such as 2130706433 or 0x7f.1 to 127.0.0.1.
    const host = connectOptions.hostname;
    if (net.isIP(host) !== 0 && isForbiddenAddress(host)) {
      process.nextTick(callback, forbidden(host, host), null);
      return;
    }
    connect(connectOptions, callback);
  };
}
