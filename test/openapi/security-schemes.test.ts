import { describe, expect, it } from 'vitest';
import { loadOpenApi } from '../../src/openapi/load-openapi.ts';

describe('the OAuth client-credentials token endpoint a document declares (issue #21)', () => {
  it('is read from an OAS 3 flow, a multi-file description written by others', async () => {
    const doc = await loadOpenApi('../shared/specs/multifile/redocly-openapi-starter/openapi.yaml');
    expect(doc.oauthTokenUrl).toBe('https://api.cafe.redocly.com/oauth2/token');
  });

  it('is absent when the document declares none', async () => {
    expect((await loadOpenApi('test/fixtures/mini.openapi.yaml')).oauthTokenUrl).toBeUndefined();
  });
});
