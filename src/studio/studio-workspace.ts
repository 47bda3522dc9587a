import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument, stringify } from 'yaml';
import { createMemoryStore } from '../cache/memory-store.ts';
import { createCore } from '../server/create-core.ts';
import { watchSculpts } from '../server/watch-sculpts.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import { compileExpression } from '../compile/compile-expression.ts';
import { compileEach } from '../compile/compile-sculpts.ts';
import { toolSchema } from '../compile/tool-schema.ts';
import { checkSculpts } from '../designer/check-sculpts.ts';
import { displayPath } from '../designer/findings.ts';
import { EXPORT_FORMATS, exportTools } from '../designer/provider-exports.ts';
import { diffSignatures, formatDiff, pickVersions } from '../designer/signature-diff.ts';
import { type InvocationReport } from '../engine/invoke-tool.ts';
import { type SculptorError, toSculptorError } from '../errors/sculptor-error.ts';
import { type BackendClient, type BackendRequest, createBackendClient } from '../http/backend-client.ts';
import { loadRecordings, type ReplayServer, startReplayServer } from '../replay/index.ts';
import { backendSecrets } from '../sculpt/backend-secrets.ts';
import { compileWithPlaceholders, rebaseTools } from '../testing/index.ts';
import { EVAL_SUFFIX } from '../eval/scenario-file.ts';
import { TEST_SUFFIX } from '../testing/sculpt-test-file.ts';
import { providerWarnings } from './provider-limits.ts';
import { sideBySide } from './side-by-side.ts';

/**
 * What the Studio shows of a sculpt folder: its tools, every finding of
 * `sculptor check` (recomputed when a file changes), how each tool looks to every consumer,
 * and invocations run against recordings or the live backends with a per-step trace kept for
 * the mapping playground and for saving as a test. One workspace per Studio server.
 */
export interface StepTrace {
  id: string;
  backend: string;
  operation: string;
  outcome: string;
  cache: string;
  /** The step's cache declaration (scope and TTL), when it has one. */
  cacheScope?: 'shared' | 'caller';
  cacheTtlMs?: number;
  status?: number;
  durationMs: number;
  startMs: number;
  errorCode?: string;
  /** The request as sent, credentials and configured secrets masked. */
  request?: { method: string; url: string; headers: Record<string, string>; body?: unknown };
  /** The backend's answer (not on a cache hit); `parsed`: an XML answer as the step reads it. */
  response?: { status: number; contentType: string; bytes: number; body: unknown; parsed?: unknown };
  /** The step's value after its `result` projection (what later steps and the output read). */
  result?: unknown;
  /** How deep in called workflows the step is: 0 for the tool's own steps (`ordering/find` is 1). */
  depth?: number;
  /** A step that calls an Arazzo workflow: that workflow's id (its steps are the rows after it). */
  workflow?: string;
}

export interface RunRecord {
  id: string;
  tool: string;
  version: number;
  inputs: Record<string, unknown>;
  mode: 'recordings' | 'live';
  outputs?: Record<string, unknown>;
  error?: { code: string; message: string };
  durationMs: number;
  steps: StepTrace[];
  /** The output projection's value, before the declared outputs are checked (absent when a step failed). */
  projection?: { value?: unknown; error?: string };
  /** An Arazzo workflow's run: the projection reads the workflow's outputs, not the steps' results. */
  workflow?: boolean;
  /** Every backend request the run's steps built, cache hit or not: a cold run makes them all. */
  requests: BackendRequest[];
}

interface Exchange {
  request: BackendRequest;
  status: number;
  contentType: string;
  body: unknown;
  /** The secrets the invocation held when this answer came: masked in a saved HAR. */
  sent: string[];
}

const exchangeKey = (request: BackendRequest) => `${request.method} ${request.url}`;

export interface WorkspaceOptions {
  dir: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** Recordings to run against by default (a folder or file), resolved against the sculpt folder. */
  recordings?: string;
  onChange?: () => void;
}

const MAX_RUNS = 50;
/**
 * Tokens are estimated, not counted: each provider has its own tokenizer (OpenAI's o200k, Claude's
 * and Gemini's are not published as libraries here). OpenAI's rule of thumb is about four
 * characters a token for English; JSON's quotes and braces cost more, so read it as a floor.
 */
const TOKEN_RULE = 'tokens ≈ characters ÷ 4 (OpenAI’s rule of thumb for English; JSON often costs more)';
const estimateTokens = (text: string): number => Math.ceil(text.length / 4);
const MASK = '•••';

export async function openWorkspace(options: WorkspaceOptions) {
  const dir = path.resolve(options.dir);
  const env = options.env ?? process.env;
  let check = await checkSculpts(dir, env);
  let generation = 1;
  const runs = new Map<string, RunRecord>();
  // What the backends answered, by request: a run whose steps hit the cache saves the answers
  // the cache was filled from, so its test passes cold.
  const answered = new Map<string, Exchange>();
  const client: BackendClient = createBackendClient();
  const cacheSecret = randomBytes(16).toString('hex');
  // As `serve` reads SCULPTOR_ALLOW_PRIVATE_EGRESS (src/config/settings.ts): true or 1.
  const allowPrivateEgress = ['true', '1'].includes((env.SCULPTOR_ALLOW_PRIVATE_EGRESS ?? '').toLowerCase());
  const store = createMemoryStore();

  const tools = (): CompiledTool[] => check.tools ?? [];
  // Every sculpt compiled on its own (as `sculptor diff` compiles them), once per generation.
  let eachCompiled: { generation: number; tools: Promise<CompiledTool[]> } | undefined;
  // One replay server per recordings folder, kept (so a second run hits the step cache: its
  // keys include the backend origin), and started again after files change.
  const replays = new Map<string, { generation: number; server: Promise<ReplayServer> }>();
  const replayFor = async (recordings: string): Promise<ReplayServer> => {
    const kept = replays.get(recordings);
    if (kept?.generation === generation) return kept.server;
    if (kept) void kept.server.then((s) => s.close());
    const server = loadRecordings([recordings]).then((exchanges) =>
      startReplayServer(exchanges, { host: '127.0.0.1', port: 0 }),
    );
    replays.set(recordings, { generation, server });
    return server;
  };
  // Recordings never check a credential: as `sculptor test` does, a run against them sends a
  // placeholder for every unset credential variable (compiled once per generation, when needed).
  let withPlaceholders: { generation: number; tools: Promise<CompiledTool[]> } | undefined;
  const placeholderTool = async (tool: CompiledTool): Promise<CompiledTool> => {
    if (!tool.steps.some((s) => s.backend.credentialsMissing.length > 0)) return tool;
    if (withPlaceholders?.generation !== generation) {
      withPlaceholders = { generation, tools: compileWithPlaceholders(dir, env, new Set()) };
    }
    const same = (t: CompiledTool) =>
      t.signature.name === tool.signature.name && t.signature.version === tool.signature.version;
    return (await withPlaceholders.tools.catch(() => [])).find(same) ?? tool;
  };
  const find = (name: string, version?: number): CompiledTool | undefined => {
    const all = tools().filter((t) => t.signature.name === name);
    if (version !== undefined) return all.find((t) => t.signature.version === version);
    return all.reduce<CompiledTool | undefined>(
      (a, b) => (!a || b.signature.version > a.signature.version ? b : a),
      undefined,
    );
  };

  // Recompiled on every save, with the watcher `serve --watch` uses; a broken edit shows its
  // errors. Test files and recordings (what "save as test" writes) change no finding, so they do
  // not reset the page; a name without an extension is a folder made or removed.
  const watcher = watchSculpts(
    dir,
    async () => {
      const next = await checkSculpts(dir, env);
      check = next.tools ? next : { ...next, tools: check.tools };
      generation++;
      options.onChange?.();
    },
    {
      skipFolders: ['recordings'],
      relevant: (name) =>
        /\.(ya?ml|json)$/.test(name)
          ? !name.endsWith(TEST_SUFFIX) && !name.endsWith(EVAL_SUFFIX)
          : !name.includes('.'),
    },
  );
  await watcher.ready;

  const secrets = (): string[] =>
    [...new Set(tools().flatMap((t) => t.steps.flatMap((s) => backendSecrets(s.backend))))].filter(
      (s) => s.length >= 4,
    );
  const mask = (text: string): string => secrets().reduce((t, s) => t.split(s).join(MASK), text);

  return {
    dir,
    generation: () => generation,
    /** Every compiled tool version of the folder (the last good compile). */
    tools,

    catalog() {
      const byName = new Map<string, CompiledTool[]>();
      for (const t of tools()) byName.set(t.signature.name, [...(byName.get(t.signature.name) ?? []), t]);
      return {
        dir: displayPath(dir),
        generation,
        tools: [...byName.entries()]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([name, versions]) => ({
            name,
            description: versions.at(-1)?.signature.description,
            versions: versions.map((v) => v.signature.version).sort((a, b) => a - b),
            file: displayPath(versions.at(-1)!.file),
          })),
        findings: check.findings.map((f) => ({
          severity: f.severity,
          code: f.error.code,
          message: f.error.message,
          file: f.error.at ? displayPath(f.error.at.file) : undefined,
          line: f.error.at?.line,
          column: f.error.at?.column,
        })),
        compiled: check.tools !== undefined,
      };
    },

    /** The tool as each consumer receives it, with its size and whatever a provider refuses. */
    views(name: string, version?: number) {
      const tool = find(name, version);
      if (!tool) return undefined;
      const schema = toolSchema(tool);
      const views: Array<{ consumer: string; text?: string; problem?: string }> = [
        { consumer: 'A2T', text: JSON.stringify(tool.signature, null, 2) },
        // The entry of MCP's tools/list, as every MCP face builds it: from the one generator.
        {
          consumer: 'mcp',
          text: JSON.stringify(
            {
              name: schema.name,
              title: schema.title,
              description: schema.description,
              inputSchema: schema.inputSchema,
              outputSchema: schema.outputSchema,
              annotations: schema.annotations,
            },
            null,
            2,
          ),
        },
      ];
      for (const format of EXPORT_FORMATS) {
        try {
          const exported = exportTools([tool], format, {
            tool: name,
            version: tool.signature.version,
            root: dir,
          });
          views.push({ consumer: format, text: JSON.stringify(exported, null, 2) });
        } catch (err) {
          views.push({ consumer: format, problem: (err as Error).message });
        }
      }
      const warnings = providerWarnings(tool);
      return {
        name,
        version: tool.signature.version,
        signature: tool.signature,
        steps: tool.steps.map((s) => ({
          id: s.id,
          operation: s.operationRef,
          backend: s.backend.name,
          ...(s.cache ? { cache: s.cache } : {}),
        })),
        output: tool.output.source,
        stepExpressions: Object.fromEntries(
          tool.steps.map((s) => [s.id, { params: s.params?.source, result: s.result?.source }]),
        ),
        tokenRule: TOKEN_RULE,
        views: views.map((v) => ({
          ...v,
          characters: v.text?.length ?? 0,
          tokens: estimateTokens(v.text ?? ''),
          warnings: warnings[v.consumer] ?? [],
        })),
      };
    },

    /**
     * Two versions of a tool compared as `sculptor diff` compares them (the designer's
     * signature-diff code): every change, the A2T §5.4 verdict and what breaks it, plus both
     * signatures side by side. Versions are compiled each on its own, as `diff` does, so a
     * version that breaks §5.4 (the folder then no longer compiles) is shown, not hidden.
     * `from` and `to` default as `sculptor diff` has them: the latest and the one before.
     */
    async diff(name: string, choice: { from?: number; to?: number } = {}) {
      if (eachCompiled?.generation !== generation) {
        eachCompiled = { generation, tools: compileEach(dir, env).then((r) => r.tools) };
      }
      const versions = (await eachCompiled.tools).filter((t) => t.signature.name === name);
      if (versions.length === 0) return undefined;
      const numbers = versions.map((t) => t.signature.version).sort((x, y) => x - y);
      const picked = pickVersions(versions, choice);
      if ('problem' in picked) return { versions: numbers, problem: picked.problem };
      const diff = diffSignatures(picked.from, picked.to);
      const signature = (t: CompiledTool) => JSON.stringify(t.signature, null, 2);
      return {
        versions: numbers,
        ...diff,
        from: { ...diff.from, file: displayPath(diff.from.file) },
        to: { ...diff.to, file: displayPath(diff.to.file) },
        text: formatDiff(diff, (f) => displayPath(f)),
        rows: sideBySide(signature(picked.from), signature(picked.to)),
      };
    },

    async run(
      name: string,
      version: number | undefined,
      inputs: Record<string, unknown>,
      mode: 'recordings' | 'live',
    ) {
      const tool = find(name, version);
      if (!tool) throw new Error(`There is no tool '${name}'${version ? ` version ${version}` : ''}.`);
      let target = tool;
      if (mode === 'recordings') {
        const recordings = path.resolve(
          dir,
          options.recordings ?? path.join(path.dirname(tool.file), 'recordings'),
        );
        target = rebaseTools([await placeholderTool(tool)], (await replayFor(recordings)).url)[0]!;
      }
      // Each execution of a step is its own row: a workflow may run a step again (retry, goto).
      // The hooks of one execution come in order, a request first, so each opens its row.
      const steps = new Map<string, StepTrace[]>();
      const pending = new Map<StepTrace, BackendRequest>();
      let workflowOutputs: Record<string, unknown> | undefined;
      const started = performance.now();
      // The Studio's client and store outlive a run, so a second run shows the cache's hits.
      const { engine } = createCore({
        secret: cacheSecret,
        store,
        client,
        resilience: true,
        // Recordings are served on loopback; live backends obey the gateway's own egress rule.
        allowPrivateEgress: mode === 'recordings' || allowPrivateEgress,
        debug: {
          request: (id, request) => pending.set(openStep(steps, id), request),
          workflowOutputs: (outputs) => {
            workflowOutputs = outputs;
          },
          result: (id, value) => {
            // A step's value may hold what its backend echoed back, a credential included.
            stepOf(steps, id).result = maskValue(value, secrets());
          },
          decoded: (id, value) => {
            // An XML answer (a SOAP envelope) shown as the JSON its step reads, beside its text.
            const step = stepOf(steps, id);
            if (typeof step.response?.body === 'string') step.response.parsed = maskValue(value, secrets());
          },
          response: (id, response, sent) => {
            const request = pending.get(stepOf(steps, id));
            // What the page shows never carries a secret the call held, even echoed back.
            const shown = maskValue(response.body, [...sent, ...secrets()]);
            if (request) {
              answered.set(exchangeKey(request), {
                request,
                status: response.status,
                contentType: response.contentType,
                body: response.body,
                sent: [...sent],
              });
            }
            const step = stepOf(steps, id);
            step.response = {
              status: response.status,
              contentType: response.contentType,
              bytes: response.bytes,
              body: shown,
            };
          },
        },
      });
      let report: InvocationReport | undefined;
      const record: RunRecord = {
        id: randomBytes(6).toString('hex'),
        tool: name,
        version: tool.signature.version,
        inputs,
        mode,
        durationMs: 0,
        steps: [],
        requests: [],
      };
      try {
        const result = await engine.invoke(target, inputs, {
          onReport: (r) => {
            report = r;
          },
        });
        record.outputs = Object.fromEntries(result.outputs.map((o) => [o.name, o.value]));
      } catch (err) {
        const error: SculptorError = toSculptorError(err);
        record.error = { code: error.code, message: error.message };
      }
      record.durationMs = performance.now() - started;
      // The report's steps, in the order they ran, with what the hooks saw; secrets masked.
      let at = 0;
      const taken = new Map<string, number>();
      for (const s of report?.steps ?? []) {
        const n = taken.get(s.id) ?? 0;
        const heard = steps.get(s.id)?.[n];
        if (heard) taken.set(s.id, n + 1);
        const step = heard ?? blankStep(s.id);
        const request = pending.get(step);
        // A called workflow's step (`ordering/find`) is declared by its own id, when only one step has it.
        const own = s.id.split('/').pop()!;
        const matches = tool.steps.filter((d) => d.id === s.id || d.id === own);
        const declared = matches.length === 1 ? matches[0]!.cache : undefined;
        const calledWorkflow = s.backend === 'workflow';
        Object.assign(step, {
          backend: s.backend,
          operation: s.operation,
          outcome: s.outcome,
          cache: s.cache,
          ...(declared ? { cacheScope: declared.scope, cacheTtlMs: declared.ttlMs } : {}),
          durationMs: s.durationMs,
          startMs: at,
          depth: s.id.split('/').length - 1,
          ...(calledWorkflow ? { workflow: s.operation } : {}),
          ...(s.status !== undefined ? { status: s.status } : {}),
          ...(s.errorCode ? { errorCode: s.errorCode } : {}),
          ...(request
            ? {
                request: JSON.parse(
                  mask(
                    JSON.stringify({
                      method: request.method,
                      url: request.url,
                      headers: request.headers,
                      body: request.body,
                    }),
                  ),
                ),
              }
            : {}),
        });
        // A called workflow's row spans its own steps, which follow it and start where it starts.
        if (!calledWorkflow) at += s.durationMs;
        record.steps.push(step);
      }
      if (record.steps.length > 0 && !report) record.steps = [...steps.values()].flat();
      // The output projection's value, as the engine computed it from these steps' values (before
      // the declared outputs are checked): the trace's last row.
      if (tool.workflow) {
        record.workflow = true;
        // A workflow tool projects the workflow's outputs ($outputs), once the workflow finished.
        if (workflowOutputs) {
          try {
            const bindings = { inputs, steps: {}, outputs: workflowOutputs };
            record.projection = { value: maskValue(await tool.output.evaluate(inputs, bindings), secrets()) };
          } catch (err) {
            record.projection = { error: toSculptorError(err).message };
          }
        }
      } else if (
        record.outputs ||
        record.error?.code.startsWith('output.') ||
        record.error?.code === 'projection.failed'
      ) {
        if (record.steps.every((st) => st.outcome === 'ok' || st.outcome === 'skipped')) {
          try {
            const stepValues = Object.fromEntries(record.steps.map((st) => [st.id, st.result]));
            record.projection = {
              value: maskValue(await tool.output.evaluate(inputs, { inputs, steps: stepValues }), secrets()),
            };
          } catch (err) {
            record.projection = { error: toSculptorError(err).message };
          }
        }
      }
      runs.set(record.id, record);
      if (runs.size > MAX_RUNS) runs.delete(runs.keys().next().value!);
      record.requests = record.steps.flatMap((s) => pending.get(s) ?? []);
      return { ...record, requests: undefined };
    },

    /**
     * Evaluates an edited expression against a run's values: the output (over the inputs), a
     * step's `params` (over the inputs, with the other steps' values) or its `result` (over the
     * step's answer). Errors carry their position: offset, line and column in the expression.
     */
    async evaluate(runId: string, target: string, source: string) {
      const run = runs.get(runId);
      if (!run)
        return { error: { message: 'Run the tool first: the playground evaluates against its last run.' } };
      const at = (offset: number) => positionIn(source, offset);
      try {
        const compiled = compileExpression(source, (offset) => ({ file: '(playground)', ...at(offset) }));
        const stepValues = Object.fromEntries(run.steps.map((s) => [s.id, s.result]));
        const bindings = { inputs: run.inputs, steps: stepValues, caller: {} };
        if (target === 'output') {
          return { value: await compiled.evaluate(run.inputs, { inputs: run.inputs, steps: stepValues }) };
        }
        const [, kind, id] = /^(params|result):(.+)$/.exec(target) ?? [];
        const step = run.steps.find((s) => s.id === id);
        if (!step) return { error: { message: `The run has no step for ${target}.` } };
        if (kind === 'params') return { value: await compiled.evaluate(run.inputs, bindings) };
        if (!step.response) {
          return {
            error: {
              message: `Step ${id} answered from the cache in this run: run once more with a cold cache (change an input) to see its answer.`,
            },
          };
        }
        return { value: await compiled.evaluate(step.response.parsed ?? step.response.body, bindings) };
      } catch (err) {
        const jsonata = err as { code?: string; message?: string; position?: number };
        const e = toSculptorError(err) as SculptorError & { at?: { line: number; column: number } };
        const compiledError = e.code !== 'internal';
        const position =
          compiledError && e.at
            ? { offset: (e.at as { offset?: number }).offset, line: e.at.line, column: e.at.column }
            : jsonata.position !== undefined
              ? at(Math.max(0, jsonata.position - 1))
              : undefined;
        return {
          error: {
            code: compiledError ? e.code : (jsonata.code ?? 'error'),
            message: compiledError ? e.message : (jsonata.message ?? String(err)),
            ...(position ?? {}),
          },
        };
      }
    },

    /** A run becomes a case of `<tool>.test.yaml` beside its sculpt, and its exchanges a HAR file. */
    async saveTest(runId: string, caseName: string) {
      const run = runs.get(runId);
      if (!run) throw new Error('Run the tool first: a test is saved from a run.');
      // A test records what a tool does when it works: a failed run would pin the failure.
      if (!run.outputs) {
        throw new Error(
          `This run failed (${run.error?.code ?? 'error'}): only a successful run is saved as a test.`,
        );
      }
      const tool = find(run.tool, run.version)!;
      const folder = path.dirname(tool.file);
      const recordingsDir = path.join(folder, 'recordings', 'studio');
      await mkdir(recordingsDir, { recursive: true });
      const harFile = path.join(recordingsDir, `${run.tool}-${run.id}.har`);
      const exchanges = run.requests.flatMap((r) => answered.get(exchangeKey(r)) ?? []);
      // No secret reaches the folder: configured ones and those the run's calls held, masked.
      const har = toHar(run, exchanges, (value, sent) =>
        maskValue(
          value,
          [...secrets(), ...sent].flatMap((s) => [s, encodeURIComponent(s)]),
        ),
      );
      await writeFile(harFile, `${JSON.stringify(har, null, 2)}\n`);
      const testFile = path.join(folder, `${run.tool}${TEST_SUFFIX}`);
      const relativeHar = path.relative(folder, harFile).split(path.sep).join('/');
      const testCase = {
        name: caseName,
        version: run.version,
        inputs: run.inputs,
        expect: { outputs: run.outputs },
        calls: run.requests.map((r) => `${r.method} ${pathOf(r.url)}`),
      };
      let text: string;
      try {
        const doc = parseDocument(await readFile(testFile, 'utf8'));
        const recordings = (
          doc.get('recordings') as { items?: Array<{ value?: unknown }> } | undefined
        )?.items?.map((i) => String(i.value ?? i));
        if (!recordings?.includes(relativeHar)) doc.addIn(['recordings'], relativeHar);
        doc.addIn(['cases'], doc.createNode(testCase));
        text = doc.toString();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        text = stringify({ tool: run.tool, recordings: [relativeHar], cases: [testCase] });
      }
      await writeFile(testFile, text);
      return { testFile: displayPath(testFile), recording: displayPath(harFile) };
    },

    async close() {
      watcher.close();
      await Promise.all(
        [...replays.values()].map(async (r) => (await r.server.catch(() => undefined))?.close()),
      );
      await client.close();
    },
  };
}

export type Workspace = Awaited<ReturnType<typeof openWorkspace>>;

function maskValue(value: unknown, secrets: string[]): unknown {
  if (value === undefined || secrets.length === 0) return value;
  const text = JSON.stringify(value);
  const masked = secrets
    .filter((s) => s.length >= 4)
    .reduce((t, s) => t.split(JSON.stringify(s).slice(1, -1)).join(MASK), text);
  return masked === text ? value : JSON.parse(masked);
}

/** Offset (0-based), line and column (1-based) of a character of an expression. */
function positionIn(source: string, offset: number): { offset: number; line: number; column: number } {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  return { offset, line, column: offset - before.lastIndexOf('\n') };
}

function blankStep(id: string): StepTrace {
  return { id, backend: '', operation: '', outcome: 'not_run', cache: 'off', durationMs: 0, startMs: 0 };
}

/** A new execution of the step: its row. */
function openStep(steps: Map<string, StepTrace[]>, id: string): StepTrace {
  const step = blankStep(id);
  steps.set(id, [...(steps.get(id) ?? []), step]);
  return step;
}

/** The step's execution in progress (its latest row). */
function stepOf(steps: Map<string, StepTrace[]>, id: string): StepTrace {
  return steps.get(id)?.at(-1) ?? openStep(steps, id);
}

function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

/** HAR 1.2, as `src/replay` reads it: what the run's backends answered, credentials left out. */
function toHar(run: RunRecord, exchanges: Exchange[], masked: (value: unknown, sent: string[]) => unknown) {
  return {
    log: {
      version: '1.2',
      creator: { name: 'sculptor studio', version: '1' },
      comment: `Recorded by the Studio from a ${run.mode} run of ${run.tool} v${run.version}.`,
      entries: exchanges.map((e) => ({
        startedDateTime: new Date().toISOString(),
        time: 0,
        request: {
          method: e.request.method,
          url: masked(e.request.url, e.sent) as string,
          httpVersion: 'HTTP/1.1',
          headers: [],
          queryString: [],
          cookies: [],
          headersSize: -1,
          bodySize: -1,
        },
        response: {
          status: e.status,
          statusText: '',
          httpVersion: 'HTTP/1.1',
          headers: [{ name: 'content-type', value: e.contentType || 'application/json' }],
          cookies: [],
          content: {
            size: -1,
            mimeType: e.contentType || 'application/json',
            text: ((body) => (typeof body === 'string' ? body : JSON.stringify(body ?? null)))(
              masked(e.body, e.sent),
            ),
          },
          redirectURL: '',
          headersSize: -1,
          bodySize: -1,
        },
        cache: {},
        timings: { send: 0, wait: 0, receive: 0 },
      })),
    },
  };
}
