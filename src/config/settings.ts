import { randomBytes } from 'node:crypto';
import { parseRedisUrl } from '../cache/redis-url.ts';
import { jsonataSettingsProblems } from './jsonata-settings.ts';
import { openApiLimitProblems } from '../openapi/openapi-limits.ts';

/**
 * Every setting comes from the environment (12-factor), is validated once at
 * start, and a bad value stops the gateway with a message naming it.
 */
export interface Settings {
  port: number;
  host: string;
  /** The A2T {platform-root}: '' or '/segment[/segment…]'. */
  prefix: string;
  sculpts: string;
  /** The callers file (RELIABILITY D1-D5); without one every request is the anonymous caller of one tenant. */
  callers: string | undefined;
  redisUrl: string | undefined;
  /** Signs paging cursors and keys caller-scoped cache entries; share it across replicas. */
  secret: string;
  secretFromEnv: boolean;
  allowPrivateEgress: boolean;
  /** Lets backends be reached over plain http:// (RELIABILITY B1); SCULPTOR_ALLOW_PRIVATE_EGRESS implies it. */
  allowHttpBackends: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  drainMs: number;
  /** Inbound: the request head must arrive within this (slowloris, RELIABILITY A2). */
  headersTimeoutMs: number;
  /** Inbound: the whole request, body included, must arrive within this (A2). */
  requestTimeoutMs: number;
  /** Backend calls per invocation, retries included (RELIABILITY C9). */
  maxBackendCalls: number;
  /** Event-loop lag (ms) above which invocations are shed and readiness fails; 0 = off (RELIABILITY C10). */
  shedLagMs: number;
  /** Invocations per second per caller; 0 = no limit (RELIABILITY A7). */
  rateLimitPerS: number;
  /** How many invocations a caller may make at once before the rate applies. */
  rateLimitBurst: number;
  /**
   * Invocations one caller may have in flight at once; 0 = no cap. Half the
   * per-origin bulkhead (32), so one caller cannot take all of a backend's slots.
   */
  maxInflightPerCaller: number;
  /**
   * Reload the sculpts and the callers file when their folders change (a Kubernetes ConfigMap
   * update included), as on SIGHUP; `serve --reload-on-change` sets it too.
   */
  reloadOnChange: boolean;
  /** Serve published versions whose signature changed since `sculptor.lock.json` (logged as a warning). */
  allowLockDrift: boolean;
  /**
   * Host names a request's `Host` and `Origin` may name besides loopback ones and the bind
   * address, on every route (DNS rebinding protection, server/host-policy.ts).
   */
  allowedHosts: string[];
  /** Long-lived streams (MCP `subscriptions/listen`) one caller may hold open at once; 0 = no cap. */
  maxStreamsPerCaller: number;
  /** Long-lived streams the whole gateway holds open at once. */
  maxStreams: number;
}

export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

type Env = Readonly<Record<string, string | undefined>>;

export function readSettings(env: Env = process.env, overrides: Partial<Settings> = {}): Settings {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got '${text}').`);
      return fallback;
    }
    return value;
  };
  const bool = (name: string): boolean => {
    const text = (env[name] ?? '').toLowerCase();
    if (text === '' || text === 'false' || text === '0') return false;
    if (text === 'true' || text === '1') return true;
    problems.push(`${name} must be true or false (got '${env[name]}').`);
    return false;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    if ((allowed as readonly string[]).includes(text)) return text as T;
    problems.push(`${name} must be one of ${allowed.join(', ')} (got '${text}').`);
    return fallback;
  };

  const prefix = env.SCULPTOR_PREFIX ?? '';
  if (!/^(\/[A-Za-z0-9._~-]+)*$/.test(prefix)) {
    problems.push(`SCULPTOR_PREFIX must be empty or like /a2t (got '${prefix}').`);
  }
  if (env.SCULPTOR_MCP_ALLOWED_HOSTS !== undefined) {
    // The rule guards every route, not only /mcp; a deployment that set the narrower name
    // would otherwise lose its names silently and be refused.
    problems.push(
      'SCULPTOR_MCP_ALLOWED_HOSTS is not read: set SCULPTOR_ALLOWED_HOSTS instead (the same host names; it applies to every route).',
    );
  }
  const allowedHosts = (env.SCULPTOR_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  for (const host of allowedHosts) {
    // Host names only: the check is port-agnostic, and a scheme or path would never match.
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*)$/.test(host)) {
      problems.push(
        `SCULPTOR_ALLOWED_HOSTS must be host names separated by commas, e.g. mcp.example.com (got '${host}').`,
      );
    }
  }
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl) {
    try {
      parseRedisUrl(redisUrl);
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  const secret = env.SCULPTOR_SECRET;
  if (secret !== undefined && secret !== '' && secret.length < 16) {
    problems.push('SCULPTOR_SECRET must be at least 16 characters.');
  }

  const settings: Settings = {
    port: int('PORT', 8080, 0, 65_535),
    host: env.HOST || '0.0.0.0',
    prefix,
    sculpts: env.SCULPTOR_SCULPTS || 'sculpts',
    callers: env.SCULPTOR_CALLERS || undefined,
    redisUrl,
    secret: secret || randomBytes(32).toString('hex'),
    secretFromEnv: Boolean(secret),
    allowPrivateEgress: bool('SCULPTOR_ALLOW_PRIVATE_EGRESS'),
    allowHttpBackends: bool('SCULPTOR_ALLOW_HTTP_BACKENDS'),
    logLevel: oneOf(
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      'info',
    ),
    drainMs: int('SCULPTOR_DRAIN_MS', 8_000, 0, 600_000),
    headersTimeoutMs: int('SCULPTOR_HEADERS_TIMEOUT_MS', 10_000, 100, 300_000),
    requestTimeoutMs: int('SCULPTOR_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    maxBackendCalls: int('SCULPTOR_MAX_BACKEND_CALLS', 20, 1, 1_000),
    shedLagMs: int('SCULPTOR_SHED_LAG_MS', 500, 0, 60_000),
    rateLimitPerS: int('SCULPTOR_RATE_LIMIT_PER_S', 0, 0, 100_000),
    rateLimitBurst: int('SCULPTOR_RATE_LIMIT_BURST', 20, 1, 100_000),
    // One busy agent runtime (one address, or one token) runs tens of calls at once: the default
    // lets 32 through with room to spare, and still bounds a runaway client.
    maxInflightPerCaller: int('SCULPTOR_MAX_INFLIGHT_PER_CALLER', 64, 0, 100_000),
    reloadOnChange: bool('SCULPTOR_RELOAD_ON_CHANGE'),
    allowLockDrift: bool('SCULPTOR_ALLOW_LOCK_DRIFT'),
    allowedHosts,
    maxStreamsPerCaller: int('SCULPTOR_MAX_STREAMS_PER_CALLER', 8, 0, 100_000),
    maxStreams: int('SCULPTOR_MAX_STREAMS', 1_024, 1, 100_000),
    ...overrides,
  };
  if (settings.headersTimeoutMs > settings.requestTimeoutMs) {
    problems.push(
      `SCULPTOR_HEADERS_TIMEOUT_MS (${settings.headersTimeoutMs}) must not exceed SCULPTOR_REQUEST_TIMEOUT_MS (${settings.requestTimeoutMs}).`,
    );
  }
  problems.push(...telemetryProblems(env), ...jsonataSettingsProblems(env), ...openApiLimitProblems(env));
  if (problems.length > 0) throw new SettingsError(`Invalid settings:\n  ${problems.join('\n  ')}`);
  return settings;
}

/**
 * The SCULPTOR_JSONATA_* switches and the SCULPTOR_OPENAPI_* limits alone, for commands that
 * compile sculpts without serving them (check, test, lock, init…): they are read by the
 * compiler and the OpenAPI loader at first use, so they are checked here first, to be reported
 * like every other setting. Throws SettingsError naming each bad one.
 */
export function checkJsonataSettings(env: Env = process.env): void {
  const problems = [...jsonataSettingsProblems(env), ...openApiLimitProblems(env)];
  if (problems.length > 0) throw new SettingsError(`Invalid settings:\n  ${problems.join('\n  ')}`);
}

/**
 * Tracing follows the standard OTEL_* variables, read by the OpenTelemetry
 * SDK that src/telemetry/register.ts starts. It is on only when an OTLP
 * endpoint is set (or OTEL_TRACES_EXPORTER names another exporter), and
 * OTEL_SDK_DISABLED is not true: a gateway with no collector exports nothing.
 */
export interface TelemetrySettings {
  tracing: boolean;
  /** Why tracing is on or off, for the start-up log. */
  reason: string;
  /**
   * An HTTP CLIENT span per backend call (undici's instrumentation), SCULPTOR_TRACE_BACKEND_CALLS
   * (default off): the step (or, for a one-step tool, the execute_tool span) already
   * says which backend and operation, the status and the time; with it off the gateway still
   * sends the trace context to the backend itself.
   */
  backendCallSpans?: boolean;
}

const PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'];
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];
const EXPORTERS = ['otlp', 'console', 'zipkin', 'none'];

function telemetryProblems(env: Env): string[] {
  const problems: string[] = [];
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
    const text = env[name];
    if (!text) continue;
    let url: URL | undefined;
    try {
      url = new URL(text);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      problems.push(`${name} must be an http:// or https:// URL (got '${text}').`);
    }
  }
  for (const name of ['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) {
    const text = env[name];
    if (text && !PROTOCOLS.includes(text.trim())) {
      problems.push(`${name} must be one of ${PROTOCOLS.join(', ')} (got '${text}').`);
    }
  }
  const sampler = env.OTEL_TRACES_SAMPLER;
  if (sampler && !SAMPLERS.includes(sampler.trim())) {
    problems.push(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')} (got '${sampler}').`);
  }
  const ratio = env.OTEL_TRACES_SAMPLER_ARG;
  if (ratio && sampler?.includes('traceidratio')) {
    const value = Number(ratio);
    if (!Number.isFinite(value) || value < 0 || value > 1) {
      problems.push(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 (got '${ratio}').`);
    }
  }
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const exporter of exporters) {
    if (!EXPORTERS.includes(exporter)) {
      problems.push(`OTEL_TRACES_EXPORTER must list ${EXPORTERS.join(', ')} (got '${exporter}').`);
    }
  }
  const calls = (env.SCULPTOR_TRACE_BACKEND_CALLS ?? '').trim().toLowerCase();
  if (calls !== '' && calls !== 'true' && calls !== 'false') {
    problems.push(
      `SCULPTOR_TRACE_BACKEND_CALLS must be true or false (got '${env.SCULPTOR_TRACE_BACKEND_CALLS}').`,
    );
  }
  const disabled = (env.OTEL_SDK_DISABLED ?? '').toLowerCase();
  if (disabled !== '' && disabled !== 'true' && disabled !== 'false') {
    problems.push(`OTEL_SDK_DISABLED must be true or false (got '${env.OTEL_SDK_DISABLED}').`);
  }
  return problems;
}

/** Reads and checks the OTEL_* variables the gateway relies on; throws SettingsError naming each bad one. */
export function readTelemetrySettings(env: Env = process.env): TelemetrySettings {
  const problems = telemetryProblems(env);
  if (problems.length > 0) throw new SettingsError(`Invalid settings:\n  ${problems.join('\n  ')}`);
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') {
    return { tracing: false, reason: 'OTEL_SDK_DISABLED=true' };
  }
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (exporters[0] === 'none') return { tracing: false, reason: 'OTEL_TRACES_EXPORTER=none' };
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const backendCallSpans = (env.SCULPTOR_TRACE_BACKEND_CALLS ?? '').trim().toLowerCase() === 'true';
  if (exporters.some((e) => e !== 'otlp')) {
    return { tracing: true, reason: `OTEL_TRACES_EXPORTER=${exporters.join(',')}`, backendCallSpans };
  }
  if (endpoint) return { tracing: true, reason: 'an OTLP endpoint is set', backendCallSpans };
  return { tracing: false, reason: 'no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' };
}
