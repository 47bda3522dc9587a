import { isIP } from 'node:net';
import { SculptLoadError, SculptorError } from '../errors/sculptor-error.ts';
import { isForbiddenAddress } from '../http/egress-policy.ts';
import type { OpenApiDocument } from '../openapi/load-openapi.ts';
import type { BackendSpec } from '../sculpt/load-backends.ts';
import { loadSculpts } from '../sculpt/load-sculpts.ts';
import { besideFile, checkVersions } from './check-versions.ts';
import { type CompiledBackend, compileBackends } from './compile-backends.ts';
import { type CompiledTool, compileTool } from './compile-tool.ts';
import { bindArazzo } from './bind-arazzo.ts';
import { workflowTool, type WorkflowSource } from './workflow-tool.ts';

export interface CompileOptions {
  /**
   * Refuse `http://` base URLs, except for backends marked `allowPrivate`
   * (RELIABILITY B1). The serving gateway sets it unless
   * SCULPTOR_ALLOW_PRIVATE_EGRESS or SCULPTOR_ALLOW_HTTP_BACKENDS is true.
   */
  requireHttps?: boolean;
}

/**
 * load → compile, for a whole folder: every sculpt compiled once, every
 * error from every file collected. Throws SculptLoadError listing them all.
 */
export async function compileSculpts(
  root: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  options: CompileOptions = {},
): Promise<CompiledTool[]> {
  const { tools, errors } = await compileEach(root, env, options);
  errors.push(...checkTools(tools));
  if (errors.length > 0) throw new SculptLoadError(errors);
  return tools;
}

/**
 * Every sculpt of a folder compiled on its own, without the checks across
 * tools (duplicate versions, A2T §5.4) that make `compileSculpts` refuse the
 * whole folder: `sculptor diff` must show a change that breaks §5.4, which is
 * exactly when the folder does not compile.
 */
export async function compileEach(
  root: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  options: CompileOptions = {},
): Promise<{ tools: CompiledTool[]; errors: SculptorError[] }> {
  const loaded = await loadSculpts(root, env);
  const errors: SculptorError[] = [...loaded.errors];
  if (options.requireHttps) errors.push(...insecureBackends([...loaded.backendFiles.values()].flat()));

  const documents = new Map<string, Promise<OpenApiDocument>>();
  const backendsByFile = new Map<string, { backends: Map<string, CompiledBackend>; broken: Set<string> }>();
  for (const [file, specs] of loaded.backendFiles) {
    const compiled = await compileBackends(specs, documents);
    errors.push(...compiled.errors);
    backendsByFile.set(file, compiled);
  }

  // Arazzo descriptions, by the backends file that declares them (names are that file's, as backends' are).
  const workflowsByFile = new Map<string, Map<string, WorkflowSource>>();
  for (const [file, specs] of loaded.arazzoFiles) {
    const known = backendsByFile.get(file);
    const bound = await bindArazzo(specs, known?.backends ?? new Map(), known?.broken ?? new Set());
    errors.push(...bound.errors);
    workflowsByFile.set(file, bound.sources);
  }

  const tools: CompiledTool[] = [];
  const wrapped = new Set<string>();
  for (const sculpt of loaded.sculpts) {
    const known = (sculpt.backendsFile && backendsByFile.get(sculpt.backendsFile)) || undefined;
    const workflows = (sculpt.backendsFile && workflowsByFile.get(sculpt.backendsFile)) || new Map();
    if (sculpt.doc.workflow) wrapped.add(`${sculpt.backendsFile}\0${sculpt.doc.workflow}`);
    const { tool, errors: toolErrors } = compileTool(
      sculpt,
      known?.backends ?? new Map(),
      known?.broken,
      workflows,
    );
    errors.push(...toolErrors);
    if (tool) tools.push(tool);
  }
  // Every workflow no sculpt wraps is a tool as written (or the ones the file lists).
  for (const [file, sources] of workflowsByFile) {
    for (const [name, source] of sources) {
      const spec = loaded.arazzoFiles.get(file)!.find((a) => a.name === name)!;
      const ids = spec.workflows ?? source.bound.arazzo.doc.workflows.map((w) => w.workflowId);
      for (const id of ids) {
        if (!source.bound.arazzo.doc.workflows.some((w) => w.workflowId === id)) {
          errors.push(
            new SculptorError('compile.arazzo', `Arazzo '${name}' has no workflow '${id}'.`, {
              at: spec.workflowsAt,
            }),
          );
          continue;
        }
        if (wrapped.has(`${file}\0${name}#${id}`)) continue;
        const { tool, errors: toolErrors } = workflowTool(source, id);
        errors.push(...toolErrors);
        if (tool) tools.push(tool);
      }
    }
  }
  return { tools, errors };
}

/** Checks across tools: unique versions, A2T §5.4 between consecutive versions. */
function checkTools(tools: CompiledTool[]): SculptorError[] {
  const errors: SculptorError[] = [];
  const byName = Map.groupBy(tools, (t) => t.signature.name);
  for (const versions of byName.values()) {
    const seen = new Map<number, CompiledTool>();
    for (const tool of versions) {
      const first = seen.get(tool.signature.version);
      if (first) {
        errors.push(
          new SculptorError(
            'compile.duplicate_tool',
            `${tool.signature.name} version ${tool.signature.version} is also defined in ${besideFile(tool.file, first.file)}: give one of them the next version number.`,
            { at: tool.versionAt },
          ),
        );
      }
      seen.set(tool.signature.version, tool);
    }
    errors.push(...checkVersions([...seen.values()]));
  }
  return errors;
}

/**
 * The one change that makes an http:// backend load and be reachable. A loopback or
 * private address needs the egress rule lifted too, so SCULPTOR_ALLOW_HTTP_BACKENDS
 * alone would only move the failure to the first call (upstream.forbidden_address).
 */
function insecureFix(url: string): string {
  const host = new URL(url).hostname;
  if (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    (isIP(host.replace(/^\[|\]$/g, '')) !== 0 && isForbiddenAddress(host))
  ) {
    return 'it is a loopback or private address, so mark the backend `allowPrivate: true` in its backends file (allows both http:// and the address), or set SCULPTOR_ALLOW_PRIVATE_EGRESS=true for every backend (local development and tests).';
  }
  return 'use https, mark the backend `allowPrivate: true` if it is internal, or set SCULPTOR_ALLOW_HTTP_BACKENDS=true (an address on a private network also needs allowPrivate or SCULPTOR_ALLOW_PRIVATE_EGRESS=true).';
}

/** RELIABILITY B1: plain-HTTP backends, unless internal (`allowPrivate`). */
function insecureBackends(specs: BackendSpec[]): SculptorError[] {
  const errors: SculptorError[] = [];
  for (const spec of specs) {
    if (!spec.allowPrivate && spec.oauth?.tokenUrl && /^http:\/\//i.test(spec.oauth.tokenUrl)) {
      errors.push(
        new SculptorError(
          'load.insecure_url',
          `Backend '${spec.name}' fetches tokens over plain HTTP (${spec.oauth.tokenUrl}): ${insecureFix(spec.oauth.tokenUrl)}`,
          { at: spec.oauth.at },
        ),
      );
    }
    if (!spec.allowPrivate && /^http:\/\//i.test(spec.baseUrl)) {
      errors.push(
        new SculptorError(
          'load.insecure_url',
          `Backend '${spec.name}' is reached over plain HTTP (${spec.baseUrl}): ${insecureFix(spec.baseUrl)}`,
          { at: spec.baseUrlAt },
        ),
      );
    }
  }
  return errors;
}
