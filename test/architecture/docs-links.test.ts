/**
 * The project's Markdown is read by newcomers first: an unclosed code fence swallows every
 * section after it (it happened to README's LangChain example), and a relative link to a file
 * that moved sends the reader nowhere. Both are checked here for every document we ship.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = [
  'README.md',
  'ARCHITECTURE.md',
  'deploy/README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/**
 * Lines inside fenced code blocks are not prose: links there are examples. A fence line with an
 * info string (```sh) inside an open block cannot close it (CommonMark), so it is content — and in
 * our documents always the sign of a missing closing fence above it.
 */
function proseLines(text: string): { lines: Array<[number, string]>; unclosed: string[] } {
  const lines: Array<[number, string]> = [];
  const unclosed: string[] = [];
  let openedAt: number | undefined;
  text.split('\n').forEach((line, i) => {
    const fence = /^\s*```+(.*)$/.exec(line);
    if (openedAt === undefined) {
      if (fence !== null) openedAt = i + 1;
      else lines.push([i + 1, line]);
    } else if (fence !== null && fence[1]!.trim() === '') openedAt = undefined;
    else if (fence !== null)
      unclosed.push(`the fence opened at line ${openedAt} runs into the block at line ${i + 1}`);
  });
  if (openedAt !== undefined) unclosed.push(`the fence opened at line ${openedAt} is never closed`);
  return { lines, unclosed };
}

describe.each(DOCS)('%s', (doc) => {
  const text = readFileSync(path.join(ROOT, doc), 'utf8');
  const { lines, unclosed } = proseLines(text);

  it('closes every code fence', () => {
    expect(unclosed).toEqual([]);
  });

  it('links only to files that exist', () => {
    const broken: string[] = [];
    for (const [line, content] of lines) {
      for (const match of content.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
        const file = decodeURIComponent(target.split('#')[0]!);
        if (!existsSync(path.resolve(ROOT, path.dirname(doc), file)))
          broken.push(`${doc}:${line} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
