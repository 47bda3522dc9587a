import path from 'node:path';
import { loadArazzo } from '../arazzo/load-arazzo.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import type { ArazzoSpec } from '../sculpt/load-backends.ts';
import type { CompiledBackend } from './compile-backends.ts';
import { workflowSource, type WorkflowSource } from './workflow-tool.ts';

/**
 * Reads the Arazzo descriptions one backends file declares and binds each OpenAPI source
 * description to the backend that serves it: the one the file names under `sources`, or the one
 * whose `openapi` is the same file as the source's `url` (resolved relative to the description,
 * as the specification says). The backend gives what a description never should: the base URL,
 * the credentials, the egress rule. A source no backend serves is an error naming the fix.
 */
export async function bindArazzo(
  specs: ArazzoSpec[],
  backends: ReadonlyMap<string, CompiledBackend>,
  broken: ReadonlySet<string>,
): Promise<{ sources: Map<string, WorkflowSource>; errors: SculptorError[] }> {
  const sources = new Map<string, WorkflowSource>();
  const errors: SculptorError[] = [];
  for (const spec of specs) {
    const { arazzo, errors: loadErrors } = await loadArazzo(spec.documentFile);
    if (!arazzo) {
      errors.push(...loadErrors);
      continue;
    }
    const bound = new Map<string, CompiledBackend>();
    let complete = true;
    for (const [i, source] of arazzo.doc.sourceDescriptions.entries()) {
      if ((source.type ?? 'openapi') !== 'openapi') continue;
      const named = spec.sources[source.name];
      const local = /^[a-z][a-z0-9+.-]*:/i.test(source.url)
        ? undefined
        : path.resolve(path.dirname(arazzo.file), decodeURI(source.url.split('#')[0]!));
      const candidates = named
        ? [...backends.values()].filter((b) => b.name === named)
        : [...backends.values()].filter(
            (b) =>
              local !== undefined && b.description.kind === 'openapi' && b.description.location === local,
          );
      const brokenMatch = named ? broken.has(named) : false;
      if (candidates.length === 1) {
        bound.set(source.name, candidates[0]!);
        continue;
      }
      complete = false;
      if (brokenMatch) continue; // its OpenAPI document failed to load: reported already
      const at = named ? spec.sourcesAt : arazzo.source.at(['sourceDescriptions', i, 'url']);
      const message = named
        ? `Arazzo '${spec.name}': sources names backend '${named}' for source '${source.name}', but ${spec.file} declares no such backend.`
        : candidates.length > 1
          ? `Arazzo '${spec.name}': source '${source.name}' is the document of backends ${candidates.map((b) => b.name).join(' and ')}: say which serves it under arazzo.${spec.name}.sources.`
          : `Arazzo '${spec.name}': no backend serves source '${source.name}' (${source.url}): declare one in ${path.basename(spec.file)} whose openapi is that file, with its baseUrl and credentials, or name one under arazzo.${spec.name}.sources.`;
      errors.push(new SculptorError('load.unknown_backend', message, { at }));
    }
    if (complete) sources.set(spec.name, workflowSource({ name: spec.name, arazzo, sources: bound }));
  }
  return { sources, errors };
}
