/**
 * Groups from the sculpts' folders: ids, parents, a group of groups, tools counted
 * with their subgroups', and group search that only counts the tools a caller may see.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/catalog/catalog.ts';
import { groupIdOf } from '../../src/catalog/tool-groups.ts';
import type { CompiledTool } from '../../src/compile/compile-tool.ts';
import { toolIdFor } from '../../src/compile/tool-signature.ts';

const ROOT = '/sculpts';
function tool(name: string, folder: string, description = `Test tool ${name}.`): CompiledTool {
  return {
    file: path.join(ROOT, folder, `${name}.v1.sculpt.yaml`),
    signature: {
      toolId: toolIdFor(name),
      name,
      description,
      version: 1,
      tags: [],
      input_parameters: [],
      output_parameters: [],
    },
  } as unknown as CompiledTool;
}

const catalog = new Catalog(
  [
    tool('list_contacts', 'crm/contacts', 'List the address book.'),
    tool('merge_contacts', 'crm/contacts', 'Merge two people.'),
    tool('list_deals', 'crm/deals', 'Open sales opportunities.'),
    tool('crm_summary', 'crm', 'Totals of the sales pipeline.'),
    tool('ping', '', 'Is the gateway up.'),
    tool('weird', 'my folder/v1.2'),
  ],
  { root: ROOT },
);
const summary = () =>
  [...catalog.groups()].map((g) => ({
    id: g.id,
    name: g.name,
    parent: g.parentId,
    children: g.children,
    tools: g.tools.map((t) => t.name),
  }));

describe('groups from folders', () => {
  it('makes a group per folder, ancestors included, a folder of folders a group of groups', () => {
    expect(summary()).toEqual([
      {
        id: 'crm',
        name: 'crm',
        parent: null,
        children: ['crm.contacts', 'crm.deals'],
        tools: ['crm_summary', 'list_contacts', 'list_deals', 'merge_contacts'],
      },
      {
        id: 'crm.contacts',
        name: 'contacts',
        parent: 'crm',
        children: [],
        tools: ['list_contacts', 'merge_contacts'],
      },
      { id: 'crm.deals', name: 'deals', parent: 'crm', children: [], tools: ['list_deals'] },
      { id: 'my_folder', name: 'my_folder', parent: null, children: ['my_folder.v1_2'], tools: ['weird'] },
      { id: 'my_folder.v1_2', name: 'v1_2', parent: 'my_folder', children: [], tools: ['weird'] },
    ]);
  });

  it("knows each tool's own group; a tool at the root has none", () => {
    expect(catalog.groupOf(catalog.named('merge_contacts')!)).toBe('crm.contacts');
    expect(catalog.groupOf(catalog.named('crm_summary')!)).toBe('crm');
    expect(catalog.groupOf(catalog.named('ping')!)).toBeNull();
  });

  it.each([
    ['/sculpts/a/b/x.sculpt.yaml', 'a.b'],
    ['/sculpts/x.sculpt.yaml', null],
    ['/elsewhere/x.sculpt.yaml', null],
  ])('groupIdOf(%s) = %s', (file, id) => {
    expect(groupIdOf(ROOT, file)).toBe(id);
  });

  it('a catalog without a root has no groups', () => {
    expect([...new Catalog([tool('ping', 'a')]).groups()]).toEqual([]);
  });
});

describe('group search', () => {
  const ids = (query: string, allowed?: (name: string) => boolean) =>
    catalog
      .searchGroups(
        query,
        allowed ? { audience: { mayFind: allowed, mayList: allowed, key: 'test' } } : {},
        () => true,
      )
      .items.map((g) => g.id);

  it('finds a group by its name first, then by the words of its tools', () => {
    expect(ids('deals')).toEqual(['crm.deals', 'crm']);
    expect(ids('address book')).toEqual(['crm.contacts', 'crm']);
  });

  it('never by the words of a tool the caller may not see', () => {
    expect(ids('address book', (name) => name !== 'list_contacts')).toEqual([]);
  });

  it('pages', () => {
    const page = catalog.searchGroups('sales', {}, () => true, { offset: 1, limit: 1 });
    expect(page.total).toBe(2);
    expect(page.items.map((g) => g.id)).toEqual([ids('sales')[1]]);
  });
});
