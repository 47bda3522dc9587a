import { type CompiledBackend, compileBackends } from '../compile/compile-backends.ts';
import { type CompiledTool, compileTool } from '../compile/compile-tool.ts';
import type { SculptorError } from '../errors/sculptor-error.ts';
import type { OpenApiDocument } from '../openapi/load-openapi.ts';
import { loadSculpts } from '../sculpt/load-sculpts.ts';

/**
 * Every sculpt of a folder compiled on its own, without the checks across
 * tools (duplicate versions, A2T §5.4) that make `compileSculpts` refuse the
 * whole folder: `sculptor diff` must be able to show a change that breaks
 * §5.4, which is exactly when the folder does not compile. The same stages
 * as compileSculpts otherwise.
 */
export async function compileEach(
  root: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<{ tools: CompiledTool[]; errors: SculptorError[] }> {
  const loaded = await loadSculpts(root, env);
  const errors: SculptorError[] = [...loaded.errors];
  const documents = new Map<string, Promise<OpenApiDocument>>();
  const backendsByFile = new Map<string, { backends: Map<string, CompiledBackend>; broken: Set<string> }>();
  for (const [file, specs] of loaded.backendFiles) {
    const compiled = await compileBackends(specs, documents);
    errors.push(...compiled.errors);
    backendsByFile.set(file, compiled);
  }
  const tools: CompiledTool[] = [];
  for (const sculpt of loaded.sculpts) {
    const known = (sculpt.backendsFile && backendsByFile.get(sculpt.backendsFile)) || undefined;
    const { tool, errors: toolErrors } = compileTool(sculpt, known?.backends ?? new Map(), known?.broken);
    errors.push(...toolErrors);
    if (tool) tools.push(tool);
  }
  return { tools, errors };
}
