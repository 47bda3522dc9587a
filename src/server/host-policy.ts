import { SculptorError } from '../errors/sculptor-error.ts';

/** The one setting that names the host names a gateway answers besides the ones it knows itself. */
export const ALLOWED_HOSTS_SETTING = 'SCULPTOR_ALLOWED_HOSTS';

/** Names that always mean this machine: a DNS name could be re-pointed at it, these cannot. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Listening on every interface names no host: only loopback and the setting's names are known then. */
const WILDCARD_BINDS = new Set(['0.0.0.0', '::', '[::]', '']);

export interface HostPolicyOptions {
  /** The address the gateway listens on (HOST): a specific one is a name clients use. */
  bindAddress: string;
  /** Host names from SCULPTOR_ALLOWED_HOSTS (lower case, no port). */
  allowedHosts: readonly string[];
  /**
   * Whether bearer tokens guard every route (a callers file). A page rebinding its own name to
   * the gateway cannot present a token, so `Host` is then checked only when names are configured
   * or the gateway listens on loopback; `Origin` is checked always.
   */
  callersConfigured: boolean;
}

/**
 * The whole server's DNS-rebinding rule, answered before any face or mounted app sees the
 * request. A web page the user opens may re-point its own name at 127.0.0.1 and then call the
 * gateway "same-origin" from the browser's point of view; what gives it away is the `Host` it
 * sends (its own name) and, on a cross-site call, the `Origin`.
 *
 * - `Host` (when checked): loopback names, the bind address, an IP literal (a page cannot be
 *   served from an address it does not own, so an IP cannot be rebound), or a name of the setting.
 * - `Origin` (when sent): a loopback origin (local agent tools run on any port there), a name of
 *   the setting, or the request's own `Host` (the docs page calling its own gateway). Anything
 *   else, `null` included, is a cross-site page.
 *
 * Returns the refusal, or undefined when the request may go on. Verdicts per header value are
 * kept (a bounded number: a scanner sending many is answered, not remembered), since clients
 * send the same few values and the check runs on every request.
 */
export function createHostPolicy(
  options: HostPolicyOptions,
): (host: string | undefined, origin: string | undefined) => SculptorError | undefined {
  const known = new Set<string>([...LOOPBACK_NAMES, ...options.allowedHosts.map((h) => h.toLowerCase())]);
  const bind = bracketed(options.bindAddress.toLowerCase());
  if (!WILDCARD_BINDS.has(bind)) known.add(bind);
  const loopbackBind = LOOPBACK_NAMES.includes(bind);
  const checkHost = !options.callersConfigured || options.allowedHosts.length > 0 || loopbackBind;
  const originNames = new Set<string>([
    ...LOOPBACK_NAMES,
    ...options.allowedHosts.map((h) => h.toLowerCase()),
  ]);

  const hostVerdicts = new Map<string, boolean>();
  const hostKnown = (host: string): boolean => {
    let ok = hostVerdicts.get(host);
    if (ok === undefined) {
      const name = hostName(host);
      ok = name !== undefined && (known.has(name) || isIpLiteral(name));
      remember(hostVerdicts, host, ok);
    }
    return ok;
  };
  const originVerdicts = new Map<string, string | undefined>();
  const originHost = (origin: string): string | undefined => {
    if (originVerdicts.has(origin)) return originVerdicts.get(origin);
    let host: string | undefined;
    try {
      const url = new URL(origin);
      if (url.protocol === 'http:' || url.protocol === 'https:') host = url.host.toLowerCase();
    } catch {
      host = undefined; // `null` (sandboxed frames, file pages) or garbage: no site the gateway knows
    }
    remember(originVerdicts, origin, host);
    return host;
  };

  return (host, origin) => {
    if (checkHost && (host === undefined || !hostKnown(host))) {
      return new SculptorError(
        'request.host_not_allowed',
        `This gateway does not answer to the host name '${(host ?? '').slice(0, 100)}' (DNS rebinding protection). ` +
          `If clients reach it by that name, add the name to ${ALLOWED_HOSTS_SETTING} (comma-separated host names), or guard the gateway with bearer tokens (SCULPTOR_CALLERS).`,
      );
    }
    if (origin === undefined) return undefined;
    const from = originHost(origin);
    if (from !== undefined) {
      if (host !== undefined && from === host.toLowerCase()) return undefined;
      const name = hostName(from);
      if (name !== undefined && originNames.has(name)) return undefined;
    }
    return new SculptorError(
      'request.host_not_allowed',
      `Requests from the web page origin '${origin.slice(0, 100)}' are not allowed (DNS rebinding and cross-site protection). ` +
        `If a browser-based client on that origin should reach the gateway, add its host name to ${ALLOWED_HOSTS_SETTING}.`,
    );
  };
}

/** The host name of a `Host` value (`name[:port]`, `[v6][:port]`), lower case; undefined when malformed. */
export function hostName(host: string): string | undefined {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('[')) {
    const end = lower.indexOf(']');
    if (end < 0) return undefined;
    const rest = lower.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return undefined;
    const literal = lower.slice(0, end + 1);
    return /^\[[0-9a-f:.]+\]$/.test(literal) ? literal : undefined;
  }
  const colon = lower.lastIndexOf(':');
  const name = colon < 0 ? lower : lower.slice(0, colon);
  if (colon >= 0 && !/^\d{1,5}$/.test(lower.slice(colon + 1))) return undefined;
  return /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/.test(name)
    ? name.replace(/\.$/, '')
    : undefined;
}

function isIpLiteral(name: string): boolean {
  if (name.startsWith('[')) return true; // hostName only lets a bracketed form through as a whole
  return /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(name);
}

function bracketed(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
}

function remember<V>(verdicts: Map<string, V>, key: string, value: V): void {
  if (verdicts.size < 64) verdicts.set(key, value);
}
