import { createHash } from 'node:crypto';
import path from 'node:path';
import { SculptorError, type SourcePosition } from '../errors/sculptor-error.ts';
import { interpolateEnv, literalPart } from './interpolate-env.ts';
import { validateAgainstSchema } from './validate-schema.ts';
import type { YamlSource } from './yaml-source.ts';

export interface BackendAuth {
  in: 'header' | 'query' | 'cookie';
  name: string;
  value: string;
}

/** One backend as declared in a backends file, with environment references resolved. */
export interface BackendSpec {
  name: string;
  /** The backends file that declares it. */
  file: string;
  /** Absolute path of its OpenAPI document, and where the file names it. */
  openapiFile: string;
  openapiAt: SourcePosition;
  baseUrl: string;
  /** Where the backends file sets baseUrl. */
  baseUrlAt: SourcePosition;
  /** Static headers, names lower-cased. */
  headers: Record<string, string>;
  auth: BackendAuth[];
  /** Environment variables the credentials need but that are not set. */
  credentialsMissing: string[];
  /** A stable, non-reversible id of the credentials in use (for caller-scoped cache keys). */
  credentialId: string;
  allowPrivate: boolean;
}

interface RawBackend {
  openapi: string;
  baseUrl: string;
  headers?: Record<string, string>;
  auth?: BackendAuth[];
  allowPrivate?: boolean;
}

/** Header names whose values are credentials: they may only come from the environment. */
const SENSITIVE_HEADER = /(authorization|cookie|api[-_]?key|token|secret|password|credential)/i;

/** Shapes of well-known secrets, refused wherever they are written literally. */
const SECRET_SHAPES = [
  /\b(sk|pk|rk)_(live|test)_[A-Za-z0-9]{8,}/,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/,
  /\bAKIA[0-9A-Z]{16}\b/,
  /\bBearer\s+[A-Za-z0-9._~+/-]{16,}/i,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

export function looksLikeSecret(text: string): boolean {
  return SECRET_SHAPES.some((shape) => shape.test(text));
}

export function loadBackends(
  source: YamlSource,
  env: Readonly<Record<string, string | undefined>>,
): { backends: BackendSpec[]; errors: SculptorError[] } {
  const errors = validateAgainstSchema('backends', source);
  if (errors.length > 0) return { backends: [], errors };

  const backends: BackendSpec[] = [];
  const raw = (source.value as { backends: Record<string, RawBackend> }).backends;
  for (const [name, spec] of Object.entries(raw)) {
    const at = (...p: Array<string | number>) => source.at(['backends', name, ...p]);
    const problem = (
      code: 'load.env' | 'load.literal_secret',
      message: string,
      ...p: Array<string | number>
    ) => errors.push(new SculptorError(code, message, { at: at(...p) }));

    const baseUrl = interpolateEnv(spec.baseUrl, env);
    if (baseUrl.missing.length > 0) {
      problem(
        'load.env',
        `baseUrl needs environment variable ${baseUrl.missing.join(', ')} (or a default).`,
        'baseUrl',
      );
    } else if (!isHttpUrl(baseUrl.value)) {
      problem('load.env', `baseUrl '${baseUrl.value}' is not an http(s) URL.`, 'baseUrl');
    } else if (new URL(baseUrl.value).username || new URL(baseUrl.value).password) {
      problem(
        'load.literal_secret',
        'baseUrl must not carry credentials; use auth with an environment variable.',
        'baseUrl',
      );
    }

    const headers: Record<string, string> = {};
    for (const [header, value] of Object.entries(spec.headers ?? {})) {
      const resolved = interpolateEnv(value, env);
      if (SENSITIVE_HEADER.test(header) || looksLikeSecret(literalPart(value))) {
        problem(
          'load.literal_secret',
          `Header '${header}' carries a credential: declare it under auth with an environment variable.`,
          'headers',
          header,
        );
      } else if (resolved.missing.length > 0) {
        problem(
          'load.env',
          `Header '${header}' needs environment variable ${resolved.missing.join(', ')}.`,
          'headers',
          header,
        );
      }
      headers[header.toLowerCase()] = resolved.value;
    }

    const auth: BackendAuth[] = [];
    const credentialsMissing: string[] = [];
    (spec.auth ?? []).forEach((entry, i) => {
      const resolved = interpolateEnv(entry.value, env);
      const literal = literalPart(entry.value);
      // A default inside the reference (`${TOKEN:-…}`) would be a literal secret too.
      const hasDefault = /\$\{[^}]*:-/.test(entry.value);
      if (!resolved.referencesEnv || hasDefault || looksLikeSecret(literal) || literal.length > 20) {
        problem(
          'load.literal_secret',
          `Credential '${entry.name}' must come from an environment variable, e.g. value: "\${API_TOKEN}".`,
          'auth',
          i,
          'value',
        );
      }
      credentialsMissing.push(...resolved.missing);
      auth.push({ in: entry.in, name: entry.name, value: resolved.value });
    });

    backends.push({
      name,
      file: source.file,
      openapiFile: path.resolve(path.dirname(source.file), spec.openapi),
      openapiAt: at('openapi'),
      baseUrl: baseUrl.value.replace(/\/+$/, ''),
      baseUrlAt: at('baseUrl'),
      headers,
      auth,
      credentialsMissing,
      credentialId: createHash('sha256')
        .update(JSON.stringify(auth.map((a) => [a.in, a.name, a.value])))
        .digest('hex'),
      allowPrivate: spec.allowPrivate === true,
    });
  }
  return { backends, errors };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
