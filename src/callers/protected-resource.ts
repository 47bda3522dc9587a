import type { CallerDirectory } from './load-callers.ts';

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for this gateway: which
 * authorization server issues the access tokens it accepts, so an MCP client that
 * receives a 401 can find where to get one. Without an identity block the gateway
 * names no authorization server (static tokens are handed out by its operator).
 */
export function protectedResourceMetadata(
  directory: CallerDirectory | undefined,
  /** This gateway's resource identifier as clients reach it (the identity block's audience, when set). */
  resource: string,
): Record<string, unknown> {
  const identity = directory?.identity;
  const scopes = identity?.scopes ? [...identity.scopes.keys()] : undefined;
  return {
    resource: identity?.provider.config.audience ?? resource,
    ...(identity ? { authorization_servers: [identity.provider.config.issuer] } : {}),
    bearer_methods_supported: ['header'],
    ...(scopes?.length ? { scopes_supported: scopes } : {}),
    resource_name: 'Sculptor',
  };
}
