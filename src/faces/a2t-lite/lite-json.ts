import type { CatalogTool, ScopedCatalog, ToolAudience } from '../../catalog/catalog.ts';
import type { ToolGroup } from '../../catalog/tool-groups.ts';
import { toolSchema } from '../../compile/tool-schema.ts';

/** An a2t-lite tool: the LLM providers' shape, from the one schema generator, and its group. */
export interface LiteTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  /** The tool's own group (its sculpt's folder), or null for a sculpt at the sculpts' root. */
  group_id: string | null;
}

export interface LiteGroup {
  id: string;
  name: string;
  description: string;
  /** The tools of the group and its subgroups this caller may call. */
  tool_count: number;
  parent_id: string | null;
}

const tools = new WeakMap<CatalogTool, LiteTool>();

/** A tool's wire form, made once per catalog entry (a reload makes new entries). */
export function liteTool(catalog: ScopedCatalog, tool: CatalogTool): LiteTool {
  let wire = tools.get(tool);
  if (!wire) {
    const schema = toolSchema(tool.current);
    wire = {
      name: schema.name,
      description: schema.description,
      input_schema: schema.inputSchema,
      group_id: catalog.groupOf(tool),
    };
    tools.set(tool, wire);
  }
  return wire;
}

/** A group as one caller sees it: only the tools it may call count, and only such groups show. */
export interface VisibleGroup {
  group: ToolGroup<CatalogTool>;
  tools: CatalogTool[];
}

const visible = new WeakMap<ScopedCatalog, WeakMap<ToolAudience, Map<string, VisibleGroup>>>();

/**
 * The groups holding at least one tool the audience may list, by id, with those tools. A group
 * whose every tool is outside the caller's tenant does not exist for it (RELIABILITY D5), and a
 * count never reveals a hidden tool. Kept per catalog and audience (a static caller's audience
 * lives as long as its callers file).
 */
export function visibleGroups(catalog: ScopedCatalog, audience: ToolAudience): Map<string, VisibleGroup> {
  let byAudience = visible.get(catalog);
  if (!byAudience) visible.set(catalog, (byAudience = new WeakMap()));
  let groups = byAudience.get(audience);
  if (!groups) {
    groups = new Map();
    for (const group of catalog.groups()) {
      const shown = group.tools.filter((t) => audience.mayList(t.name));
      if (shown.length > 0) groups.set(group.id, { group, tools: shown });
    }
    byAudience.set(audience, groups);
  }
  return groups;
}

/** Names listed in a group's description before "and N more". */
const NAMED = 8;

/**
 * A group's wire form. Folders carry no prose, so the description says what an agent deciding
 * whether to open the group needs: how many tools, which subgroups, and the first tools' names.
 */
export function liteGroup(seen: VisibleGroup, groups: Map<string, VisibleGroup>): LiteGroup {
  const { group, tools: shown } = seen;
  const subgroups = group.children.filter((id) => groups.has(id)).map((id) => groups.get(id)!.group.name);
  const names = shown.slice(0, NAMED).map((t) => t.name);
  const more = shown.length > NAMED ? `, and ${shown.length - NAMED} more` : '';
  const count = shown.length === 1 ? '1 tool' : `${shown.length} tools`;
  const within = subgroups.length > 0 ? ` (subgroups: ${subgroups.join(', ')})` : '';
  return {
    id: group.id,
    name: group.name,
    description: `${count} from the ${group.name} sculpts${within}: ${names.join(', ')}${more}.`,
    tool_count: shown.length,
    parent_id: group.parentId,
  };
}
