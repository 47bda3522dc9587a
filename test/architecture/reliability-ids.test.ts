/**
 * docs/RELIABILITY.md is what code comments cite as "RELIABILITY <id>": every id cited anywhere
 * in the repository (ranges spelled out) must be defined there, as a table row or a section, or a
 * reader following the citation finds nothing. And the page must stay true to the tree: every
 * file it names as where a requirement is enforced or tested exists. (Its links are checked with
 * every other document's, in docs-links.test.ts.)
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { citationsIn, idsOf } from './reliability-citations.ts';
import { repositoryFiles, ROOT, textOf } from './repository-files.ts';

const PAGE = 'docs/RELIABILITY.md';
const page = readFileSync(path.join(ROOT, PAGE), 'utf8');
/** Other projects' text, copied with its provenance: its words are not our citations. */
const VENDORED = /^test\/fixtures\//;

/** Ids the page defines: the first cell of a table row ("| B6 |"), and sections ("## F. …" → §F). */
function definedIds(text: string): Set<string> {
  const ids = new Set<string>();
  for (const row of text.matchAll(/^\| ([A-Z]\d+[a-z]?) \|/gm)) ids.add(row[1]!);
  for (const heading of text.matchAll(/^## ([A-Z])\. /gm)) ids.add(`§${heading[1]!}`);
  return ids;
}

it('defines every id cited in the repository', () => {
  const defined = definedIds(page);
  const missing: string[] = [];
  for (const file of repositoryFiles()) {
    if (file === PAGE || VENDORED.test(file)) continue;
    const text = textOf(file);
    if (text === undefined) continue;
    for (const { id, citation, index } of citationsIn(text)) {
      if (defined.has(id)) continue;
      const line = text.slice(0, index).split('\n').length;
      missing.push(`${file}:${line} cites ${id} ("${citation}"), which ${PAGE} does not define`);
    }
  }
  expect(missing).toEqual([]);
});

it('defines each id once', () => {
  const rows = [...page.matchAll(/^\| ([A-Z]\d+[a-z]?) \|/gm)].map((m) => m[1]!);
  expect(rows.filter((id, i) => rows.indexOf(id) !== i)).toEqual([]);
});

it('names only files that exist', () => {
  const named = [...page.matchAll(/`((?:src|test|bench|deploy|docs)\/[\w./-]+|package\.json)`/g)].map(
    (m) => m[1]!,
  );
  expect(named.length).toBeGreaterThan(50);
  expect(named.filter((file) => !existsSync(path.join(ROOT, file)))).toEqual([]);
});

it('reads citations as comments write them', () => {
  // Assembled, so this file cites nothing itself.
  const cite = (list: string) => `${'RELIABILITY'} ${list}`;
  const ids = (text: string) => citationsIn(text).map((c) => c.id);
  expect(ids(`// bounds it (${cite('B3–B5, M4')}):`)).toEqual(['B3', 'B4', 'B5', 'M4']);
  expect(ids(`// ${cite('D1-D3, D6')}.`)).toEqual(['D1', 'D2', 'D3', 'D6']);
  expect(ids(`// (${cite('I1/I2')}): and ${cite('E7, F2, F3 and M3')}`)).toEqual([
    'I1',
    'I2',
    'E7',
    'F2',
    'F3',
    'M3',
  ]);
  expect(ids(`// ${cite('§F')}; ${cite('I2b')}; ${cite('G6')}, SCULPTOR_JSONATA_ISOLATION`)).toEqual([
    '§F',
    'I2b',
    'G6',
  ]);
  expect(ids('see docs/RELIABILITY.md and the RELIABILITY page')).toEqual([]);
  expect(idsOf(cite('Z9'))).toEqual(['Z9']);
  expect(definedIds(page).has('Z9')).toBe(false);
});
