/**
 * The cost model (docs/SECURITY.md, "Expressions: the boundary and the cost model") is one table
 * in code and the same table in the docs; every function jsonata binds is either priced by it or
 * refused at load; and the sandbox's folder, `src/compile/jsonata/`, imports nothing of the
 * compiler around it, with no cycle inside.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, it } from 'vitest';
import { compileExpression } from '../../src/compile/compile-expression.ts';
import { costTableMarkdown, unpricedBuiltin } from '../../src/compile/jsonata/cost-model.ts';
import { JSONATA_BUILTINS } from '../../src/compile/jsonata/jsonata-builtins.ts';

it('docs/SECURITY.md shows the table the code charges by', () => {
  const docs = readFileSync('docs/SECURITY.md', 'utf8');
  const shown = /<!-- cost-table:begin -->\n([\s\S]*?)\n<!-- cost-table:end -->/.exec(docs)?.[1];
  expect(shown).toBe(costTableMarkdown());
});

it('every function jsonata binds is named, and only $eval is left without a row (refused at load)', () => {
  const source = readFileSync(createRequire(import.meta.url).resolve('jsonata'), 'utf8');
  const bound = [...source.matchAll(/staticFrame\.bind\('(\w+)'/g)].map((m) => m[1]!);
  expect(bound.length).toBeGreaterThan(60);
  expect(bound.filter((name) => !(JSONATA_BUILTINS as readonly string[]).includes(name))).toEqual([]);
  expect(JSONATA_BUILTINS.filter((name) => unpricedBuiltin(name))).toEqual(['eval']);
  const at = () => ({ file: 'x.sculpt.yaml', line: 1, column: 1 });
  expect(() => compileExpression('$map([1], $eval)', at)).toThrow(
    /\$eval is not allowed in sculpts: the cost model/,
  );
});

it('src/compile/jsonata imports only config, xml and its own files, with no cycle', () => {
  const folder = 'src/compile/jsonata';
  const graph = new Map<string, string[]>();
  for (const file of readdirSync(folder).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(path.join(folder, file), 'utf8');
    const imports = [...text.matchAll(/from '(\.[^']+)'/g)].map((m) =>
      path.normalize(path.join(folder, m[1]!)),
    );
    for (const target of imports)
      expect(target, `${file} imports ${target}`).toMatch(/^src\/(compile\/jsonata|config|xml)\//);
    graph.set(
      path.join(folder, file),
      imports.filter((t) => t.startsWith(folder)),
    );
  }
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (file: string, trail: string[]): void => {
    if (done.has(file)) return;
    expect(visiting.has(file), `import cycle: ${[...trail, file].join(' → ')}`).toBe(false);
    visiting.add(file);
    for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
    visiting.delete(file);
    done.add(file);
  };
  for (const file of graph.keys()) visit(file, []);
});
