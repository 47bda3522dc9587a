import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/server';
import type { ScopedCatalog, ToolAudience } from '../../catalog/catalog.ts';
import type { PageCursors } from '../../catalog/page-cursor.ts';
import type { CompiledTool } from '../../compile/compile-tool.ts';
import { toolSchema } from '../../compile/tool-schema.ts';
import { SculptorError } from '../../errors/sculptor-error.ts';

/** `_meta` keys of Sculptor's own (MCP reserves `io.modelcontextprotocol/*`; a vendor uses its own prefix). */
export const VERSION_META = 'io.sculptor/version';
export const TOOL_ID_META = 'io.sculptor/toolId';
export const ERROR_META = 'io.sculptor/error';
/** On `tools/list`: words to search the catalog by, most relevant first. */
export const SEARCH_META = 'io.sculptor/search';

/** Tools per `tools/list` page: clients follow `nextCursor`, and most catalogs fit in one page. */
export const TOOLS_PAGE_SIZE = 100;

const wire = new WeakMap<CompiledTool, Tool>();

/**
 * A tool version as `tools/list` shows it: the one generator's view (compile/tool-schema.ts) —
 * JSON Schema 2020-12 in and out, the description with its safety flags, annotations from the
 * effects — plus the version and id in `_meta`, so that a client can pin what it listed.
 * Made once per compiled tool, like every other view of it.
 */
export function wireTool(tool: CompiledTool): Tool {
  let made = wire.get(tool);
  if (!made) {
    const s = toolSchema(tool);
    made = {
      name: s.name,
      title: s.title,
      description: s.description,
      inputSchema: s.inputSchema as Tool['inputSchema'],
      outputSchema: s.outputSchema as Tool['outputSchema'],
      annotations: s.annotations,
      _meta: { [VERSION_META]: tool.signature.version, [TOOL_ID_META]: tool.signature.toolId },
    };
    wire.set(tool, made);
  }
  return made;
}

/**
 * One `tools/list` page of what this audience may call, by name. The cursor is the catalog's
 * signed "after this name" key, bound to the audience (a cursor of one tenant means nothing to
 * another), so a reload between pages neither repeats nor skips a tool. A bad cursor is
 * `request.bad_paging` (JSON-RPC -32602).
 */
export function listPage(
  catalog: ScopedCatalog,
  audience: ToolAudience,
  cursors: PageCursors,
  cursor: string | undefined,
  query?: string,
): { tools: Tool[]; nextCursor?: string; ttlMs?: number } {
  if (query !== undefined) return searchPage(catalog, audience, cursors, cursor, query);
  const listing = JSON.stringify(['mcp-tools', audience.key]);
  const after = cursor === undefined ? undefined : decodeCursor(cursors, listing, cursor);
  const found = catalog.list({ audience }, after, TOOLS_PAGE_SIZE + 1);
  const page = found.slice(0, TOOLS_PAGE_SIZE);
  const tools = page.map((t) => wireTool(t.current));
  if (found.length <= TOOLS_PAGE_SIZE) return { tools };
  return { tools, nextCursor: cursors.encode(listing, page.at(-1)!.name) };
}

/**
 * The key a `tools/list` cursor continues after. The catalog's own refusal names A2T's
 * `pageCursor`; an MCP client sent `cursor`, and is told so.
 */
function decodeCursor(cursors: PageCursors, listing: string, cursor: string): string {
  try {
    return cursors.decode(listing, cursor);
  } catch {
    throw new SculptorError(
      'request.bad_paging',
      'This cursor is not one the gateway gave out for this listing (it was altered, comes from another ' +
        'listing, or was signed with another SCULPTOR_SECRET); call tools/list again without a cursor.',
    );
  }
}

/**
 * `tools/list` with `_meta["io.sculptor/search"]` (an extension): the caller's tools
 * ranked by the catalog's search (BM25 over names, descriptions, inputs and tags), for clients
 * whose catalogs are too large to read whole. The cursor carries the rank the next page starts
 * at, bound to the caller and the query; a reload between pages may shift the ranking.
 */
function searchPage(
  catalog: ScopedCatalog,
  audience: ToolAudience,
  cursors: PageCursors,
  cursor: string | undefined,
  query: string,
): { tools: Tool[]; nextCursor?: string } {
  const listing = JSON.stringify([
    'mcp-search',
    audience.key,
    createHash('sha256').update(query).digest('base64url'),
  ]);
  const offset = cursor === undefined ? 0 : Number(decodeCursor(cursors, listing, cursor));
  const ranked = catalog.search(query, { audience }, { offset, limit: TOOLS_PAGE_SIZE + 1 }).items;
  const tools = ranked.slice(0, TOOLS_PAGE_SIZE).map((t) => wireTool(t.current));
  // Not to be kept: a client's list cache is keyed by method and cursor, not by `_meta`, so a
  // search page it kept would later be served as the plain listing.
  const fresh = { ttlMs: 0 };
  if (ranked.length <= TOOLS_PAGE_SIZE) return { tools, ...fresh };
  return { tools, nextCursor: cursors.encode(listing, String(offset + TOOLS_PAGE_SIZE)), ...fresh };
}
