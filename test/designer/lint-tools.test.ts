import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import { lintTools, programmaticReason } from '../../src/designer/lint-tools.ts';

interface LintCase {
  name: string;
  files: Record<string, string>;
  expect: Array<{ code: string; file: string; line: number; column: number }>;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const data = parse(await readFile(path.join(here, 'lint-cases.yaml'), 'utf8'), { maxAliasCount: 100 }) as {
  cases: LintCase[];
};
const mini = await readFile(path.join(here, '../fixtures/mini.openapi.yaml'), 'utf8');
const backends = 'backends:\n  mini:\n    openapi: mini.openapi.yaml\n    baseUrl: http://127.0.0.1:9/api\n';

async function lintCase(c: LintCase) {
  const dir = await mkdtemp(path.join(tmpdir(), 'sculptor-lint-'));
  try {
    const files = { 'backends.yaml': backends, 'mini.openapi.yaml': mini, ...c.files };
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
    const findings = lintTools(await compileSculpts(dir, {}));
    return findings.map((f) => ({
      severity: f.severity,
      code: f.error.code,
      file: path.relative(dir, f.error.at?.file ?? ''),
      line: f.error.at?.line,
      column: f.error.at?.column,
    }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const order = (e: { line?: number; column?: number; code: string; file: string }) =>
  `${e.file}:${String(e.line).padStart(4)}:${String(e.column).padStart(4)}:${e.code}`;

describe('designer lint (data cases in test/designer/lint-cases.yaml)', () => {
  it.each(data.cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const findings = await lintCase(c);
    expect(findings.every((f) => f.severity === 'warning')).toBe(true);
    expect(
      findings
        .map(({ code, file, line, column }) => ({ code, file, line, column }))
        .sort((a, b) => order(a).localeCompare(order(b))),
    ).toEqual([...c.expect].sort((a, b) => order(a).localeCompare(order(b))));
  });
});

describe('programmaticReason', () => {
  it.each([
    ['id', ''],
    ['account_id', ''],
    ['uuid', ''],
    ['session_token', ''],
    ['cursor', ''],
    ['page_token', ''],
    ['trace_id', ''],
    ['date_format', ''],
    ['offset', ''],
    ['page', ''],
    ['per_page', ''],
    ['account_sid', ''],
    ['query', 'The opaque continuation token from the last answer.'],
    ['ref', 'A UUID naming the order.'],
  ])('flags %s', (name, description) => {
    expect(programmaticReason(name, description || 'Something.')).toBeDefined();
  });

  it.each([
    ['pet_number', "The pet's number (its id), for example 10."],
    ['city', 'The city, for example Boston.'],
    ['identity', 'Who is asking.'],
    ['formatted_address', 'A postal address.'],
    ['valid_until', 'The last valid day.'],
    ['limit', 'The most pets to return (1 to 50).'],
    ['paid', 'Whether the order is paid.'],
  ])('does not flag %s', (name, description) => {
    expect(programmaticReason(name, description)).toBeUndefined();
  });
});
