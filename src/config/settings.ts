import { randomBytes } from 'node:crypto';

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
  redisUrl: string | undefined;
  /** Signs paging cursors and keys caller-scoped cache entries; share it across replicas. */
  secret: string;
  secretFromEnv: boolean;
  allowPrivateEgress: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  drainMs: number;
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
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl))
    problems.push('REDIS_URL must start with redis:// or rediss://.');
  const secret = env.SCULPTOR_SECRET;
  if (secret !== undefined && secret !== '' && secret.length < 16) {
    problems.push('SCULPTOR_SECRET must be at least 16 characters.');
  }

  const settings: Settings = {
    port: int('PORT', 8080, 0, 65_535),
    host: env.HOST || '0.0.0.0',
    prefix,
    sculpts: env.SCULPTOR_SCULPTS || 'sculpts',
    redisUrl,
    secret: secret || randomBytes(32).toString('hex'),
    secretFromEnv: Boolean(secret),
    allowPrivateEgress: bool('SCULPTOR_ALLOW_PRIVATE_EGRESS'),
    logLevel: oneOf(
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      'info',
    ),
    drainMs: int('SCULPTOR_DRAIN_MS', 8_000, 0, 600_000),
    ...overrides,
  };
  if (problems.length > 0) throw new SettingsError(`Invalid settings:\n  ${problems.join('\n  ')}`);
  return settings;
}
