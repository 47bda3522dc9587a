/**
 * Base URLs a document declares, as plain strings that operation paths can be
 * appended to. The backend's configured base URL overrides these; they are
 * kept as the default and for checks (RELIABILITY B1: the origin comes only
 * from trusted config, so server variables get their declared defaults here and
 * are never filled from a call).
 */
import { isRecord } from './is-record.ts';
import type { Deref } from './schema-views.ts';

/** `deref` follows references, for a document that is not dereferenced. */
export function readServers(api: Record<string, unknown>, deref: Deref = (value) => value): string[] {
  return api.swagger === undefined ? oas3Servers(deref(api.servers), deref) : swagger2Servers(api);
}

function oas3Servers(raw: unknown, deref: Deref): string[] {
  if (!Array.isArray(raw)) return [];
  const urls: string[] = [];
  for (const entry of raw) {
    const server = deref(entry);
    if (!isRecord(server) || typeof server.url !== 'string') continue;
    const declared = deref(server.variables);
    const variables = isRecord(declared) ? declared : {};
    const url = server.url.replace(/\{([^}]*)\}/g, (whole, name: string) => {
      const variable = deref(variables[name]);
      return isRecord(variable) && typeof variable.default === 'string' ? variable.default : whole;
    });
    urls.push(withoutTrailingSlash(url));
  }
  return urls;
}

/** Swagger 2: one URL per declared scheme (https when none is), from `host` + `basePath`. */
function swagger2Servers(api: Record<string, unknown>): string[] {
  const basePath = typeof api.basePath === 'string' ? api.basePath : '';
  if (typeof api.host !== 'string' || api.host === '')
    return basePath ? [withoutTrailingSlash(basePath)] : [];
  const declared = Array.isArray(api.schemes) ? api.schemes.filter((s) => typeof s === 'string') : [];
  const schemes = declared.length > 0 ? declared : ['https'];
  return schemes.map((scheme) => withoutTrailingSlash(`${scheme}://${api.host}${basePath}`));
}

function withoutTrailingSlash(url: string): string {
  return url.length > 1 && url.endsWith('/') ? url.replace(/\/+$/, '') || '/' : url;
}
