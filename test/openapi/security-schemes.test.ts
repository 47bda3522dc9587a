import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOpenApi } from '../../src/openapi/load-openapi.ts';

describe('the OAuth client-credentials flow a document declares', () => {
  it('is read from an OAS 3 flow, a multi-file description written by others', async () => {
    const doc = await loadOpenApi(
      `${import.meta.dirname}/../fixtures/specs/multifile/redocly-openapi-starter/openapi.yaml`,
    );
    // Its top-level security names no scopes of the scheme: none to request by default.
    expect(doc.oauthFlow).toEqual({
      tokenUrl: 'https://api.cafe.redocly.com/oauth2/token',
      scopes: undefined,
    });
  });

  it("takes the scopes the document's top-level security requirement asks of the scheme", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sculptor-flow-'));
    try {
      const file = path.join(dir, 'api.json');
      await writeFile(
        file,
        JSON.stringify({
          openapi: '3.0.3',
          info: { title: 't', version: '1' },
          paths: {},
          security: [{ other: ['x'] }, { cc: ['crm.read', 'crm.write'] }],
          components: {
            securitySchemes: {
              other: { type: 'apiKey', in: 'header', name: 'x-key' },
              cc: {
                type: 'oauth2',
                flows: { clientCredentials: { tokenUrl: 'https://idp.test/token', scopes: {} } },
              },
            },
          },
        }),
      );
      expect((await loadOpenApi(file)).oauthFlow).toEqual({
        tokenUrl: 'https://idp.test/token',
        scopes: ['crm.read', 'crm.write'],
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is absent when the document declares none', async () => {
    expect((await loadOpenApi('test/fixtures/mini.openapi.yaml')).oauthFlow).toBeUndefined();
  });
});
