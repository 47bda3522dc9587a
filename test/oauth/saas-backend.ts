import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';

/**
 * An OAuth-protected backend on 127.0.0.1, as a SaaS API is: `GET /whoami` answers
 * who the access token says the caller is, after checking the token's signature
 * against the identity provider's keys, its issuer and its audience; 401 otherwise.
 * `rejectNext` makes it refuse the next N valid tokens (a revoked token).
 */
export interface SaasBackend {
  url: string;
  /** Every request, with the bearer token it carried. */
  requests: Array<{ token: string | undefined; status: number; headerValues: string[] }>;
  rejectNext: number;
  close(): Promise<void>;
}

export async function startSaasBackend(issuer: string, audience: string): Promise<SaasBackend> {
  const keys = createRemoteJWKSet(new URL(`${issuer}/jwks`), { cooldownDuration: 0 });
  const backend: SaasBackend = { url: '', requests: [], rejectNext: 0, close: async () => {} };
  const server = http.createServer(async (req, res) => {
    req.resume();
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const entry = { token, status: 401, headerValues: req.rawHeaders.filter((_, i) => i % 2 === 1) };
    backend.requests.push(entry);
    const answer = (status: number, body: unknown) => {
      entry.status = status;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (!token) return answer(401, { error: 'no token' });
    try {
      const { payload } = await jwtVerify(token, keys, { issuer, audience });
      if (backend.rejectNext > 0) {
        backend.rejectNext--;
        return answer(401, { error: 'token revoked' });
      }
      const actor = (payload.act as { sub?: string } | undefined)?.sub;
      return answer(200, { sub: payload.sub, client_id: payload.client_id, ...(actor ? { actor } : {}) });
    } catch {
      return answer(401, { error: 'invalid token' });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  backend.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  backend.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return backend;
}
