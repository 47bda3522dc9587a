import type { CompiledTool } from '../compile/compile-tool.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import { buildGroups, groupIdOf, type ToolGroup } from './tool-groups.ts';
import { type SearchResult, ToolSearch } from './tool-search.ts';

export interface CatalogTool {
  toolId: string;
  name: string;
  /** Every version, most recent first (A2T §6.3). */
  versions: CompiledTool[];
  current: CompiledTool;
}

/**
 * Who is asking, as far as the catalog is concerned: any face's caller (see
 * faces/common/request-caller.ts). A tool it may not find answers exactly like a missing one
 * (RELIABILITY D5), on every face.
 */
export interface ToolAudience {
  /** Tools it may look up by id or name (its tenant's). */
  mayFind(name: string): boolean;
  /** Tools it may list and search: those it may find and also call (its token's scopes). */
  mayList(name: string): boolean;
  /** What its listings are bound to (cursors of one audience mean nothing to another). */
  key: string;
}

export interface ToolFilter {
  /** Tools carrying every one of these tags. */
  tags?: string[];
  /** Tools whose current version is this one. */
  version?: number;
  /** Only the tools this audience may list. */
  audience?: ToolAudience;
}

/**
 * The catalog as the faces read it: every look-up and listing takes the audience it answers
 * (RELIABILITY D5), so no face can reach a tool its caller may not see by forgetting a check.
 * The unscoped getters (`named`, `tool`, `version`) are for the hosts and tools that serve no
 * caller (the CLI, the Studio, tests).
 */
export interface ScopedCatalog {
  readonly size: number;
  find(audience: ToolAudience, toolId: string): CatalogTool;
  findNamed(audience: ToolAudience, name: string): CatalogTool;
  findVersion(audience: ToolAudience, toolId: string, version: number): CompiledTool;
  /** The current version of a tool the audience may find, or undefined: what a listing shows beside an older version. */
  currentVersion(audience: ToolAudience, toolId: string): number | undefined;
  list(filter: ToolFilter & { audience: ToolAudience }, after?: string, limit?: number): CatalogTool[];
  search(
    query: string,
    filter: ToolFilter & { audience: ToolAudience },
    page?: { offset?: number; limit?: number },
  ): SearchResult<CatalogTool>;
  searchGroups(
    query: string,
    filter: ToolFilter & { audience: ToolAudience },
    keep: (group: ToolGroup<CatalogTool>) => boolean,
    page?: { offset?: number; limit?: number },
  ): SearchResult<ToolGroup<CatalogTool>>;
  groups(): IterableIterator<ToolGroup<CatalogTool>>;
  groupOf(tool: CatalogTool): string | null;
}

/**
 * The immutable set of compiled tools a gateway serves. A reload builds a new
 * Catalog and swaps it whole, so a request always sees one consistent set.
 */
export class Catalog implements ScopedCatalog {
  readonly #byId: Map<string, CatalogTool>;
  /** By name too: a face that is sent a name (MCP, A2T-lite) finds it without hashing it to its id. */
  readonly #byName: Map<string, CatalogTool>;
  /** Sorted by name: the order of every listing, and the key of paging cursors. */
  readonly #sorted: CatalogTool[];
  #search: ToolSearch<CatalogTool> | undefined;
  readonly #groupOf = new Map<CatalogTool, string | null>();
  readonly #groups: Map<string, ToolGroup<CatalogTool>>;
  #groupSearch: ToolSearch<ToolGroup<CatalogTool>> | undefined;

  /** `root`: the sculpts folder, whose subfolders are the groups (see tool-groups.ts). */
  constructor(tools: CompiledTool[], { root }: { root?: string } = {}) {
    const groups = Map.groupBy(tools, (t) => t.signature.toolId);
    this.#sorted = [...groups.values()]
      .map((versions) => {
        versions.sort((a, b) => b.signature.version - a.signature.version);
        const current = versions[0]!;
        return { toolId: current.signature.toolId, name: current.signature.name, versions, current };
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.#byId = new Map(this.#sorted.map((t) => [t.toolId, t]));
    this.#byName = new Map(this.#sorted.map((t) => [t.name, t]));
    for (const t of this.#sorted)
      this.#groupOf.set(t, root === undefined ? null : groupIdOf(root, t.current.file));
    this.#groups = buildGroups(this.#sorted, (t) => this.#groupOf.get(t) ?? null);
  }

  /** The tool whose current version has this name. */
  named(name: string): CatalogTool | undefined {
    return this.#byName.get(name);
  }

  /** The group a tool's folder makes (its current version's), or null for a tool at the root. */
  groupOf(tool: CatalogTool): string | null {
    return this.#groupOf.get(tool) ?? null;
  }

  /** Every group, by id. */
  groups(): IterableIterator<ToolGroup<CatalogTool>> {
    return this.#groups.values();
  }

  group(id: string): ToolGroup<CatalogTool> | undefined {
    return this.#groups.get(id);
  }

  /**
   * Groups matching `query`, most relevant first: those whose own name or id matches, then those
   * holding the tools the same query finds, in the order of their best tool. Only tools `filter`
   * allows count, so a group is never found by the words of a tool the caller may not see.
   */
  searchGroups(
    query: string,
    filter: ToolFilter,
    keep: (group: ToolGroup<CatalogTool>) => boolean,
    { offset = 0, limit = Number.POSITIVE_INFINITY }: { offset?: number; limit?: number } = {},
  ): SearchResult<ToolGroup<CatalogTool>> {
    this.#groupSearch ??= new ToolSearch([...this.#groups.values()], (g) => ({
      name: g.name,
      tags: g.id,
      description: '',
      inputs: '',
    }));
    const found = new Set(this.#groupSearch.search(query, keep).items);
    for (const tool of this.search(query, filter).items) {
      for (let id = this.groupOf(tool); id !== null; id = this.#groups.get(id)!.parentId) {
        const group = this.#groups.get(id)!;
        if (!found.has(group) && keep(group)) found.add(group);
      }
    }
    const items = [...found];
    return { total: items.length, items: items.slice(offset, offset + limit) };
  }

  get size(): number {
    return this.#sorted.length;
  }

  tool(toolId: string): CatalogTool | undefined {
    return this.#byId.get(toolId);
  }

  /** The tool with this id, if the audience may find it; else `tool.not_found`, as for no tool at all. */
  find(audience: ToolAudience, toolId: string): CatalogTool {
    const found = this.#byId.get(toolId);
    if (!found || !audience.mayFind(found.name)) {
      throw new SculptorError('tool.not_found', `No tool with id ${toolId}.`);
    }
    return found;
  }

  /**
   * The tool whose current version has this name, if the audience may find it; else
   * `tool.not_found` naming what was asked for, as for no tool at all. A name is compared as sent.
   */
  findNamed(audience: ToolAudience, name: string): CatalogTool {
    const found = this.#byName.get(name);
    if (!found || !audience.mayFind(found.name)) {
      throw new SculptorError('tool.not_found', `No tool named ${name.slice(0, 128)}.`);
    }
    return found;
  }

  currentVersion(audience: ToolAudience, toolId: string): number | undefined {
    const found = this.#byId.get(toolId);
    return found && audience.mayFind(found.name) ? found.current.signature.version : undefined;
  }

  /** One version of a tool the audience may find; `tool.version_not_found` names the versions there are. */
  findVersion(audience: ToolAudience, toolId: string, version: number): CompiledTool {
    const tool = this.find(audience, toolId);
    const found = tool.versions.find((v) => v.signature.version === version);
    if (!found) {
      throw new SculptorError(
        'tool.version_not_found',
        `${tool.name} has no version ${version}; versions: ${tool.versions.map((v) => v.signature.version).join(', ')}.`,
      );
    }
    return found;
  }

  version(toolId: string, version: number): CompiledTool | undefined {
    return this.#byId.get(toolId)?.versions.find((v) => v.signature.version === version);
  }

  /** Tools matching the filter, by name; `after` continues a listing after that name. */
  list(filter: ToolFilter = {}, after?: string, limit = Number.POSITIVE_INFINITY): CatalogTool[] {
    const matches: CatalogTool[] = [];
    let start = 0;
    if (after !== undefined) {
      // Binary search: paging through 10,000 tools stays O(log n) per page.
      let lo = 0;
      let hi = this.#sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.#sorted[mid]!.name <= after) lo = mid + 1;
        else hi = mid;
      }
      start = lo;
    }
    for (let i = start; i < this.#sorted.length && matches.length < limit; i++) {
      const t = this.#sorted[i]!;
      if (matchesFilter(t, filter)) matches.push(t);
    }
    return matches;
  }

  /**
   * Tools matching the filter, ranked by relevance to `query` (see ToolSearch). The index is
   * built on the first search of this catalog and kept with it.
   */
  search(
    query: string,
    filter: ToolFilter = {},
    page: { offset?: number; limit?: number } = {},
  ): SearchResult<CatalogTool> {
    this.#search ??= new ToolSearch(this.#sorted, ({ current: { signature: s } }) => ({
      name: s.name,
      description: s.description,
      inputs: s.input_parameters
        .map((p) => [p.name, p.description, ...(p['allowed-values'] ?? []).map((v) => v.name)].join(' '))
        .join(' '),
      tags: s.tags.join(' '),
    }));
    return this.#search.search(query, (t) => matchesFilter(t, filter), page);
  }
}

function matchesFilter(tool: CatalogTool, filter: ToolFilter): boolean {
  if (filter.version !== undefined && tool.current.signature.version !== filter.version) return false;
  if (filter.audience && !filter.audience.mayList(tool.name)) return false;
  return (filter.tags ?? []).every((tag) => tool.current.signature.tags.includes(tag));
}
