/**
 * Builds the backend HTTP request for one operation from parameter values
 * and an optional body. Requests are built, never forwarded (RELIABILITY I1):
 * the origin comes only from `baseUrl` (trusted config), header names only
 * from the document, and every value is placed where the operation declares
 * it and serialized by its style.
 *
 * Values are addressed by parameter name. When an operation declares the same
 * name in two locations (NWS `/zones/{type}` has `type` in path and query),
 * that name is ambiguous and each is addressed as `<in>.<name>`
 * (`path.type`, `query.type`); `parametersByKey` gives the keys.
 */
import { type InputProblem, SculptorError } from '../errors/sculptor-error.ts';
import type { Operation, OperationParameter } from './load-openapi.ts';
import { encodeBody } from './encode-body.ts';
import { isJsonMediaType, jsonFirst } from './media-type.ts';
import { InvalidValue } from './parameter-value.ts';
import {
  isForbiddenHeader,
  isToken,
  serializeCookieValue,
  serializeHeaderValue,
} from './serialize-headers.ts';
import { encodePathLiteral, parseTemplate, serializePathValue } from './serialize-path.ts';
import { serializeQueryValue } from './serialize-query.ts';

export { isJsonMediaType };

export interface BuiltRequest {
  /** Upper-case HTTP method. */
  method: string;
  url: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The body in the operation's media type (JSON, XML, form, multipart), when one was given. */
  body?: string;
}

/** Each parameter under the key `buildRequest` expects for it: its name, or `<in>.<name>` when the name is ambiguous. */
export function parametersByKey(op: Operation): Map<string, OperationParameter> {
  const counts = new Map<string, number>();
  for (const p of op.parameters) counts.set(p.name, (counts.get(p.name) ?? 0) + 1);
  return new Map(op.parameters.map((p) => [counts.get(p.name) === 1 ? p.name : `${p.in}.${p.name}`, p]));
}

/** Keys of the parameters a call must supply (path parameters always are, whatever the document says). */
export function requiredParameters(op: Operation): string[] {
  return [...parametersByKey(op)].filter(([, p]) => p.required || p.in === 'path').map(([key]) => key);
}

export function buildRequest(
  op: Operation,
  baseUrl: string,
  params: Record<string, unknown>,
  body?: unknown,
): BuiltRequest {
  const base = parseBase(baseUrl);
  const { route, byKey, required, template, accept } = prepared(op);

  // Mistakes in the sculpt (compile.*) are reported before problems with values (input.invalid):
  // a value's problem is only collected here, and thrown once every mistake has been looked for.
  const problems: InputProblem[] = [];
  const pathValues = new Map<string, string>();
  const query: string[] = [];
  const headers: Record<string, string> = {};
  // Cookie parameters are rare: their list is made for a request that has one.
  let cookies: string[] | undefined;
  // for…in, not Object.entries: no pair array per parameter (params is a plain object, its own keys).
  for (const key in params) {
    if (!Object.hasOwn(params, key)) continue;
    const value = params[key];
    const param = byKey.get(key);
    if (!param) {
      const known = [...byKey.keys()].join(', ') || 'none';
      throw new SculptorError(
        'compile.unknown_param',
        `${route} has no parameter '${key}' (it has: ${known}).`,
      );
    }
    if (param.in === 'header' && isForbiddenHeader(param.name)) {
      throw new SculptorError(
        'compile.forbidden_param',
        `Header '${param.name}' may not be set by a sculpt.`,
      );
    }
    if ((param.in === 'header' || param.in === 'cookie') && !isToken(param.name)) {
      throw new SculptorError(
        'compile.unsupported_operation',
        `${route}: '${param.name}' is not a valid ${param.in} name.`,
      );
    }
    if (value === undefined || value === null) continue;
    try {
      if (param.in === 'path') pathValues.set(param.name, serializePathValue(param, value));
      else if (param.in === 'query') query.push(...serializeQueryValue(param, value));
      else if (param.in === 'header') addHeader(headers, param.name, serializeHeaderValue(param, value));
      else (cookies ??= []).push(...serializeCookieValue(param, value));
    } catch (error) {
      if (!(error instanceof InvalidValue)) throw error;
      problems.push({ parameter: key, reason: `${param.in} parameter ${error.message}` });
    }
  }
  for (const key of required) {
    if (Object.hasOwn(params, key) && params[key] != null) continue;
    const missing = required.filter((k) => !Object.hasOwn(params, k) || params[k] == null);
    throw new SculptorError('compile.missing_param', `${route} requires parameter(s) ${missing.join(', ')}.`);
  }
  const hasBody = body !== undefined && body !== null;
  if (hasBody && !op.requestBody)
    throw new SculptorError('compile.unknown_param', `${route} takes no request body.`);
  if (!hasBody && op.requestBody?.required) {
    throw new SculptorError('compile.missing_param', `${route} requires a request body.`);
  }
  if (cookies) addHeader(headers, 'cookie', cookies.join('; '));

  const request: BuiltRequest = { method: op.method, url: '', headers };
  if (hasBody) {
    let encoded: ReturnType<typeof encodeBody>;
    try {
      encoded = encodeBody(op.requestBody!, body, route);
    } catch (error) {
      if (error instanceof SculptorError) throw error;
      encoded = { problems: [{ parameter: 'body', reason: 'the request body cannot be serialized' }] };
    }
    if ('problems' in encoded) problems.push(...encoded.problems);
    else {
      request.body = encoded.text;
      headers['content-type'] ??= encoded.contentType;
    }
  }
  if (accept) headers['accept'] ??= accept;
  if (problems.length > 0) throw invalid(problems);

  let path = '';
  for (const part of template) {
    path += 'literal' in part ? part.literal : pathValues.get(part.placeholder);
  }
  // The URL parser keeps this path exactly as built (RELIABILITY B2): every value is encoded as
  // one segment, `.` and `..` refused (serialize-path.ts), and the template's own text was checked
  // once (checkedTemplate). The origin is the configured one: the path starts with '/'.
  request.url = `${base.origin}${base.path}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
  return request;
}

interface Base {
  origin: string;
  /** Base path without trailing slash ('' for the root). */
  path: string;
}

/** Parsed base URLs: a handful per deployment (backends.yaml), parsed once, not per request. */
const parsedBases = new Map<string, Base>();

function parseBase(baseUrl: string): Base {
  let base = parsedBases.get(baseUrl);
  if (!base) {
    base = parseBaseOnce(baseUrl);
    if (parsedBases.size >= 1024) parsedBases.clear(); // bounded, should reloads bring many
    parsedBases.set(baseUrl, base);
  }
  return base;
}

function parseBaseOnce(baseUrl: string): Base {
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    url = undefined;
  }
  // Not a caller's mistake: the base URL is configuration, checked when backends load.
  if (
    !url ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search !== '' ||
    url.hash !== ''
  ) {
    throw new SculptorError('internal', 'The backend base URL is not an absolute http(s) URL without query.');
  }
  return { origin: url.origin, path: url.pathname.replace(/\/+$/, '') };
}

/**
 * What depends only on the operation, worked out on its first request and
 * kept: requests are built on every invocation, operations change only on
 * reload (a new Operation object).
 */
interface PreparedOperation {
  route: string;
  byKey: Map<string, OperationParameter>;
  required: string[];
  template: ReturnType<typeof checkedTemplate>;
  accept: string | undefined;
}

const preparedOps = new WeakMap<Operation, PreparedOperation>();

function prepared(op: Operation): PreparedOperation {
  let entry = preparedOps.get(op);
  if (!entry) {
    const route = `${op.method} ${op.path}`;
    entry = {
      route,
      byKey: parametersByKey(op),
      required: requiredParameters(op),
      template: checkedTemplate(op, route),
      accept: acceptHeader(op),
    };
    preparedOps.set(op, entry);
  }
  return entry;
}

/**
 * The template split into parts, its literals already encoded (they are the same on every call),
 * refusing what the document got wrong in a way no value can fix.
 */
function checkedTemplate(op: Operation, route: string) {
  if (!op.path.startsWith('/') || /[?#]/.test(op.path) || !op.path.isWellFormed()) {
    // e.g. weatherbit's `/current?lat={lat}&lon={lon}`: a query inside the path template.
    throw new SculptorError('compile.unsupported_operation', `${route}: path template must be a plain path.`);
  }
  const template = parseTemplate(op.path);
  for (const part of template) {
    if ('placeholder' in part && !op.parameters.some((p) => p.in === 'path' && p.name === part.placeholder)) {
      throw new SculptorError(
        'compile.unsupported_operation',
        `${route}: the path placeholder {${part.placeholder}} has no path parameter.`,
      );
    }
  }
  const encoded = template.map((part) =>
    'literal' in part ? { literal: encodePathLiteral(part.literal) } : part,
  );
  // With each value a plain letter, whatever the URL parser would change is the template's own
  // (a '.' or '..' segment, in any encoding): refused here, once, so that no built URL needs
  // parsing again to be sure of its path.
  const probe = encoded.map((part) => ('literal' in part ? part.literal : 'x')).join('');
  if (new URL(`http://h${probe}`).pathname !== probe) {
    throw new SculptorError(
      'compile.unsupported_operation',
      `${route}: the path template has a '.' or '..' segment, which URL parsing would remove; fix the operation's path in the OpenAPI document.`,
    );
  }
  return encoded;
}

/** Repeated header parameters combine as HTTP combines repeated fields. */
function addHeader(headers: Record<string, string>, name: string, value: string): void {
  const key = name.toLowerCase();
  const previous = headers[key];
  headers[key] = previous === undefined ? value : `${previous}${key === 'cookie' ? '; ' : ', '}${value}`;
}

/** Media types of the 2xx responses, only the JSON ones when there are any (the gateway reads JSON). */
function acceptHeader(op: Operation): string | undefined {
  const types = new Set<string>();
  for (const [status, response] of Object.entries(op.responses)) {
    if (status.startsWith('2')) for (const type of response.mediaTypes) types.add(type);
  }
  const ordered = jsonFirst([...types]);
  const json = ordered.filter(isJsonMediaType);
  const chosen = json.length > 0 ? json : ordered;
  return chosen.length > 0 ? chosen.join(', ') : undefined;
}

function invalid(problems: InputProblem[]): SculptorError {
  const list = problems.map((p) => `${p.parameter}: ${p.reason}`).join('; ');
  return new SculptorError('input.invalid', `Invalid parameters: ${list}.`, { problems });
}
