import { compileSculpts } from '../compile/compile-sculpts.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import type { InputParameter } from '../compile/tool-signature.ts';
import { readSettings } from '../config/settings.ts';
import { didYouMean } from '../designer/did-you-mean.ts';
import { formatFinding } from '../designer/findings.ts';
import { missingCredentialsHint } from '../engine/attach-credentials.ts';
import type { InvocationReport } from '../engine/invoke-tool.ts';
import type { StepDebugHook } from '../engine/run-step.ts';
import { SculptLoadError, toSculptorError } from '../errors/sculptor-error.ts';
import type { BackendRequest, BackendResponse } from '../http/backend-client.ts';
import { redactUrl } from '../http/index.ts';
import { createCore } from '../server/create-core.ts';
import { backendSecrets } from '../sculpt/backend-secrets.ts';
import { Redactor } from '../telemetry/redactor.ts';
import { redisSecrets } from '../cache/redis-url.ts';
import { type ParsedArgs, UsageError } from './command-table.ts';
import { sculptsDir } from './designer-commands.ts';

/** The most of a backend answer the debug view shows. */
export const DEBUG_BODY_BYTES = 2048;

interface StepTrace {
  request?: { method: string; url: string; headers: string[]; body?: number };
  response?: { status: number; contentType: string; body: string; bytes: number; truncated: boolean };
}

/**
 * `sculptor invoke NAME --input k=v [--debug]`: one invocation through the
 * engine, no server. The debug view (stderr) shows, per step, what was sent
 * (method, redacted URL, header names — never values), what came back
 * (status, at most 2 KiB of body), the cache outcome and the time taken.
 */
export async function invokeCommand({ values, positionals }: ParsedArgs): Promise<number> {
  const name = positionals[0]!;
  const dir = sculptsDir(positionals[1]);
  const pairs = (values.input as string[] | undefined) ?? [];
  parseInputs(pairs); // a malformed pair is a usage error before anything loads
  const settings = readSettings(process.env);

  let tools: CompiledTool[];
  try {
    tools = await compileSculpts(dir, process.env, {
      requireHttps: !settings.allowPrivateEgress && !settings.allowHttpBackends,
    });
  } catch (err) {
    if (!(err instanceof SculptLoadError)) throw err;
    for (const e of err.errors) console.error(formatFinding({ severity: 'error', error: e }));
    return 1;
  }
  const versions = tools.filter((t) => t.signature.name === name);
  const tool =
    typeof values.version === 'number'
      ? versions.find((t) => t.signature.version === values.version)
      : versions.sort((a, b) => b.signature.version - a.signature.version)[0];
  if (!tool) {
    console.error(
      versions.length === 0
        ? `There is no tool '${name}' in ${dir}.${didYouMean(
            name,
            tools.map((t) => t.signature.name),
          )}`
        : `${name} has no version ${String(values.version)} (it has ${versions.map((t) => t.signature.version).join(', ')}).`,
    );
    return 1;
  }
  const inputs = parseInputs(pairs, tool.signature.input_parameters);

  // Everything printed passes the redactor: a backend may echo a credential in
  // its answer, and the debug view shows answers. It knows every configured secret — of every
  // backend of the folder, not only this tool's: a backend may echo one it was never sent —
  // and, through the debug hook, the values the invocation sent (fetched tokens, pass-through
  // values).
  const redactor = new Redactor();
  redactor.add([
    ...[...new Set(tools.flatMap((t) => t.steps.map((step) => step.backend)))].flatMap(backendSecrets),
    ...(settings.secretFromEnv ? [settings.secret] : []),
    ...redisSecrets(settings.redisUrl),
  ]);
  const traces = new Map<string, StepTrace>();
  const trace = (id: string) => traces.get(id) ?? traces.set(id, {}).get(id)!;
  const debug: StepDebugHook | undefined =
    values.debug === true
      ? {
          request: (id, request) => (trace(id).request = describeRequest(request)),
          response: (id, response, sent) => {
            redactor.add(sent);
            trace(id).response = describeResponse(response, (text) => redactor.redact(text));
          },
        }
      : undefined;
  const core = createCore({
    allowPrivateEgress: settings.allowPrivateEgress,
    ...(debug ? { debug } : {}),
  });
  const engine = core.engine;
  let report: InvocationReport | undefined;
  try {
    const result = await engine.invoke(tool, inputs, { onReport: (r) => (report = r) });
    // Printed as the A2T answer a designer compares with what the gateway serves.
    const answer = { output_parameters: result.outputs };
    process.stdout.write(`${redactor.redact(JSON.stringify(answer, null, 2))}\n`);
    return 0;
  } catch (err) {
    const error = toSculptorError(err);
    process.stdout.write(
      `${redactor.redact(JSON.stringify({ status: error.status, ...error.toJSON() }, null, 2))}\n`,
    );
    // The operator's hint (why, what to set) is for the designer at the terminal, not the wire form.
    if (error.hint !== undefined)
      process.stderr.write(`${redactor.redact(`${error.code}: ${error.hint}`)}\n`);
    return 1;
  } finally {
    if (debug && report) process.stderr.write(`${redactor.redact(formatDebug(tool, report, traces))}\n`);
    await core.close();
  }
}

/**
 * `k=v` pairs; v is JSON when it parses (10, true, "10", null), else text. An
 * input the tool declares as a string keeps its text (customer=12345 is the
 * string "12345", as a shell user means it), unless it is quoted JSON.
 */
export function parseInputs(
  pairs: string[],
  declared: ReadonlyArray<Pick<InputParameter, 'name' | 'type'>> = [],
): Record<string, unknown> {
  const types = new Map(declared.map((p) => [p.name, p.type]));
  const inputs: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError('invoke', `--input takes NAME=VALUE (got '${pair}').`);
    const key = pair.slice(0, eq);
    const text = pair.slice(eq + 1);
    let value: unknown = text;
    try {
      value = JSON.parse(text);
    } catch {
      // plain text
    }
    const type = types.get(key);
    if ((type === 'string' || type === 'enum') && typeof value !== 'string') value = text;
    inputs[key] = value;
  }
  return inputs;
}

function describeRequest(request: BackendRequest): NonNullable<StepTrace['request']> {
  return {
    method: request.method,
    url: redactUrl(request.url),
    headers: Object.keys(request.headers).sort(),
    ...(request.body !== undefined ? { body: Buffer.byteLength(request.body) } : {}),
  };
}

function describeResponse(
  response: BackendResponse,
  redact: (text: string) => string,
): NonNullable<StepTrace['response']> {
  const text = typeof response.body === 'string' ? response.body : (JSON.stringify(response.body) ?? '');
  // Redacted whole, before the cut: a secret across the 2 KiB boundary must not show its start.
  const bytes = Buffer.from(redact(text), 'utf8');
  // Cut at a character boundary: the decoder drops a partial character at the end.
  const shown = new TextDecoder('utf-8', { fatal: false })
    .decode(bytes.subarray(0, DEBUG_BODY_BYTES))
    .replace(/\uFFFD$/, '');
  return {
    status: response.status,
    contentType: response.contentType,
    body: shown,
    bytes: bytes.length,
    truncated: bytes.length > DEBUG_BODY_BYTES,
  };
}

export function formatDebug(
  tool: CompiledTool,
  report: InvocationReport,
  traces: Map<string, StepTrace>,
): string {
  const lines = [
    `── debug: ${report.tool} v${report.version} — ${report.outcome} in ${report.durationMs.toFixed(1)} ms`,
  ];
  for (const step of report.steps) {
    const compiled = tool.steps.find((s) => s.id === step.id);
    const backend = compiled?.backend;
    const credentials = (backend?.auth ?? []).map((a) => `${a.name} (${a.in})`);
    const unset = backend?.credentialsMissing ?? [];
    lines.push(
      `step ${step.id}: ${step.backend} ${step.operation} — ${step.outcome}${step.errorCode ? ` (${step.errorCode})` : ''}, cache ${step.cache}, ${step.durationMs.toFixed(1)} ms`,
    );
    const t = traces.get(step.id);
    if (t?.request) {
      lines.push(`  → ${t.request.method} ${t.request.url}`);
      lines.push(`    headers: ${t.request.headers.join(', ') || 'none'}`);
      // The request was built before the credentials: say "added" only when they were.
      if (unset.length > 0 && backend) {
        lines.push(`    credentials not added: ${missingCredentialsHint(backend)}`);
      } else if (credentials.length > 0 && step.errorCode !== 'upstream.credentials_missing') {
        lines.push(`    credentials added: ${credentials.join(', ')}`);
      }
      if (t.request.body !== undefined) lines.push(`    body: ${t.request.body} bytes`);
    }
    if (t?.response) {
      lines.push(
        `  ← ${t.response.status} ${t.response.contentType || '(no content type)'}, ${t.response.bytes} bytes`,
      );
      if (t.response.body) {
        lines.push(
          `    ${t.response.body}${t.response.truncated ? ` … (${DEBUG_BODY_BYTES} of ${t.response.bytes} bytes shown)` : ''}`,
        );
      }
    } else if (step.status !== undefined) {
      lines.push(`  ← ${step.status} (from the cache)`);
    }
    if (step.errorHint !== undefined) lines.push(`  why: ${step.errorHint}`);
  }
  return lines.join('\n');
}
