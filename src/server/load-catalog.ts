import type { Logger } from 'pino';
import { checkTenancy } from '../callers/check-tenancy.ts';
import { type CallerDirectory, loadCallers } from '../callers/load-callers.ts';
import { Catalog } from '../catalog/catalog.ts';
import { compileSculpts } from '../compile/compile-sculpts.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import { lockErrors } from '../compile/signature-lock.ts';
import type { Settings } from '../config/settings.ts';
import { missingCredentialsHint, unsetCredentialVariables } from '../engine/attach-credentials.ts';
import { SculptLoadError, type SculptorError } from '../errors/sculptor-error.ts';
import { backendSecrets } from '../sculpt/backend-secrets.ts';
import type { Redactor } from '../telemetry/redactor.ts';

export interface LoadedCatalog {
  catalog: Catalog;
  /** The callers file in force; undefined without one (the anonymous caller of one tenant). */
  callers: CallerDirectory | undefined;
}

/**
 * What every host serves from, loaded the same way for the HTTP gateway (at start and on every
 * reload) and for stdio: the sculpts compiled, the callers file read, published signatures
 * checked against `sculptor.lock.json`, tenancy checked (D3) — every error at once,
 * as a SculptLoadError. Warns about backends whose credentials are unset, and hands every
 * secret it loaded to the log redactor.
 */
export async function loadCatalog(
  settings: Settings,
  env: Readonly<Record<string, string | undefined>>,
  { logger, redactor }: { logger?: Logger; redactor?: Redactor } = {},
): Promise<LoadedCatalog> {
  // TLS only, unless the deployment says otherwise (RELIABILITY B1).
  const tools = await compileSculpts(settings.sculpts, env, {
    requireHttps: !settings.allowPrivateEgress && !settings.allowHttpBackends,
  });
  const loaded = settings.callers ? await loadCallers(settings.callers, env) : { errors: [] };
  // Published signatures are enforced where they are served: a locked version
  // that changed is refused, at start and on every reload, unless SCULPTOR_ALLOW_LOCK_DRIFT.
  const drift = await lockErrors(tools, settings.sculpts);
  if (settings.allowLockDrift) {
    for (const e of drift) {
      logger?.warn(
        { event: 'lock_drift_allowed', code: e.code, ...e.at, at: where(e) },
        `SCULPTOR_ALLOW_LOCK_DRIFT is set: serving it anyway: ${e.format()}`,
      );
    }
  }
  const errors = [
    ...(settings.allowLockDrift ? [] : drift),
    ...loaded.errors,
    ...(loaded.errors.length === 0 ? checkTenancy(loaded.directory, tools) : []),
  ];
  if (errors.length > 0) throw new SculptLoadError(errors);
  for (const { backend, variable } of unsetCredentialVariables(tools)) {
    logger?.warn(
      {
        event: 'credentials_unset',
        backend: backend.name,
        file: backend.file,
        variable,
        variables: [variable],
      },
      `backend '${backend.name}' has no credentials: ${missingCredentialsHint({ name: backend.name, credentialsMissing: [variable] })}; until then its tools answer 503 upstream.credentials_missing (declared in ${backend.file})`,
    );
  }
  redactor?.add([...secretsOf(tools), ...(loaded.directory?.secrets ?? [])]);
  // The sculpts' folders are the catalog's groups (catalog/tool-groups.ts; a2t-lite's /groups).
  return { catalog: new Catalog(tools, { root: settings.sculpts }), callers: loaded.directory };
}

/** `file:line:col` of an error, for log lines. */
function where(e: SculptorError): string | undefined {
  return e.at ? `${e.at.file}:${e.at.line}:${e.at.column}` : undefined;
}

/** Every credential value the compiled tools' backends hold, for the log redactor. */
function secretsOf(tools: CompiledTool[]): string[] {
  const seen = new Set<object>();
  const values: string[] = [];
  for (const tool of tools) {
    for (const step of tool.steps) {
      if (seen.has(step.backend)) continue;
      seen.add(step.backend);
      values.push(...backendSecrets(step.backend));
    }
  }
  return values;
}
