import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CompiledBackend } from '../compile/compile-backends.ts';
import type { CompiledStep, CompiledTool } from '../compile/compile-tool.ts';
import type { WorkflowProgram } from '../compile/workflow-program.ts';
import { BACKENDS_FILE } from '../sculpt/load-sculpts.ts';
import { parseYamlSource } from '../sculpt/yaml-source.ts';

/**
 * Two ways to send a sculpt folder's backend calls to a replay server instead
 * of the real APIs. The replay server ignores the host, so one server stands
 * in for every backend; what must be kept is each base URL's path (a backend
 * at `https://host/api/v3` is asked `/api/v3/...` in its recordings too).
 */

/** `https://api.example.com/v2/` with origin `http://127.0.0.1:9091` → `http://127.0.0.1:9091/v2`. */
export function rebaseUrl(baseUrl: string, origin: string): string {
  const from = new URL(baseUrl);
  return `${new URL(origin).origin}${from.pathname.replace(/\/+$/, '')}`;
}

/**
 * Compiled tools whose every backend is rebased onto `origin` and allowed to
 * reach it on loopback. Works whatever the backends file says (a literal URL
 * as well as `${VAR}`), and leaves the given tools untouched: the engine runs
 * the copies as it would any tool, knowing nothing of tests.
 */
export function rebaseTools(tools: readonly CompiledTool[], origin: string): CompiledTool[] {
  const rebased = new Map<CompiledBackend, CompiledBackend>();
  const backendFor = (backend: CompiledBackend): CompiledBackend => {
    let copy = rebased.get(backend);
    if (!copy) {
      copy = { ...backend, baseUrl: rebaseUrl(backend.baseUrl, origin), allowPrivate: true };
      rebased.set(backend, copy);
    }
    return copy;
  };
  const stepFor = (step: CompiledStep): CompiledStep => ({ ...step, backend: backendFor(step.backend) });
  return tools.map((tool) => ({
    ...tool,
    steps: tool.steps.map(stepFor),
    ...(tool.workflow
      ? { workflow: { ...tool.workflow, program: rebaseProgram(tool.workflow.program, stepFor, new Map()) } }
      : {}),
  }));
}

/**
 * A workflow runs its program's steps, not the tool's flat list of them: the copy reaches every
 * operation step, those of the workflows it calls and depends on included (each copied once, so
 * a workflow called twice stays one program, and the copies are made as the runner first asks).
 */
function rebaseProgram(
  program: WorkflowProgram,
  stepFor: (step: CompiledStep) => CompiledStep,
  copies: Map<WorkflowProgram, WorkflowProgram>,
): WorkflowProgram {
  const known = copies.get(program);
  if (known) return known;
  const copy: WorkflowProgram = { ...program, steps: [], dependsOn: [] };
  copies.set(program, copy);
  const later = (next: () => WorkflowProgram) => {
    let made: WorkflowProgram | undefined;
    return () => (made ??= rebaseProgram(next(), stepFor, copies));
  };
  copy.steps = program.steps.map((step) => ({
    ...step,
    ...(step.call ? { call: { ...step.call, step: stepFor(step.call.step) } } : {}),
    ...(step.workflow ? { workflow: { ...step.workflow, program: later(step.workflow.program) } } : {}),
  }));
  copy.dependsOn = program.dependsOn.map(later);
  return copy;
}

/** A baseUrl that is exactly one environment reference, `${NAME}` or `${NAME:-default}`. */
const SINGLE_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}$/;

/**
 * The environment that points every backend of a sculpt folder at a replay
 * server, for a whole gateway (which reads base URLs from the environment):
 * `{ NWS_BASE_URL: 'http://127.0.0.1:9091', … }`. Each backend's baseUrl must
 * be a single `${VAR}` or `${VAR:-default}` reference; its path (from the
 * variable's current value, else its default) is kept. Throws naming the
 * backend when a baseUrl cannot be pointed elsewhere.
 */
export async function replayEnv(
  sculptsDir: string,
  replayUrl: string,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const entries = await readdir(path.resolve(sculptsDir), { withFileTypes: true, recursive: true });
  const files = entries
    .filter((e) => e.isFile() && e.name === BACKENDS_FILE)
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
  for (const file of files) {
    const { source, errors } = parseYamlSource(file, await readFile(file, 'utf8'));
    if (!source) throw new Error(`${file}: ${errors.map((e) => e.message).join('; ')}`);
    const backends = (source.value as { backends?: Record<string, { baseUrl?: unknown }> }).backends ?? {};
    for (const [name, backend] of Object.entries(backends)) {
      const match = typeof backend.baseUrl === 'string' ? SINGLE_REFERENCE.exec(backend.baseUrl) : null;
      if (!match) {
        throw new Error(
          `${file}: backend '${name}': to be pointed at a replay server, ` +
            'its baseUrl must be one ${VAR:-default} reference.',
        );
      }
      const [, variable, fallback] = match as unknown as [string, string, string | undefined];
      const current = env[variable] || fallback;
      out[variable] = current ? rebaseUrl(current, replayUrl) : new URL(replayUrl).origin;
    }
  }
  return out;
}
