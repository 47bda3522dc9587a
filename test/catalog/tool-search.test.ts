/**
 * Search ranking as data (test/cases/search-ranking.yaml): query → the tools expected first.
 * Runs through Catalog.search, so the fields a tool is found by are the ones served.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Catalog } from '../../src/catalog/catalog.ts';
import { MAX_QUERY_LENGTH, normalizeTerm, tokenize, ToolSearch } from '../../src/catalog/tool-search.ts';
import type { CompiledTool } from '../../src/compile/compile-tool.ts';
import { type InputParameter, toolIdFor } from '../../src/compile/tool-signature.ts';
import { SculptorError } from '../../src/errors/sculptor-error.ts';

interface CaseFile {
  tools: { name: string; description: string; tags: string[]; inputs: Record<string, string> }[];
  cases: { query: string; top?: string[]; first?: string[]; absent?: string[] }[];
}

const data = parse(
  readFileSync(new URL('../cases/search-ranking.yaml', import.meta.url), 'utf8'),
) as CaseFile;

/** Only the signature is read by the catalog's listing and search. */
export function toolOf(spec: CaseFile['tools'][number], version = 1): CompiledTool {
  const input_parameters: InputParameter[] = Object.entries(spec.inputs).map(([name, description]) => ({
    id: name,
    name,
    type: 'string',
    description,
    required: true,
  }));
  return {
    signature: {
      toolId: toolIdFor(spec.name),
      name: spec.name,
      description: spec.description,
      version,
      tags: spec.tags,
      input_parameters,
      output_parameters: [],
    },
  } as unknown as CompiledTool;
}

const catalog = new Catalog(data.tools.map((t) => toolOf(t)));
const names = (query: string, filter?: Parameters<Catalog['search']>[1]) =>
  catalog.search(query, filter).items.map((t) => t.name);

describe('search ranking cases', () => {
  it.each(data.cases.map((c) => [c.query, c] as const))('%s', (_query, c) => {
    const found = names(c.query);
    if (c.top) expect(found.slice(0, c.top.length)).toEqual(c.top);
    if (c.first) expect(found.slice(0, c.first.length).sort()).toEqual([...c.first].sort());
    for (const name of c.absent ?? []) expect(found).not.toContain(name);
    if (c.top?.length === 0) expect(found).toEqual([]);
  });
});

describe('Catalog.search', () => {
  it('applies the caller scope before ranking: a tool the caller may not use is never found', () => {
    const allowed = (name: string) => name !== 'create_invoice';
    expect(names('invoice', { audience: { mayFind: allowed, mayList: allowed, key: 'test' } })).toEqual([
      'list_unpaid_invoices',
    ]);
  });

  it('applies tag and version filters', () => {
    expect(names('pets', { tags: ['inventory'] })).toEqual(['count_pets_in_stock']);
    expect(names('pets', { version: 2 })).toEqual([]);
  });

  it('pages: total counts every match, offset and limit cut the same ranking', () => {
    const all = names('the user');
    const page = catalog.search('the user', {}, { offset: 3, limit: 4 });
    expect(page.total).toBe(all.length);
    expect(page.items.map((t) => t.name)).toEqual(all.slice(3, 7));
    expect(catalog.search('the user', {}, { offset: all.length, limit: 4 }).items).toEqual([]);
    expect(catalog.search('the user', {}, { limit: 0 })).toEqual({ total: all.length, items: [] });
  });

  it('starts every search from zero, even after a filter threw midway through the last one', () => {
    const before = catalog.search('pet invoice weat');
    let calls = 0;
    expect(() =>
      catalog.search('pet invoice weat', {
        audience: {
          mayFind: () => true,
          mayList: () => {
            if (++calls === 2) throw new Error('filter failed');
            return true;
          },
          key: 'throws',
        },
      }),
    ).toThrow('filter failed');
    // Scores left over from the failed search would show here as extra or reordered tools.
    expect(catalog.search('pet invoice weat')).toEqual(before);
    expect(names('refund')).toEqual(['refund_payment']);
  });

  it('ranks the same query the same way every time (ties in name order)', () => {
    const first = names('the user');
    expect(first.length).toBeGreaterThan(5);
    expect(names('the user')).toEqual(first);
  });

  it.each([['x'.repeat(MAX_QUERY_LENGTH + 1)], ['  '], ['?!']])(
    'refuses a query that cannot be searched: %j',
    (query) => {
      let error: unknown;
      try {
        catalog.search(query);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(SculptorError);
      expect((error as SculptorError).code).toBe('request.malformed');
    },
  );
});

describe('terms', () => {
  it.each([
    ['find_pets_by_status', ['find', 'pets', 'by', 'status']],
    ['createCalendarEvent', ['create', 'Calendar', 'Event']],
    ["The pet's number, e.g. 10.", ['The', 'pet', 's', 'number', 'e', 'g', '10']],
    ['Größe über', ['Größe', 'über']],
  ])('tokenize(%j)', (text, words) => {
    expect(tokenize(text)).toEqual(words);
  });

  it.each([
    ['Pets', 'pet'],
    ['cities', 'city'],
    ['addresses', 'address'],
    ['status', 'status'],
    ['analysis', 'analysis'],
    ['bus', 'bus'],
    ['matches', 'match'],
  ])('normalizeTerm(%j) = %j', (term, expected) => {
    expect(normalizeTerm(term)).toBe(expected);
  });
});

describe('typo tolerance', () => {
  const words = (list: string[]) =>
    new ToolSearch(list, (w) => ({ name: w, description: '', inputs: '', tags: '' }));

  it('finds words one edit away (substitution, insertion, deletion, adjacent swap), not two', () => {
    const search = words(['invoice', 'customer', 'shipment', 'weather']);
    for (const [query, expected] of [
      ['invoixe', ['invoice']],
      ['custommer', ['customer']],
      ['shipent', ['shipment']],
      ['waether', ['weather']],
      ['wtaeher', []],
    ] as const) {
      expect(search.search(query).items, query).toEqual(expected);
    }
  });

  it('counts a bounded number of neighbours, however many words are one edit away', () => {
    // 26 words "abcd?" that differ in their last letter: all one substitution from "abcdé".
    const search = words([...'fghijklmnopqrstuvwxyz01234'].map((c) => `abcd${c}`));
    expect(search.search('abcdz').items).toEqual(['abcdz']);
    expect(search.search('abcdé').total).toBe(16);
  });
});
