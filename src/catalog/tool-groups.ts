import path from 'node:path';

/**
 * Groups of tools, from the folders of the sculpts: a sculpt in `crm/contacts/`
 * below the sculpts root belongs to group `crm.contacts`, whose parent is group `crm`. Folders
 * already say what belongs together (each has its own `backends.yaml`), so no sculpt needs a new
 * field; a folder's folders are its subgroups, so a group of groups needs nothing either. A sculpt
 * at the root belongs to no group.
 *
 * A group holds the tools of its folder and of every folder below it: `tool_count` and a group's
 * tool listing agree, and a parent is never an empty shell.
 */
export interface ToolGroup<T> {
  /** Folder names from the root, joined by '.': `crm.contacts`. */
  id: string;
  /** The folder's own name. */
  name: string;
  parentId: string | null;
  /** Direct subgroups' ids, in id order. */
  children: string[];
  /** The tools of this folder and the folders below, in catalog (name) order. */
  tools: T[];
}

/** Folder names become ids joined by '.'; in a name, anything but letters, digits, '_' and '-' becomes '_'. */
const SEPARATOR = '.';
const UNSAFE = /[^A-Za-z0-9_-]/g;

/** The group id of a sculpt file below `root`, or null at the root (or outside it). */
export function groupIdOf(root: string, file: string): string | null {
  const relative = path.relative(root, path.dirname(file));
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return null;
  return relative
    .split(path.sep)
    .map((folder) => folder.replace(UNSAFE, '_'))
    .join(SEPARATOR);
}

/** Every group the tools' folders make, ancestors included, sorted by id. */
export function buildGroups<T>(
  tools: readonly T[],
  groupOf: (tool: T) => string | null,
): Map<string, ToolGroup<T>> {
  const groups = new Map<string, ToolGroup<T>>();
  const ensure = (id: string): ToolGroup<T> => {
    let group = groups.get(id);
    if (group) return group;
    const cut = id.lastIndexOf(SEPARATOR);
    const parentId = cut < 0 ? null : id.slice(0, cut);
    group = { id, name: id.slice(cut + 1), parentId, children: [], tools: [] };
    groups.set(id, group);
    if (parentId !== null) ensure(parentId).children.push(id);
    return group;
  };
  for (const tool of tools) {
    const id = groupOf(tool);
    for (let at: string | null = id; at !== null; at = ensure(at).parentId) ensure(at).tools.push(tool);
  }
  for (const group of groups.values()) group.children.sort();
  return new Map([...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
