/** The outbound backend client and its helpers; see backend-client.ts. */
export type {
  BackendClient,
  BackendClientOptions,
  BackendRequest,
  BackendResponse,
  SendOptions,
} from './backend-client.ts';
export { createBackendClient } from './backend-client.ts';
export { isForbiddenAddress, type LookupFunction } from './egress-policy.ts';
export { redactUrl } from './redact-url.ts';
