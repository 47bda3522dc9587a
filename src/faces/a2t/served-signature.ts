import type { ScopedCatalog, ToolAudience } from '../../catalog/catalog.ts';
import type { CompiledTool } from '../../compile/compile-tool.ts';
import type { ToolSignature } from '../../compile/tool-signature.ts';

/** A2T's ToolSignature as served: the version's signature plus the tool's current version. */
export type ServedSignature = ToolSignature & { currentVersion: number };

export function servedSignature(
  catalog: ScopedCatalog,
  audience: ToolAudience,
  tool: CompiledTool,
): ServedSignature {
  const current = catalog.currentVersion(audience, tool.signature.toolId);
  return { ...tool.signature, currentVersion: current ?? tool.signature.version };
}

/**
 * Each version's served signature as JSON, made on first use per catalog: a catalog never
 * changes (a reload builds a new one), so a listing joins strings instead of spreading and
 * stringifying 100 signatures per request. Strings, not Buffers: a page built from Buffers is a
 * fresh 150 KB ArrayBuffer per request, external memory that made V8 run full mark-compacts of
 * the whole (large) heap, 200 ms pauses at 8 connections. Kept by the face, since it is the
 * face's wire form; it goes with its catalog.
 */
const byCatalog = new WeakMap<ScopedCatalog, Map<CompiledTool, string>>();

/**
 * `JSON.stringify(servedSignature(catalog, audience, tool))`, once per catalog: a signature is
 * the same for every audience that may see it, so the first one's look-up serves the others.
 */
export function signatureJson(catalog: ScopedCatalog, audience: ToolAudience, tool: CompiledTool): string {
  let cache = byCatalog.get(catalog);
  if (!cache) {
    cache = new Map();
    byCatalog.set(catalog, cache);
  }
  let json = cache.get(tool);
  if (json === undefined) {
    json = JSON.stringify(servedSignature(catalog, audience, tool));
    cache.set(tool, json);
  }
  return json;
}
