import { isRecord } from './is-record.ts';

/**
 * The token endpoint a document declares for the OAuth 2.0 client-credentials flow
 * (OAS 3.x `components.securitySchemes.*.flows.clientCredentials.tokenUrl`, Swagger 2.0
 * `securityDefinitions.*` with `flow: application`), so a backend's `oauth` block may
 * leave `tokenUrl` out. The first one declared wins; none: undefined.
 */
export function clientCredentialsTokenUrl(
  api: Record<string, unknown>,
  follow: (value: unknown) => unknown,
): string | undefined {
  const components = follow(api.components);
  const schemes = follow(isRecord(components) ? components.securitySchemes : api.securityDefinitions);
  if (!isRecord(schemes)) return undefined;
  for (const entry of Object.values(schemes)) {
    const scheme = follow(entry);
    if (!isRecord(scheme) || scheme.type !== 'oauth2') continue;
    const flows = follow(scheme.flows);
    const flow = isRecord(flows)
      ? follow(flows.clientCredentials)
      : scheme.flow === 'application'
        ? scheme
        : undefined;
    if (isRecord(flow) && typeof flow.tokenUrl === 'string') return flow.tokenUrl;
  }
  return undefined;
}
