import { compileSculpts } from '../compile/compile-sculpts.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import { checkSculpts } from '../designer/check-sculpts.ts';
import { didYouMean } from '../designer/did-you-mean.ts';
import { compileEach } from '../compile/compile-sculpts.ts';
import { displayPath, type Finding, formatFinding } from '../designer/findings.ts';
import { initSculpt } from '../designer/init-sculpt.ts';
import { type ExportFormat, exportTools } from '../designer/provider-exports.ts';
import { diffSignatures, formatDiff, pickVersions } from '../designer/signature-diff.ts';
import { buildLock, LOCK_FILE, writeLock } from '../designer/signature-lock.ts';
import { SculptLoadError } from '../errors/sculptor-error.ts';
import type { ParsedArgs } from './command-table.ts';

/** The sculpt folder a command works on: its argument, else $SCULPTOR_SCULPTS, else ./sculpts. */
export function sculptsDir(positional: string | undefined): string {
  return positional ?? (process.env.SCULPTOR_SCULPTS || 'sculpts');
}

/** Findings on stdout for check and init (they are the answer), on stderr where they stop a command. */
function printFindings(findings: Finding[], stream: 'out' | 'err' = 'err'): void {
  for (const f of findings) (stream === 'out' ? console.log : console.error)(formatFinding(f));
}

/** `lint.placeholder` and `lint.review_mark`: what `init` leaves for a designer. */
function leftByInit(findings: Finding[]): number {
  return findings.filter((f) => f.error.code === 'lint.placeholder' || f.error.code === 'lint.review_mark')
    .length;
}

function counts(findings: Finding[]): { errors: number; warnings: number } {
  const errors = findings.filter((f) => f.severity === 'error').length;
  return { errors, warnings: findings.length - errors };
}

/** Compiles a folder for commands that need tools; prints the errors and returns undefined when it fails. */
async function compileOrReport(dir: string): Promise<CompiledTool[] | undefined> {
  try {
    return await compileSculpts(dir);
  } catch (err) {
    if (!(err instanceof SculptLoadError)) throw err;
    for (const e of err.errors) console.error(formatFinding({ severity: 'error', error: e }));
    console.error(`\n${err.errors.length} error(s) in ${dir}; run sculptor check ${dir}.`);
    return undefined;
  }
}

// --- check ----------------------------------------------------------------------

export async function checkCommand({ values, positionals }: ParsedArgs): Promise<number> {
  const dir = sculptsDir(positionals[0]);
  const result = await checkSculpts(
    dir,
    process.env,
    typeof values.callers === 'string' ? { callers: values.callers } : {},
  );
  printFindings(result.findings, 'out');
  const { errors, warnings } = counts(result.findings);
  const tools = result.tools ?? [];
  const names = new Set(tools.map((t) => t.signature.name));
  const locked = result.lock
    ? `${Object.values(result.lock.tools).reduce((n, v) => n + Object.keys(v).length, 0)} version(s) locked in ${LOCK_FILE}`
    : `no ${LOCK_FILE}`;
  const summary = result.tools
    ? `${tools.length} tool version(s) of ${names.size} tool(s); ${errors} error(s), ${warnings} warning(s); ${locked}.`
    : `${errors} error(s); nothing compiled.`;
  console.log(`${result.findings.length > 0 ? '\n' : ''}sculptor check: ${dir}: ${summary}`);
  if (errors > 0) return 1;
  if (warnings > 0 && values.strict === true) {
    const left = leftByInit(result.findings);
    console.log(
      `Failing on warnings (--strict)${left > 0 ? `; ${left} of them are placeholders and REVIEW marks \`sculptor init\` left: replace each REPLACE_ME, act on each note and delete its mark` : ''}.`,
    );
    return 1;
  }
  return 0;
}

// --- init -----------------------------------------------------------------------

export async function initCommand({ values }: ParsedArgs): Promise<number> {
  const out = String(values.out ?? '.');
  const result = await initSculpt({
    openapi: String(values.openapi),
    operation: String(values.operation),
    out,
    ...(typeof values.backend === 'string' ? { backend: values.backend } : {}),
    ...(typeof values.name === 'string' ? { name: values.name } : {}),
    force: values.force === true,
  });
  const show = (file: string) => displayPath(file);
  console.log(`sculptor init: ${result.toolName}`);
  console.log(`  wrote ${show(result.sculptFile)}`);
  console.log(`  wrote ${show(result.testFile)}`);
  const what = {
    created: 'created',
    added: `added backend '${result.backend}' to`,
    reused: `reused backend '${result.backend}' of`,
  };
  console.log(`  ${what[result.backends]} ${show(result.backendsFile)}`);
  const check = await checkSculpts(out);
  printFindings(check.findings, 'out');
  const { errors, warnings } = counts(check.findings);
  const left = leftByInit(check.findings);
  console.log(
    `\nsculptor check ${out}: ${errors} error(s), ${warnings} warning(s), ${left} of them REVIEW marks and REPLACE_ME placeholders to deal with (sculptor check --strict fails until they are gone).`,
  );
  console.log(
    `Next: act on each mark and delete it, then sculptor test ${show(result.testFile)} and sculptor serve ${out} --watch.`,
  );
  return errors > 0 ? 1 : 0;
}

// --- export ---------------------------------------------------------------------

export async function exportCommand({ values, positionals }: ParsedArgs): Promise<number> {
  const dir = sculptsDir(positionals[0]);
  const tools = await compileOrReport(dir);
  if (!tools) return 1;
  const exported = exportTools(tools, values.format as ExportFormat, {
    ...(typeof values.tool === 'string' ? { tool: values.tool } : {}),
    ...(typeof values.version === 'number' ? { version: values.version } : {}),
    root: dir,
  });
  process.stdout.write(`${JSON.stringify(exported, null, 2)}\n`);
  return 0;
}

// --- diff -----------------------------------------------------------------------

export async function diffCommand({ values, positionals }: ParsedArgs): Promise<number> {
  const name = positionals[0]!;
  const dir = sculptsDir(positionals[1]);
  // Each version on its own: a version that breaks A2T §5.4 stops the folder from compiling, and is what diff must show.
  const { tools, errors } = await compileEach(dir);
  const versions = tools.filter((t) => t.signature.name === name);
  if (versions.length === 0) {
    for (const e of errors) console.error(formatFinding({ severity: 'error', error: e }));
    const names = tools.map((t) => t.signature.name);
    console.error(`There is no tool '${name}' that compiles in ${dir}.${didYouMean(name, names)}`);
    return 1;
  }
  const picked = pickVersions(versions, {
    ...(typeof values.from === 'number' ? { from: values.from } : {}),
    ...(typeof values.to === 'number' ? { to: values.to } : {}),
  });
  if ('problem' in picked) {
    console.error(picked.problem);
    return 1;
  }
  const { from, to } = picked;
  const diff = diffSignatures(from, to);
  if (values.json === true) process.stdout.write(`${JSON.stringify(diff, null, 2)}\n`);
  else console.log(formatDiff(diff, (f) => displayPath(f)));
  return diff.compatible ? 0 : 1;
}

// --- lock -----------------------------------------------------------------------

export async function lockCommand({ values, positionals }: ParsedArgs): Promise<number> {
  const dir = sculptsDir(positionals[0]);
  const result = await checkSculpts(dir);
  const blocking = result.findings.filter((f) => f.severity === 'error');
  const drift = blocking.filter(
    (f) => f.error.code === 'lint.signature_drift' || f.error.code === 'lint.version_removed',
  );
  const others = blocking.filter((f) => !drift.includes(f));
  if (!result.tools || others.length > 0) {
    printFindings(blocking);
    console.error(`\nNothing locked: fix the errors first (sculptor check ${dir}).`);
    return 1;
  }
  if (drift.length > 0 && values.force !== true) {
    printFindings(drift);
    console.error(
      `\nNothing locked: published versions changed. Restore them and add new versions, or, if no agent uses them yet, sculptor lock --force.`,
    );
    return 1;
  }
  const lock = buildLock(result.tools);
  const before = result.lock;
  const fresh = Object.entries(lock.tools).flatMap(([name, versions]) =>
    Object.keys(versions).filter((v) => before?.tools[name]?.[v] === undefined),
  ).length;
  const file = await writeLock(dir, lock);
  const total = Object.values(lock.tools).reduce((n, v) => n + Object.keys(v).length, 0);
  console.log(
    `sculptor lock: wrote ${displayPath(file)}: ${total} version(s) of ${Object.keys(lock.tools).length} tool(s), ${fresh} newly locked${drift.length > 0 ? `, ${drift.length} re-locked (--force)` : ''}.`,
  );
  return 0;
}
