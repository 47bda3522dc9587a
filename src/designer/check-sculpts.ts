import { checkTenancy } from '../callers/check-tenancy.ts';
import { loadCallers } from '../callers/load-callers.ts';
import { compileSculpts } from '../compile/compile-sculpts.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import { SculptLoadError, SculptorError } from '../errors/sculptor-error.ts';
import { error, type Finding, sortFindings } from './findings.ts';
import { lintTools } from './lint-tools.ts';
import { findReviewMarks } from './review-marks.ts';
import { checkLock, lockFileOf, readLock, type SignatureLock } from './signature-lock.ts';

export interface CheckResult {
  /** The compiled tools; undefined when loading or compiling failed. */
  tools: CompiledTool[] | undefined;
  /** Every error and warning, in file and position order. */
  findings: Finding[];
  /** The lock beside the sculpts, when there is one (and it could be read). */
  lock: SignatureLock | undefined;
  lockFile: string;
}

/**
 * What `sculptor check` does: load and compile (every error at once), then,
 * when that succeeds, lint the tools and compare them with the lock file;
 * with a callers file, also check it against the tools as `serve` would.
 */
export async function checkSculpts(
  dir: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  options: { callers?: string } = {},
): Promise<CheckResult> {
  let tools: CompiledTool[];
  try {
    tools = await compileSculpts(dir, env);
  } catch (err) {
    if (!(err instanceof SculptLoadError)) throw err;
    return {
      tools: undefined,
      findings: sortFindings([...err.errors.map(error), ...(await findReviewMarks(dir))]),
      lock: undefined,
      lockFile: lockFileOf(dir),
    };
  }
  const reviewed = await reviewTools(tools, dir);
  if (options.callers) {
    const loaded = await loadCallers(options.callers, env);
    const errors = loaded.directory ? checkTenancy(loaded.directory, tools) : loaded.errors;
    reviewed.findings = sortFindings([...reviewed.findings, ...errors.map(error)]);
  }
  return { tools, ...reviewed };
}

/**
 * Lint findings, `init`'s placeholders and review marks, and lock findings
 * for tools that compiled (also what `serve --watch` reports after a reload).
 */
export async function reviewTools(
  tools: readonly CompiledTool[],
  dir: string,
): Promise<{ findings: Finding[]; lock: SignatureLock | undefined; lockFile: string }> {
  const lockFile = lockFileOf(dir);
  const findings = [...lintTools(tools), ...(await findReviewMarks(dir))];
  let lock: SignatureLock | undefined;
  try {
    lock = await readLock(dir);
  } catch (err) {
    if (!(err instanceof SculptorError)) throw err;
    findings.push(error(err));
  }
  if (lock) findings.push(...checkLock(tools, lock, lockFile));
  return { findings: sortFindings(findings), lock, lockFile };
}
