import { SculptorError } from '../errors/sculptor-error.ts';
import { redactUrl } from '../http/redact-url.ts';

/**
 * Which model endpoint, read without loading its client (the `openai` package, ≈ 0.5 s to
 * import): the Studio asks this on every page, and only loads the client to ask the model.
 */

/** Read from the environment: the key never travels as a command-line option (it would show in `ps`). */
export const ENV = {
  url: 'SCULPTOR_EVAL_URL',
  model: 'SCULPTOR_EVAL_MODEL',
  key: 'SCULPTOR_EVAL_API_KEY',
} as const;

export interface EndpointConfig {
  /** Base URL, e.g. http://127.0.0.1:11434/v1 (the client appends /chat/completions). */
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  /** Retries of a 429, a 5xx or a dropped connection, with backoff (the client's policy). */
  retries: number;
}

export function endpointFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  overrides: { url?: string; model?: string; timeoutMs?: number; retries?: number } = {},
): EndpointConfig {
  const baseUrl = overrides.url ?? env[ENV.url];
  const model = overrides.model ?? env[ENV.model];
  const missing = [
    !baseUrl ? `${ENV.url} (e.g. http://127.0.0.1:11434/v1 for a local Ollama)` : undefined,
    !model ? `${ENV.model} (e.g. qwen2.5:7b)` : undefined,
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new SculptorError(
      'eval.config',
      `No model to evaluate with: set ${missing.join(' and ')}, or pass --url and --model. An API key, when the endpoint needs one, goes in ${ENV.key}.`,
    );
  }
  let url: URL;
  try {
    url = new URL(baseUrl!);
  } catch {
    throw new SculptorError('eval.config', `${ENV.url} is not a URL: write it as http(s)://host:port/v1.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SculptorError('eval.config', `${ENV.url} must be an http or https URL, not ${url.protocol}.`);
  }
  const key = env[ENV.key];
  return {
    baseUrl: url.toString().replace(/\/+$/, ''),
    model: model!,
    ...(key ? { apiKey: key } : {}),
    timeoutMs: overrides.timeoutMs ?? 120_000,
    retries: overrides.retries ?? 2,
  };
}

/** The endpoint as reports show it: no credentials, no query. */
export function describeEndpoint(config: EndpointConfig): string {
  return redactUrl(config.baseUrl);
}

const MASK = '•••';

/** Every known secret in a text, as written and as JSON escapes it, replaced by •••. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    out = out.split(s).join(MASK);
    const escaped = JSON.stringify(s).slice(1, -1);
    if (escaped !== s) out = out.split(escaped).join(MASK);
  }
  return out;
}
