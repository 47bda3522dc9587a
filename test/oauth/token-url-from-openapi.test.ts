/**
 * A backend's token endpoint and scopes read from its OpenAPI description:
 * backends.yaml names the client and leaves `tokenUrl` and `scopes` out; the description's
 * client-credentials flow says where tokens come from, its security requirement which scopes. A real authorization server (oidc-provider) issues them and the backend
 * checks each one.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { type IdentityProviderHarness, startIdentityProvider } from '../support/identity-provider.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';
import { type SaasBackend, startSaasBackend } from './saas-backend.ts';

const CRM = 'https://crm.test/';
const SECRET = 'gateway-client-secret-0123456789';

let idp: IdentityProviderHarness;
let crm: SaasBackend;
let dir: string;

beforeAll(async () => {
  idp = await startIdentityProvider({
    clients: [
      {
        client_id: 'sculptor-gateway',
        client_secret: SECRET,
        grant_types: ['client_credentials'],
        scope: 'crm.read',
      },
    ],
    resources: { [CRM]: { scope: 'crm.read' } },
  });
  crm = await startSaasBackend(idp.issuer, CRM);
  dir = await mkdtemp(path.join(tmpdir(), 'sculptor-token-url-'));
  // The CRM's description with the flow a SaaS vendor publishes, pointing at this provider.
  const description = parseDocument(await readFile('test/oauth/fixtures/crm.openapi.yaml', 'utf8'));
  description.setIn(['components', 'securitySchemes', 'crmOAuth'], {
    type: 'oauth2',
    flows: { clientCredentials: { tokenUrl: idp.tokenUrl, scopes: { 'crm.read': 'Read the CRM.' } } },
  });
  description.set('security', [{ crmOAuth: ['crm.read'] }]);
  await writeFile(path.join(dir, 'crm.openapi.yaml'), description.toString());
  await cp(
    'test/oauth/fixtures/sculpts/service_whoami.v1.sculpt.yaml',
    path.join(dir, 'service_whoami.v1.sculpt.yaml'),
  );
  await writeFile(
    path.join(dir, 'backends.yaml'),
    [
      'backends:',
      '  crm:',
      '    openapi: crm.openapi.yaml',
      '    baseUrl: ${CRM_URL}',
      '    allowPrivate: true',
      '    tenancy: shared',
      '    oauth:',
      '      grant: client_credentials',
      '      clientId: sculptor-gateway',
      '      clientSecret: ${GATEWAY_CLIENT_SECRET}',
      `      resource: ${CRM}`,
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await crm?.close();
  await idp?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("takes the token endpoint and the scopes from the description's client-credentials flow when backends.yaml names neither", async () => {
  const gateway = await startTestGateway(dir, { CRM_URL: crm.url, GATEWAY_CLIENT_SECRET: SECRET });
  try {
    const before = idp.issued.client_credentials ?? 0;
    const res = await invoke(gateway.url, `/tools/${toolIdFor('service_whoami')}:invoke`, {
      name: 'service_whoami',
      input_parameters: [],
    });
    expect(res.status).toBe(200);
    expect(res.body.output_parameters).toEqual([{ name: 'sub', value: 'sculptor-gateway' }]);
    expect((idp.issued.client_credentials ?? 0) - before).toBe(1);
    // The token the CRM received was asked for with the description's scope.
    const token = crm.requests.at(-1)!.token!;
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as {
      scope?: string;
    };
    expect(claims.scope).toBe('crm.read');
  } finally {
    await gateway.close();
  }
});
