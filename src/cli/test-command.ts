import { canonicalJson } from '../cache/canonical-json.ts';
import { displayPath } from '../designer/findings.ts';
import { formatFinding } from '../designer/findings.ts';
import { runSculptTests, type SculptTestCaseResult, type SculptTestRun } from '../testing/index.ts';
import type { ParsedArgs } from './command-table.ts';
import { sculptsDir } from './designer-commands.ts';

/**
 * `sculptor test`: runs sculpt test files with the testing module's runner
 * (src/testing, runSculptTests) and prints each case, with a diff of what was
 * expected and what the tool did when they differ.
 */
export async function testCommand({ values, positionals }: ParsedArgs): Promise<number> {
  const paths = positionals.length > 0 ? positionals : [sculptsDir(undefined)];
  let run: SculptTestRun;
  try {
    run = await runSculptTests(paths, {
      ...(typeof values.sculpts === 'string' ? { sculpts: values.sculpts } : {}),
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      console.error(
        `sculptor test: no such file or folder: ${(err as NodeJS.ErrnoException).path ?? paths.join(', ')}`,
      );
      return 1;
    }
    throw err;
  }
  console.log(formatRun(run));
  if (run.totals.files === 0) {
    console.error(`sculptor test: no *.test.yaml file in ${paths.join(', ')}.`);
    return 1;
  }
  return run.passed ? 0 : 1;
}

export function formatRun(run: SculptTestRun): string {
  const lines: string[] = [];
  for (const file of run.files) {
    lines.push(
      `${file.passed ? 'PASS' : 'FAIL'} ${displayPath(file.file)}${file.tool ? ` (${file.tool})` : ''}`,
    );
    for (const error of file.errors) lines.push(`  ${formatFinding({ severity: 'error', error })}`);
    for (const c of file.cases) {
      lines.push(`  ${c.passed ? '✓' : '✗'} ${c.name} [v${c.version ?? '?'}] ${c.durationMs.toFixed(0)} ms`);
      if (!c.passed) lines.push(...caseDetails(c).map((l) => `      ${l}`));
    }
  }
  if (run.placeholders.length > 0) {
    lines.push(
      '',
      `Test mode: ${run.placeholders.join(', ')} ${run.placeholders.length === 1 ? 'is' : 'are'} unset; the backends were sent a placeholder credential (recordings answer, no real backend is called). Set ${run.placeholders.length === 1 ? 'it' : 'them'} before serving.`,
    );
  }
  const t = run.totals;
  lines.push(
    '',
    `${t.files} file(s), ${t.cases} case(s): ${t.passed} passed, ${t.failed} failed` +
      (t.fileErrors > 0 ? `, ${t.fileErrors} file(s) could not run` : '') +
      '.',
  );
  return lines.join('\n');
}

function caseDetails(c: SculptTestCaseResult): string[] {
  const lines = [`at ${displayPath(c.at.file)}:${c.at.line}:${c.at.column}`];
  for (const f of c.failures) lines.push(`${f.kind}: ${f.message}`);
  if (c.actual && c.failures.some((f) => f.kind === 'outputs' || f.kind === 'error')) {
    const expected = 'outputs' in c.expected ? c.expected.outputs : c.expected;
    const actual =
      'outputs' in c.actual
        ? c.actual.outputs
        : { error: c.actual.error.code, message: c.actual.error.message };
    lines.push('--- expected', '+++ actual', ...lineDiff(pretty(expected), pretty(actual)));
  }
  return lines;
}

/** Pretty JSON with keys sorted, so that only real differences show in the diff. */
function pretty(value: unknown): string[] {
  let sorted: unknown = value;
  try {
    sorted = JSON.parse(canonicalJson(JSON.parse(JSON.stringify(value ?? null))));
  } catch {
    // not plain data: show it as it is
  }
  return JSON.stringify(sorted, null, 2).split('\n');
}

/** A line diff (longest common subsequence): `  ` same, `- ` expected only, `+ ` actual only. */
export function lineDiff(a: string[], b: string[]): string[] {
  const n = a.length;
  const m = b.length;
  if (n * m > 250_000) return [...a.map((l) => `- ${l}`), ...b.map((l) => `+ ${l}`)];
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push(`  ${a[i]}`);
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push(`- ${a[i++]}`);
    else out.push(`+ ${b[j++]}`);
  }
  while (i < n) out.push(`- ${a[i++]}`);
  while (j < m) out.push(`+ ${b[j++]}`);
  return out;
}
