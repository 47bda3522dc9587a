import { SculptorError } from '../errors/sculptor-error.ts';
import { loadOpenApi, type OpenApiDocument } from '../openapi/load-openapi.ts';
import type { BackendSpec } from '../sculpt/load-backends.ts';

/** A backend with its OpenAPI document loaded and indexed. */
export interface CompiledBackend extends BackendSpec {
  document: OpenApiDocument;
}

/**
 * Loads the OpenAPI document of every backend in one backends file. Each
 * document is read once, however many backends or folders name it.
 */
export async function compileBackends(
  specs: BackendSpec[],
  documents: Map<string, Promise<OpenApiDocument>>,
): Promise<{ backends: Map<string, CompiledBackend>; broken: Set<string>; errors: SculptorError[] }> {
  const backends = new Map<string, CompiledBackend>();
  const broken = new Set<string>();
  const errors: SculptorError[] = [];
  for (const spec of specs) {
    let pending = documents.get(spec.openapiFile);
    if (!pending) {
      pending = loadOpenApi(spec.openapiFile);
      documents.set(spec.openapiFile, pending);
    }
    try {
      const document = await pending;
      backends.set(spec.name, { ...spec, document, oauth: withTokenUrl(spec, document, errors) });
    } catch (err) {
      const message = err instanceof SculptorError ? err.message : String(err);
      errors.push(new SculptorError('load.openapi', message, { at: spec.openapiAt, cause: err }));
      broken.add(spec.name);
    }
  }
  return { backends, broken, errors };
}

/**
 * Client credentials without a tokenUrl (or scopes) take what the backend's OpenAPI document
 * declares: its client-credentials flow's token endpoint, and the scopes its top-level security
 * requirement asks of that scheme.
 */
function withTokenUrl(
  spec: BackendSpec,
  document: OpenApiDocument,
  errors: SculptorError[],
): BackendSpec['oauth'] {
  const oauth = spec.oauth;
  if (!oauth || oauth.grant !== 'client_credentials') return oauth;
  const flow = document.oauthFlow;
  // No scopes in backends.yaml (an empty list, as loaded): the description's, where it names some.
  const scopes = oauth.scopes.length === 0 && flow?.scopes ? { scopes: flow.scopes } : {};
  if (oauth.tokenUrl) return { ...oauth, ...scopes };
  if (flow) return { ...oauth, tokenUrl: flow.tokenUrl, ...scopes };
  errors.push(
    new SculptorError(
      'load.schema',
      `Backend '${spec.name}': its OpenAPI document declares no OAuth client-credentials flow; set oauth.tokenUrl to the provider's token endpoint.`,
      { at: oauth.at },
    ),
  );
  return oauth;
}
