import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { compileSculpts } from '../compile/compile-sculpts.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import { didYouMean } from '../designer/did-you-mean.ts';
import { displayPath } from '../designer/findings.ts';
import { type InvocationReport } from '../engine/invoke-tool.ts';
import {
  SculptLoadError,
  SculptorError,
  type SourcePosition,
  toSculptorError,
} from '../errors/sculptor-error.ts';
import { type BackendClient, createBackendClient } from '../http/backend-client.ts';
import { loadRecordings, type ReplayServer, startReplayServer } from '../replay/index.ts';
import { requestKey } from '../replay/request-key.ts';
import { rebaseTools } from './point-at-replay.ts';
import { createCore } from '../server/create-core.ts';
import {
  type CaseExpectation,
  findSculptsFolder,
  findSculptTestFiles,
  loadSculptTestFile,
  type SculptTestCase,
  type SculptTestFile,
} from './sculpt-test-file.ts';

/** A backend call the replay server received. */
export interface ObservedCall {
  method: string;
  /** Path and query as sent. */
  path: string;
  /** The recording that answered it, or null: nothing recorded matches. */
  matched: string | null;
}

/** What the tool did: its outputs by name, or the error it ended with. */
export type ActualOutcome =
  | { outputs: Record<string, unknown> }
  | { error: { code: string; message: string; problems?: unknown; hint?: string } };

export interface CaseFailure {
  /**
   * outputs / error: the outcome differs from `expect`. calls: the backend
   * calls differ from `calls`. unrecorded: a call no recording answers (the
   * case cannot be trusted: its 404 came from the replay server). setup: the
   * case cannot run (no such tool version).
   */
  kind: 'outputs' | 'error' | 'calls' | 'unrecorded' | 'setup';
  message: string;
}

export interface SculptTestCaseResult {
  name: string;
  at: SourcePosition;
  tool: string;
  version: number | undefined;
  passed: boolean;
  failures: CaseFailure[];
  expected: CaseExpectation;
  actual: ActualOutcome | undefined;
  calls: ObservedCall[];
  /** The engine's report of the invocation: per step outcome, cache use, status, duration. */
  report: InvocationReport | undefined;
  durationMs: number;
}

export interface SculptTestFileResult {
  file: string;
  tool: string | undefined;
  /** The sculpt folder the tool was compiled from. */
  sculpts: string | undefined;
  passed: boolean;
  /** Why the file could not run at all (YAML, schema, sculpts that do not compile, recordings, tool). */
  errors: SculptorError[];
  cases: SculptTestCaseResult[];
  durationMs: number;
}

export interface SculptTestRun {
  passed: boolean;
  /** Credential variables that were unset, for which the run sent a placeholder value. */
  placeholders: string[];
  files: SculptTestFileResult[];
  totals: { files: number; cases: number; passed: number; failed: number; fileErrors: number };
}

export interface RunSculptTestsOptions {
  /** The sculpt folder of every file, over each file's `sculpts` and the folder found upward. */
  sculpts?: string;
  /** Environment for `${VAR}` references in backends files. Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Called after each case (progress output). */
  onCase?: (result: SculptTestCaseResult, file: string) => void;
}

/**
 * Runs sculpt test files (`*.test.yaml`, or folders of them). For each file:
 * compile its sculpt folder (once per folder per run), serve its recordings
 * from a replay server on 127.0.0.1, rebase every backend of the compiled
 * tools onto that server, and invoke each case through the engine, each with
 * a fresh cache so that cases never depend on one another. Nothing leaves
 * loopback: a call no recording answers fails its case.
 */
export async function runSculptTests(
  paths: string[],
  options: RunSculptTestsOptions = {},
): Promise<SculptTestRun> {
  const env = options.env ?? process.env;
  const placeholders = new Set<string>();
  const compiled = new Map<string, Promise<CompiledTool[]>>();
  const compile = (dir: string): Promise<CompiledTool[]> => {
    let pending = compiled.get(dir);
    if (!pending) {
      pending = compileWithPlaceholders(dir, env, placeholders);
      compiled.set(dir, pending);
    }
    return pending;
  };
  const client = createBackendClient();
  const files: SculptTestFileResult[] = [];
  try {
    for (const file of await findSculptTestFiles(paths)) {
      files.push(await runFile(file, { ...options, compile, client }));
    }
  } finally {
    await client.close();
  }
  const cases = files.flatMap((f) => f.cases);
  const passedCases = cases.filter((c) => c.passed).length;
  return {
    passed: files.every((f) => f.passed),
    placeholders: [...placeholders].sort(),
    files,
    totals: {
      files: files.length,
      cases: cases.length,
      passed: passedCases,
      failed: cases.length - passedCases,
      fileErrors: files.filter((f) => f.errors.length > 0).length,
    },
  };
}

/** What a test run sends for a credential whose variable is unset: recordings never check it. */
export const PLACEHOLDER_CREDENTIAL = 'sculptor-test-placeholder';

/**
 * Compiles a sculpt folder for a test run. Recordings stand in for the backends,
 * so real credentials are not needed: a credential variable that is unset gets a
 * placeholder value (noted in `placeholders`, which the report shows) instead of
 * failing every case with upstream.credentials_missing.
 */
export async function compileWithPlaceholders(
  dir: string,
  env: Readonly<Record<string, string | undefined>>,
  placeholders: Set<string>,
): Promise<CompiledTool[]> {
  const tools = await compileSculpts(dir, env);
  const missing = new Set(tools.flatMap((t) => t.steps.flatMap((s) => s.backend.credentialsMissing)));
  if (missing.size === 0) return tools;
  for (const name of missing) placeholders.add(name);
  return compileSculpts(dir, {
    ...env,
    ...Object.fromEntries([...missing].map((name) => [name, PLACEHOLDER_CREDENTIAL])),
  });
}

interface FileContext extends RunSculptTestsOptions {
  compile(dir: string): Promise<CompiledTool[]>;
  client: BackendClient;
}

async function runFile(file: string, ctx: FileContext): Promise<SculptTestFileResult> {
  const started = performance.now();
  const result: SculptTestFileResult = {
    file,
    tool: undefined,
    sculpts: undefined,
    passed: false,
    errors: [],
    cases: [],
    durationMs: 0,
  };
  const done = (): SculptTestFileResult => {
    result.passed = result.errors.length === 0 && result.cases.every((c) => c.passed);
    result.durationMs = performance.now() - started;
    return result;
  };
  const fileError = (message: string, cause?: unknown) =>
    result.errors.push(
      new SculptorError('load.io', message, {
        at: { file, line: 1, column: 1 },
        ...(cause ? { cause } : {}),
      }),
    );

  const loaded = await loadSculptTestFile(file);
  if (!loaded.test) {
    result.errors.push(...loaded.errors);
    return done();
  }
  const test = loaded.test;
  result.tool = test.tool;

  const sculpts = ctx.sculpts ? path.resolve(ctx.sculpts) : (test.sculpts ?? (await findSculptsFolder(file)));
  if (!sculpts) {
    fileError('No sculpt folder: none at or above this file holds a backends.yaml or a *.sculpt.yaml.');
    return done();
  }
  result.sculpts = sculpts;
  let all: CompiledTool[];
  try {
    all = await ctx.compile(sculpts);
  } catch (err) {
    if (err instanceof SculptLoadError) result.errors.push(...err.errors);
    else fileError(`The sculpts in ${displayPath(sculpts)} cannot be compiled: ${String(err)}`, err);
    return done();
  }
  const tools = all.filter((t) => t.signature.name === test.tool);
  if (tools.length === 0) {
    const names = all.map((t) => t.signature.name);
    fileError(`There is no tool '${test.tool}' in ${displayPath(sculpts)}.${didYouMean(test.tool, names)}`);
    return done();
  }

  let replay: ReplayServer;
  try {
    replay = await startReplayServer(await loadRecordings(test.recordings), { host: '127.0.0.1', port: 0 });
  } catch (err) {
    fileError(`The recordings cannot be served: ${(err as Error).message}`, err);
    return done();
  }
  try {
    const rebased = rebaseTools(tools, replay.url);
    for (const testCase of test.cases) {
      const caseResult = await runCase(test, testCase, rebased, replay, ctx.client);
      result.cases.push(caseResult);
      ctx.onCase?.(caseResult, file);
    }
  } finally {
    await replay.close();
  }
  return done();
}

async function runCase(
  test: SculptTestFile,
  testCase: SculptTestCase,
  tools: CompiledTool[],
  replay: ReplayServer,
  client: BackendClient,
): Promise<SculptTestCaseResult> {
  const started = performance.now();
  const wanted = testCase.version ?? test.version;
  const tool =
    wanted === undefined
      ? tools.reduce((a, b) => (b.signature.version > a.signature.version ? b : a))
      : tools.find((t) => t.signature.version === wanted);
  const result: SculptTestCaseResult = {
    name: testCase.name,
    at: testCase.at,
    tool: test.tool,
    version: tool?.signature.version ?? wanted,
    passed: false,
    failures: [],
    expected: testCase.expect,
    actual: undefined,
    calls: [],
    report: undefined,
    durationMs: 0,
  };
  if (!tool) {
    const known = tools
      .map((t) => t.signature.version)
      .sort((a, b) => a - b)
      .join(', ');
    result.failures.push({
      kind: 'setup',
      message: `${test.tool} has no version ${wanted} (it has ${known}).`,
    });
    result.durationMs = performance.now() - started;
    return result;
  }

  // A fresh cache per case (the case's recordings say what each call answers), the shared client.
  const core = createCore({ client });
  const engine = core.engine;
  const before = replay.requests.length;
  try {
    const answer = await engine.invoke(tool, testCase.inputs, {
      onReport: (report) => {
        result.report = report;
      },
    });
    result.actual = {
      outputs: Object.fromEntries(answer.outputs.map((p) => [p.name, p.value])),
    };
  } catch (err) {
    const error = toSculptorError(err);
    result.actual = {
      error: {
        code: error.code,
        message: error.message,
        ...(error.problems ? { problems: error.problems } : {}),
        ...(error.hint ? { hint: error.hint } : {}),
      },
    };
  } finally {
    await core.close();
  }
  result.calls = replay.requests.slice(before).map((r) => ({ ...r }));
  result.failures = checkCase(testCase, result.actual, result.calls);
  result.passed = result.failures.length === 0;
  result.durationMs = performance.now() - started;
  return result;
}

/** The A2T invocation body for inputs given by name. */
export function invocationBody(tool: string, inputs: Record<string, unknown>): unknown {
  return { name: tool, input_parameters: Object.entries(inputs).map(([name, value]) => ({ name, value })) };
}

/**
 * Compares what a tool did with what its case expects. Used for engine runs
 * and, with the outcome read from an A2T answer, for runs through the face.
 */
export function checkCase(
  testCase: Pick<SculptTestCase, 'expect' | 'calls'>,
  actual: ActualOutcome,
  calls: ObservedCall[],
): CaseFailure[] {
  const failures: CaseFailure[] = [];
  for (const call of calls) {
    if (call.matched === null) {
      failures.push({
        kind: 'unrecorded',
        message: `No recording answers ${call.method} ${call.path}; the tool got the replay server's 404.`,
      });
    }
  }

  const expect = testCase.expect;
  if ('outputs' in expect) {
    if ('error' in actual) {
      failures.push({
        kind: 'outputs',
        message: `Expected outputs, got error ${actual.error.code}: ${actual.error.message}${actual.error.hint ? ` (${actual.error.hint})` : ''}`,
      });
    } else {
      failures.push(...compareOutputs(expect.outputs, actual.outputs));
    }
  } else if ('outputs' in actual) {
    failures.push({
      kind: 'error',
      message: `Expected error ${expect.error}, got outputs ${JSON.stringify(actual.outputs)}`,
    });
  } else {
    if (actual.error.code !== expect.error) {
      failures.push({
        kind: 'error',
        message: `Expected error ${expect.error}, got ${actual.error.code}: ${actual.error.message}${actual.error.hint ? ` (${actual.error.hint})` : ''}`,
      });
    }
    if (expect.message !== undefined && !actual.error.message.includes(expect.message)) {
      const [wanted, got] = [show(expect.message), show(actual.error.message)];
      const message = `Expected the error message to contain ${wanted}, got ${got}`;
      failures.push({ kind: 'error', message });
    }
  }

  if (testCase.calls !== undefined) {
    const problem = compareCalls(testCase.calls, calls);
    if (problem) failures.push({ kind: 'calls', message: problem });
  }
  return failures;
}

function compareOutputs(expected: Record<string, unknown>, actual: Record<string, unknown>): CaseFailure[] {
  // Compare as JSON, the form an A2T caller receives.
  const got = JSON.parse(JSON.stringify(actual)) as Record<string, unknown>;
  const failures: CaseFailure[] = [];
  for (const name of new Set([...Object.keys(expected), ...Object.keys(got)])) {
    if (!Object.hasOwn(got, name)) {
      failures.push({
        kind: 'outputs',
        message: `Output '${name}' is missing (expected ${show(expected[name])}).`,
      });
    } else if (!Object.hasOwn(expected, name)) {
      failures.push({
        kind: 'outputs',
        message: `Output '${name}' is not expected (got ${show(got[name])}).`,
      });
    } else if (!isDeepStrictEqual(got[name], expected[name])) {
      failures.push({
        kind: 'outputs',
        message: `Output '${name}': expected ${show(expected[name])}, got ${show(got[name])}.`,
      });
    }
  }
  return failures;
}

/** Exactly the expected calls, as a multiset; matched like the replay server matches. */
function compareCalls(expected: string[], made: ObservedCall[]): string | undefined {
  const key = (text: string): string => {
    const space = text.indexOf(' ');
    return requestKey(text.slice(0, space), text.slice(space + 1).trim());
  };
  const remaining = made.map((c) => ({ text: `${c.method} ${c.path}`, key: requestKey(c.method, c.path) }));
  const missing: string[] = [];
  for (const call of expected) {
    const k = key(call);
    const at = remaining.findIndex((r) => r.key === k);
    if (at >= 0) remaining.splice(at, 1);
    else missing.push(call);
  }
  if (missing.length === 0 && remaining.length === 0) return undefined;
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`not made: ${missing.join(', ')}`);
  if (remaining.length > 0) parts.push(`not expected: ${remaining.map((r) => r.text).join(', ')}`);
  const all = made.map((c) => `${c.method} ${c.path}`).join(', ') || 'none';
  return `Backend calls differ (${parts.join('; ')}). Made: ${all}.`;
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** A readable summary of a run, for a terminal or a failed test's message. */
export function formatSculptTestRun(run: SculptTestRun, cwd = process.cwd()): string {
  const lines: string[] = [];
  for (const file of run.files) {
    const tool = file.tool ? ` (${file.tool})` : '';
    lines.push(`${file.passed ? '✓' : '✗'} ${path.relative(cwd, file.file)}${tool}`);
    for (const error of file.errors) lines.push(`    ${error.format()}`);
    for (const c of file.cases) {
      const mark = c.passed ? '✓' : '✗';
      lines.push(`  ${mark} ${c.name} [v${c.version ?? '?'}] (${c.durationMs.toFixed(0)} ms)`);
      if (c.passed) continue;
      lines.push(`      at ${path.relative(cwd, c.at.file)}:${c.at.line}:${c.at.column}`);
      for (const f of c.failures) lines.push(`      ${f.kind}: ${f.message}`);
    }
  }
  const t = run.totals;
  lines.push(
    `${t.files} file(s), ${t.cases} case(s): ${t.passed} passed, ${t.failed} failed` +
      (t.fileErrors > 0 ? `, ${t.fileErrors} file(s) could not run` : ''),
  );
  return lines.join('\n');
}
