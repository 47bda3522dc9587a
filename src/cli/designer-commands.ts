import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { compileSculpts } from '../compile/compile-sculpts.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import { checkSculpts } from '../designer/check-sculpts.ts';
import { didYouMean } from '../designer/did-you-mean.ts';
import { compileEach } from '../compile/compile-sculpts.ts';
import { displayPath, error, type Finding, formatFinding } from '../designer/findings.ts';
import { secretInputs } from '../designer/lint-tools.ts';
import { initAll } from '../designer/init-all.ts';
import { initSculpt } from '../designer/init-sculpt.ts';
import { initArazzo } from '../designer/init-arazzo.ts';
import { formatWorkflows, listWorkflows } from '../designer/list-workflows.ts';
import { exportArazzo } from '../designer/export-arazzo.ts';
import {
  formatOperations,
  formatPorts,
  listOperations,
  listWsdlOperations,
} from '../designer/list-operations.ts';
import { type ExportFormat, exportTools, selectTools } from '../designer/provider-exports.ts';
import { diffSignatures, formatDiff, pickVersions } from '../designer/signature-diff.ts';
import { buildLock, LOCK_FILE, writeLock } from '../designer/signature-lock.ts';
import { SculptLoadError, SculptorError } from '../errors/sculptor-error.ts';
import { type ParsedArgs, UsageError } from './command-table.ts';

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
  // A secret the LLM would be asked for is never acceptable in CI: an error under --strict.
  if (values.strict === true) {
    result.findings = result.findings.map((f) => (f.error.code === 'lint.secret_input' ? error(f.error) : f));
  }
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

/** --openapi FILE, or --wsdl FILE: exactly one. */
function description(command: string, values: ParsedArgs['values']): { openapi: string } | { wsdl: string } {
  if ((typeof values.openapi === 'string') === (typeof values.wsdl === 'string')) {
    throw new UsageError(
      command,
      'Option --openapi is required (or, for a SOAP service, --wsdl; for an Arazzo description, --arazzo).',
    );
  }
  return typeof values.wsdl === 'string' ? { wsdl: values.wsdl } : { openapi: String(values.openapi) };
}

export async function initCommand({ values }: ParsedArgs): Promise<number> {
  const out = String(values.out ?? '.');
  if (typeof values.arazzo === 'string') return initArazzoCommand(values, out);
  if (typeof values.workflow === 'string') {
    throw new UsageError(
      'init',
      '--workflow names a workflow of an Arazzo description: give --arazzo FILE too.',
    );
  }
  if ((typeof values.operation === 'string') === (values.all === true)) {
    throw new UsageError('init', 'Give either --operation ID (one operation) or --all (every operation).');
  }
  if (values.all === true) return initAllCommand(values, out);
  const result = await initSculpt({
    ...description('init', values),
    ...(typeof values.port === 'string' ? { port: values.port } : {}),
    operation: String(values.operation),
    out,
    ...(typeof values.backend === 'string' ? { backend: values.backend } : {}),
    ...(typeof values.name === 'string' ? { name: values.name } : {}),
    force: values.force === true,
  });
  const what = {
    created: 'created',
    added: `added backend '${result.backend}' to`,
    reused: `reused backend '${result.backend}' of`,
  };
  return reportScaffold(out, result, `${what[result.backends]} ${displayPath(result.backendsFile)}`);
}

/**
 * What `init` wrote, then `sculptor check` of the folder: its findings, and the REVIEW marks and
 * placeholders left to deal with. `whenErrors` replaces the next steps when the check failed.
 * Exits 1 when the scaffold does not check.
 */
async function reportScaffold(
  out: string,
  written: { toolName: string; sculptFile: string; testFile: string; backendsFile: string },
  backendsDone: string,
  whenErrors?: string,
): Promise<number> {
  console.log(`sculptor init: ${written.toolName}`);
  console.log(`  wrote ${displayPath(written.sculptFile)}`);
  console.log(`  wrote ${displayPath(written.testFile)}`);
  console.log(`  ${backendsDone}`);
  const check = await checkSculpts(out);
  printFindings(check.findings, 'out');
  const { errors, warnings } = counts(check.findings);
  const left = leftByInit(check.findings);
  console.log(
    `\nsculptor check ${out}: ${errors} error(s), ${warnings} warning(s), ${left} of them REVIEW marks and REPLACE_ME placeholders to deal with (sculptor check --strict fails until they are gone).`,
  );
  console.log(
    errors > 0 && whenErrors !== undefined
      ? whenErrors
      : `Next: act on each mark and delete it, then sculptor test ${displayPath(written.testFile)} and sculptor serve ${out} --watch.`,
  );
  return errors > 0 ? 1 : 0;
}

async function initAllCommand(values: ParsedArgs['values'], out: string): Promise<number> {
  const result = await initAll({
    openapi: String(values.openapi),
    out,
    ...(typeof values.backend === 'string' ? { backend: values.backend } : {}),
    force: values.force === true,
  });
  console.log(`sculptor init --all: ${result.written.length} tool(s) written into ${displayPath(out)}`);
  for (const f of result.failed) console.error(`  not scaffolded: ${f.operation}: ${f.message}`);
  // Every scaffold carries its REVIEW marks: counted, not listed, for a folder of them.
  const check = await checkSculpts(out);
  const { errors, warnings } = counts(check.findings);
  printFindings(check.findings.filter((f) => f.severity === 'error'));
  console.log(
    `sculptor check ${displayPath(out)}: ${errors} error(s), ${warnings} warning(s) (REVIEW marks and placeholders the scaffolds left; sculptor check ${displayPath(out)} lists them).`,
  );
  return errors > 0 || result.failed.length > 0 ? 1 : 0;
}

/** Load errors of an Arazzo description or its sources, each at file:line:col; undefined when there are none. */
async function reportLoadErrors<T>(run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run();
  } catch (err) {
    const errors =
      err instanceof SculptLoadError ? err.errors : err instanceof SculptorError ? [err] : undefined;
    if (!errors) throw err;
    printFindings(errors.map((e) => error(e)));
    return undefined;
  }
}

async function initArazzoCommand(values: ParsedArgs['values'], out: string): Promise<number> {
  const file = String(values.arazzo);
  if (typeof values.openapi === 'string' || typeof values.wsdl === 'string' || values.all === true) {
    throw new UsageError(
      'init',
      '--arazzo scaffolds one workflow: give it without --openapi, --wsdl or --all.',
    );
  }
  if (typeof values.backend === 'string' || typeof values.operation === 'string') {
    throw new UsageError(
      'init',
      '--arazzo names each backend after its source description and takes --workflow ID: give it without --backend or --operation.',
    );
  }
  if (typeof values.workflow !== 'string') {
    const listed = await reportLoadErrors(() => listWorkflows(file));
    if (!listed) return 1;
    for (const line of formatWorkflows(listed.workflows)) console.error(line);
    const first = listed.workflows[0]?.workflowId ?? 'ID';
    console.error(
      `\nGive the workflow to wrap: sculptor init --arazzo ${file} --workflow ${first} --out ${out === '.' ? 'DIR' : out}`,
    );
    return 1;
  }
  const result = await reportLoadErrors(() =>
    initArazzo({
      arazzo: file,
      workflowId: String(values.workflow),
      out,
      ...(typeof values.name === 'string' ? { name: values.name } : {}),
      force: values.force === true,
    }),
  );
  if (!result) return 1;
  const what = { created: 'created', added: 'added the description and its sources to', reused: 'reused' };
  return reportScaffold(
    out,
    result,
    `${what[result.backends]} ${displayPath(result.backendsFile)} (arazzo '${result.arazzoName}')`,
    'The workflow does not compile as the description stands: each error above names the place and the fix.',
  );
}

// --- operations -------------------------------------------------------------------

async function arazzoOperations(values: ParsedArgs['values']): Promise<number> {
  const file = String(values.arazzo);
  const listed = await reportLoadErrors(() =>
    listWorkflows(file, typeof values.filter === 'string' ? values.filter : undefined),
  );
  if (!listed) return 1;
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify(listed.workflows, null, 2)}\n`);
    return listed.workflows.length > 0 ? 0 : 1;
  }
  for (const line of formatWorkflows(listed.workflows)) console.log(line);
  if (listed.workflows.length === 0) {
    console.error(`No workflow of ${listed.total} matches; run without --filter to see them all.`);
    return 1;
  }
  console.log(
    `\n${listed.workflows.length} of ${listed.total} workflow(s). Wrap one in a sculpt: sculptor init --arazzo ${file} --workflow ${listed.workflows[0]!.workflowId} --out DIR`,
  );
  return 0;
}

export async function operationsCommand({ values }: ParsedArgs): Promise<number> {
  if (typeof values.arazzo === 'string') return arazzoOperations(values);
  const described = description('operations', values);
  const file = 'wsdl' in described ? described.wsdl : described.openapi;
  const options = {
    ...(typeof values.filter === 'string' ? { filter: values.filter } : {}),
    ...(typeof values.tag === 'string' ? { tag: values.tag } : {}),
  };
  const wsdl =
    'wsdl' in described
      ? await listWsdlOperations(file, {
          ...options,
          ...(typeof values.port === 'string' ? { port: values.port } : {}),
        })
      : undefined;
  const { total, operations } = wsdl ?? (await listOperations(file, options));
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify(wsdl ?? operations, null, 2)}\n`);
    return operations.length > 0 ? 0 : 1;
  }
  if (wsdl) console.log(['ports:', ...formatPorts(wsdl.ports)].join('\n'));
  for (const line of formatOperations(operations)) console.log(line);
  if (wsdl && wsdl.unsupported.length > 0) {
    console.log(`\ncannot be called (${wsdl.unsupported.length}):`);
    for (const u of wsdl.unsupported) console.log(`  ${u.name}: ${u.reason}`);
  }
  if (operations.length === 0) {
    console.error(`No operation of ${total} matches; run without --filter and --tag to see them all.`);
    return 1;
  }
  const first = operations[0]!.ref;
  const quoted = first.includes(' ') ? `'${first}'` : first;
  console.log(
    `\n${operations.length} of ${total} operation(s). Scaffold one: sculptor init --${'wsdl' in described ? 'wsdl' : 'openapi'} ${file} --operation ${quoted} --out DIR`,
  );
  return 0;
}

// --- export ---------------------------------------------------------------------

export async function exportCommand({ values, positionals }: ParsedArgs): Promise<number> {
  const dir = sculptsDir(positionals[0]);
  const tools = await compileOrReport(dir);
  if (!tools) return 1;
  const options = {
    ...(typeof values.tool === 'string' ? { tool: values.tool } : {}),
    ...(typeof values.version === 'number' ? { version: values.version } : {}),
    root: dir,
  };
  const secrets = selectTools(tools, options).flatMap(secretInputs);
  for (const s of secrets) console.error(`${s.tool} v${s.version}: lint.secret_input: ${s.message}`);
  if (secrets.length > 0 && values.strict === true) {
    console.error(
      `\nNothing exported (--strict): ${secrets.length} input(s) look like secrets an LLM must never be asked for.`,
    );
    return 1;
  }
  if (values.format === 'arazzo') return exportArazzoCommand(tools, values);
  const exported = exportTools(tools, values.format as ExportFormat, options);
  process.stdout.write(`${JSON.stringify(exported, null, 2)}\n`);
  return 0;
}

async function exportArazzoCommand(tools: CompiledTool[], values: ParsedArgs['values']): Promise<number> {
  const selected = selectTools(tools, {
    ...(typeof values.tool === 'string' ? { tool: values.tool } : {}),
    ...(typeof values.version === 'number' ? { version: values.version } : {}),
  });
  const out = typeof values.out === 'string' ? path.resolve(values.out) : undefined;
  const copies = new Map<string, string>();
  const doc = exportArazzo(selected, (backend, file) => {
    if (!out) return path.relative(process.cwd(), file).split(path.sep).join('/');
    const target = `openapi/${backend}${path.extname(file)}`;
    copies.set(path.join(out, target), file);
    return target;
  });
  if (!out) {
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return 0;
  }
  await mkdir(path.join(out, 'openapi'), { recursive: true });
  for (const [target, file] of copies) await copyFile(file, target);
  const written = path.join(out, 'sculptor.arazzo.yaml');
  await writeFile(written, stringify(doc, { lineWidth: 0 }));
  console.log(
    `Wrote ${displayPath(written)} (${doc.workflows.length} workflow(s)) and ${copies.size} OpenAPI source(s).`,
  );
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
  if (versions.length === 1 && values.from === undefined && values.to === undefined) {
    // Nothing is wrong with a tool that has one version: say so, and what makes a second.
    const only = versions[0]!;
    const next = only.signature.version + 1;
    console.log(
      `${name} has one version, ${only.signature.version} (${displayPath(only.file)}): nothing to compare yet. ` +
        `A change to a published signature goes in a new version: copy the file to ${name}.v${next}.sculpt.yaml, set version: ${next}, ` +
        `change it, and run sculptor diff ${name} again to see whether it keeps A2T §5.4.`,
    );
    return 0;
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
