import { SculptorError } from '../errors/sculptor-error.ts';
import { loadOpenApi, type OpenApiDocument } from '../openapi/load-openapi.ts';
import type { BackendSpec } from '../sculpt/load-backends.ts';
import { loadWsdl } from '../soap/load-wsdl.ts';
import { remoteDescriptions } from './remote-descriptions.ts';

/** A backend with its OpenAPI document (or WSDL description, in the same model) loaded and indexed. */
export interface CompiledBackend extends BackendSpec {
  document: OpenApiDocument;
}

export interface BackendLoadOptions {
  /** Lets a remote WSDL be read from a loopback or private address (tests, local development). */
  allowPrivateEgress?: boolean;
}

/**
 * Loads the description of every backend in one backends file. Each
 * description is read once, however many backends or folders name it.
 */
export async function compileBackends(
  specs: BackendSpec[],
  documents: Map<string, Promise<OpenApiDocument>>,
  options: BackendLoadOptions = {},
): Promise<{ backends: Map<string, CompiledBackend>; broken: Set<string>; errors: SculptorError[] }> {
  const backends = new Map<string, CompiledBackend>();
  const broken = new Set<string>();
  const errors: SculptorError[] = [];
  for (const spec of specs) {
    const { kind, location, service, port } = spec.description;
    const key = JSON.stringify([kind, location, service ?? null, port ?? null]);
    let pending = documents.get(key);
    if (!pending) {
      pending =
        kind === 'openapi'
          ? loadOpenApi(location)
          : remoteDescriptions(
              { allowPrivate: spec.allowPrivate || options.allowPrivateEgress === true },
              (fetchText) =>
                loadWsdl(location, { ...(service ? { service } : {}), ...(port ? { port } : {}), fetchText }),
            );
      documents.set(key, pending);
    }
    try {
      const document = await pending;
      backends.set(spec.name, { ...spec, document, oauth: withTokenUrl(spec, document, errors) });
    } catch (err) {
      const message = err instanceof SculptorError ? err.message : String(err);
      const code = kind === 'wsdl' ? 'load.wsdl' : 'load.openapi';
      errors.push(new SculptorError(code, message, { at: spec.description.at, cause: err }));
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
