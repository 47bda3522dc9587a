import { isRecord } from './is-record.ts';

/** What a document says of its OAuth 2.0 client-credentials flow. */
export interface ClientCredentialsFlow {
  tokenUrl: string;
  /**
   * The scopes the document's top-level `security` requirement asks of this scheme, when it
   * names any: what a client of the whole API is expected to request.
   */
  scopes: string[] | undefined;
}

/**
 * The client-credentials flow a document declares (OAS 3.x
 * `components.securitySchemes.*.flows.clientCredentials`, Swagger 2.0 `securityDefinitions.*`
 * with `flow: application`), so a backend's `oauth` block may leave `tokenUrl` and `scopes` out.
 * The first one declared wins; none: undefined.
 */
export function clientCredentialsFlow(
  api: Record<string, unknown>,
  follow: (value: unknown) => unknown,
): ClientCredentialsFlow | undefined {
  const components = follow(api.components);
  const schemes = follow(isRecord(components) ? components.securitySchemes : api.securityDefinitions);
  if (!isRecord(schemes)) return undefined;
  for (const [name, entry] of Object.entries(schemes)) {
    const scheme = follow(entry);
    if (!isRecord(scheme) || scheme.type !== 'oauth2') continue;
    const flows = follow(scheme.flows);
    const flow = isRecord(flows)
      ? follow(flows.clientCredentials)
      : scheme.flow === 'application'
        ? scheme
        : undefined;
    if (isRecord(flow) && typeof flow.tokenUrl === 'string') {
      return { tokenUrl: flow.tokenUrl, scopes: requiredScopes(follow(api.security), name, follow) };
    }
  }
  return undefined;
}

/** The scopes the first top-level requirement naming `scheme` lists; undefined when none names any. */
function requiredScopes(
  security: unknown,
  scheme: string,
  follow: (value: unknown) => unknown,
): string[] | undefined {
  if (!Array.isArray(security)) return undefined;
  for (const requirement of security) {
    const entry = follow(requirement);
    const scopes = isRecord(entry) ? follow(entry[scheme]) : undefined;
    if (Array.isArray(scopes) && scopes.length > 0 && scopes.every((s) => typeof s === 'string')) {
      return scopes as string[];
    }
  }
  return undefined;
}
