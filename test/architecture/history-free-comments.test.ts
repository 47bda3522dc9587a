/**
 * Comments say why the code is as it is, never which issue, review round or finding produced
 * it: a reader of the code has the code, not the tracker, and history lives in git. Every
 * comment of the project's code and configuration — TypeScript and JavaScript (read with the
 * compiler, so strings and regular expressions are not mistaken for comments), YAML, shell,
 * Dockerfiles — and every test's name (describe/it/test) is checked. Requirements are cited by
 * their id in docs/RELIABILITY.md ("RELIABILITY F2"), which is not history: it is the spec.
 * Vendored corpora (test/fixtures/, with their SOURCES.md) are other projects' text.
 */
import path from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { CITATION } from './reliability-citations.ts';
import { repositoryFiles, textOf } from './repository-files.ts';

const CODE = /\.(?:[cm]?[jt]s|tsx?)$/;
const HASH_COMMENTED = /(?:\.ya?ml|\.sh|(?:^|\/)Dockerfile|^\.ci\/run)$/;
const VENDORED = /^test\/fixtures\//;

const NUMBER_WORD = 'one|two|three|four|five|six|seven|eight|nine|ten';
const ORDINAL = 'First|Second|Third|Fourth|Fifth|Sixth|Seventh|Eighth|Ninth|Tenth';

/** What points at history rather than saying why, each with the reason a reader gets. */
const HISTORY: Array<[RegExp, string]> = [
  [/\bissues? #\d+/i, 'cites an issue'],
  [/(?<![\w&])#\d+ [A-Z]\d+\b/, "cites an issue's finding"],
  [/\(#\d+\)/, 'cites an issue or pull request'],
  [new RegExp(`\\bround (?:${NUMBER_WORD}|\\d+)\\b`, 'i'), 'cites a review round'],
  [new RegExp(`\\b(?:${ORDINAL}) round\\b`), 'cites a review round'],
  [/\bfindings? [A-Z]{1,2}\d+\b/i, 'cites a finding'],
  // F and M ids are findings unless they are requirements of docs/RELIABILITY.md, cited as such.
  [/\b[FM]\d{1,2}\b/, 'names a finding by its id (a requirement is cited as "RELIABILITY <id>")'],
];

/** What a remark points at, once its citations of the spec (reliability-citations.ts) are set aside. */
function historyIn(text: string): string[] {
  const plain = text.replace(CITATION, 'RELIABILITY');
  return HISTORY.filter(([pattern]) => pattern.test(plain)).map(([, why]) => why);
}

interface Remark {
  line: number;
  text: string;
}

/**
 * The comments of a TypeScript or JavaScript file, and its tests' names. A comment is either in
 * the leading trivia of a node, or between a node's children, where only punctuation and keywords
 * are (a string, regex or template is a node of its own): those gaps are scanned for comments.
 */
function codeRemarks(file: string, text: string): Remark[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const seen = new Set<number>();
  const remarks: Remark[] = [];
  const comment = (pos: number, end: number) => {
    if (seen.has(pos)) return;
    seen.add(pos);
    remarks.push({ line: lineOf(pos), text: text.slice(pos, end) });
  };
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const gap = (from: number, to: number) => {
    if (to <= from) return;
    scanner.resetTokenState(from);
    for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
      if (scanner.getTokenFullStart() >= to) break;
      if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia)
        comment(scanner.getTokenStart(), scanner.getTokenEnd());
    }
  };
  const visit = (node: ts.Node) => {
    for (const range of ts.getLeadingCommentRanges(text, node.pos) ?? []) comment(range.pos, range.end);
    if (ts.isCallExpression(node) && isTestCall(node.expression)) {
      const name = node.arguments[0];
      if (name && (ts.isStringLiteralLike(name) || ts.isTemplateExpression(name)))
        remarks.push({ line: lineOf(name.getStart(source)), text: name.getText(source) });
    }
    let at: number | undefined;
    ts.forEachChild(node, (child) => {
      if (at !== undefined) gap(at, child.pos);
      else gap(node.getStart(source), child.pos);
      visit(child);
      at = child.end;
    });
    if (at !== undefined) gap(at, node.end);
  };
  visit(source);
  return remarks;
}

/** A call whose callee starts at `describe`, `it` or `test`, with any of their modifiers. */
function isTestCall(callee: ts.Expression): boolean {
  let root = callee;
  while (ts.isPropertyAccessExpression(root) || ts.isCallExpression(root)) root = root.expression;
  return ts.isIdentifier(root) && ['describe', 'it', 'test'].includes(root.text);
}

/** `#` comments: at the start of a line or after a space, to the end of the line. */
function hashRemarks(text: string): Remark[] {
  return text.split('\n').flatMap((line, i) => {
    const at = /(?:^|\s)#/.exec(line);
    return at ? [{ line: i + 1, text: line.slice(at.index) }] : [];
  });
}

function remarksOf(file: string, text: string): Remark[] {
  if (CODE.test(file)) return codeRemarks(file, text);
  if (HASH_COMMENTED.test(path.basename(file)) || HASH_COMMENTED.test(file)) return hashRemarks(text);
  return [];
}

it('no comment or test name points at an issue, a review round or a finding', () => {
  const found: string[] = [];
  for (const file of repositoryFiles()) {
    if (VENDORED.test(file)) continue;
    const text = textOf(file);
    if (text === undefined) continue;
    for (const remark of remarksOf(file, text)) {
      for (const why of historyIn(remark.text))
        found.push(`${file}:${remark.line} ${why}: ${remark.text.trim().slice(0, 120)}`);
    }
  }
  expect(found, 'say why the code is as it is; the history lives in git').toEqual([]);
}, 120_000); // parses every source file: seconds, more on a loaded machine

it('catches each kind of history pointer, and lets ordinary words and spec citations be', () => {
  // Assembled, so this file's own text holds none of them.
  const hash = '#';
  const pointers = [
    `// The cap (issue ${hash}13): one caller`,
    `/** Issue ${hash}21, for OAuth. */`,
    `// even echoed back (${hash}13 F5).`,
    `// and init writes a scaffold (${hash}4).`,
    `// Why (${['round', 'three'].join(' ')}): the serializer`,
    `// docs, "${['Fourth', 'round'].join(' ')}"`,
    `// it starves the event loop (${['finding', 'M1'].join(' ')}).`,
    `// ${['M1', "'s loop"].join('')} would hold the thread`,
    `// found with ${['F', '3'].join('')}`,
  ];
  for (const text of pointers) expect(historyIn(text), text).not.toEqual([]);
  const fine = [
    '// Interleaved and repeated: the second round of the cached tool is served from cache.',
    '// One atomic round trip per decision; Math.round(ms) for the log.',
    '// bound, whatever Redis does (RELIABILITY E7, F2, F3, M3).',
    '// redialled with jitter (RELIABILITY F4); settings of RELIABILITY §F and M3.',
    '// the send bounds it (RELIABILITY B3–B8, M4); jsonata stops it with D1012.',
    '# nws/forecast_nyc.yaml interaction #0 (the first exchange)',
    '// reloaded (#2 of the day) and an issue the caller can fix',
  ];
  for (const text of fine) expect(historyIn(text), text).toEqual([]);
});

it('reads comments and test names, not strings or regular expressions', () => {
  const hash = '#';
  const file = [
    `const label = 'issue ${hash}13';`,
    `const re = /issue ${hash}13/;`,
    `// a comment citing issue ${hash}14`,
    `describe('a title citing issue ${hash}15', () => {});`,
    `it.each([1])('another (issue ${hash}16)', () => {});`,
  ].join('\n');
  const flagged = codeRemarks('sample.ts', file).filter((r) => historyIn(r.text).length > 0);
  expect(flagged.map((r) => r.line)).toEqual([3, 4, 5]);
});
