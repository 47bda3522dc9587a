import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CompiledTool } from '../compile/compile-tool.ts';
import { SculptorError, toSculptorError } from '../errors/sculptor-error.ts';
import { loadRecordings, type ReplayServer, startReplayServer } from '../replay/index.ts';
import { createCore } from '../server/create-core.ts';
import { backendSecrets } from '../sculpt/backend-secrets.ts';
import { rebaseTools } from '../testing/index.ts';
import { engineArguments, type OfferedCatalog } from './offered-tools.ts';
import type { ModelCall } from './score-turn.ts';

/**
 * Where the model's calls go, so that a task can go on after its first call (and calls per task
 * means something): `recordings` (the default) runs each call through the engine against the
 * recorded exchanges of its tool's folder — or of `--recordings DIR` — served on loopback, as
 * `sculptor test` and the Studio do; `live` calls the real backends, with their effects; `none`
 * runs nothing, so each turn ends at the model's first answer.
 */
export const RUN_MODES = ['recordings', 'live', 'none'] as const;
export type RunMode = (typeof RUN_MODES)[number];

/** What the model is told a call gave: the outputs, or the error a face would send. */
export type ToolOutcome =
  { outputs: Record<string, unknown> } | { error: { code: string; message: string } } | { notRun: true };

export interface ToolRunner {
  readonly mode: RunMode;
  run(catalog: OfferedCatalog, call: ModelCall, signal?: AbortSignal): Promise<ToolOutcome>;
  close(): Promise<void>;
}

export interface ToolRunnerOptions {
  mode: RunMode;
  /** One recordings folder or file for every tool, instead of each tool folder's `recordings/`. */
  recordings?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

/** The recordings a tool's calls are answered from. */
function recordingsOf(tool: CompiledTool, options: ToolRunnerOptions): string {
  return path.resolve(options.recordings ?? path.join(path.dirname(tool.file), 'recordings'));
}

/**
 * Checked before any model is asked: a catalog whose calls cannot run is a setup error, not a
 * run of failed calls.
 */
export function checkRunnable(catalogs: readonly OfferedCatalog[], options: ToolRunnerOptions): void {
  if (options.mode !== 'recordings') return;
  for (const catalog of catalogs) {
    for (const tool of catalog.tools.values()) {
      const folder = recordingsOf(tool, options);
      if (!existsSync(folder)) {
        throw new SculptorError(
          'eval.config',
          `Tool ${tool.signature.name} of ${catalog.label} has no recordings (${folder}) to run its calls against: pass --recordings DIR, --run live (real backends) or --run none (score first answers only).`,
        );
      }
    }
  }
}

export function createToolRunner(options: ToolRunnerOptions): ToolRunner {
  const env = options.env ?? process.env;
  const replays = new Map<string, Promise<ReplayServer>>();
  const rebased = new WeakMap<CompiledTool, Promise<CompiledTool>>();
  const core = createCore({
    resilience: false,
    // Recordings are served on loopback; live backends obey the gateway's own egress rule.
    allowPrivateEgress:
      options.mode === 'recordings' ||
      ['true', '1'].includes((env.SCULPTOR_ALLOW_PRIVATE_EGRESS ?? '').toLowerCase()),
  });
  const target = (tool: CompiledTool): Promise<CompiledTool> => {
    if (options.mode !== 'recordings') return Promise.resolve(tool);
    let made = rebased.get(tool);
    if (!made) {
      const folder = recordingsOf(tool, options);
      let replay = replays.get(folder);
      if (!replay) {
        replay = loadRecordings([folder]).then((exchanges) =>
          startReplayServer(exchanges, { host: '127.0.0.1', port: 0 }),
        );
        replays.set(folder, replay);
      }
      made = replay.then((server) => rebaseTools([tool], server.url)[0]!);
      rebased.set(tool, made);
    }
    return made;
  };
  return {
    mode: options.mode,
    async run(catalog, call, signal) {
      if (options.mode === 'none') return { notRun: true };
      const tool = catalog.tools.get(call.tool);
      if (!tool) {
        return { error: { code: 'tool.not_found', message: `There is no tool named '${call.tool}'.` } };
      }
      if (!call.arguments) {
        return {
          error: {
            code: 'input.invalid',
            message: `Invalid tool call: the arguments are not a JSON object (${call.problems.join('; ')}).`,
          },
        };
      }
      try {
        const result = await core.engine.invoke(await target(tool), engineArguments(catalog, call), {
          ...(signal ? { signal } : {}),
          face: 'eval',
        });
        return { outputs: Object.fromEntries(result.outputs.map((o) => [o.name, o.value])) };
      } catch (err) {
        const e = toSculptorError(err);
        return { error: { code: e.code, message: e.message } };
      }
    },
    async close() {
      await Promise.allSettled([...replays.values()].map(async (r) => (await r).close()));
      await core.close();
    },
  };
}

/** Every credential a catalog's backends hold: masked wherever a prompt or a report could carry one. */
export function catalogSecrets(catalog: OfferedCatalog): string[] {
  return [
    ...new Set([...catalog.tools.values()].flatMap((t) => t.steps.flatMap((s) => backendSecrets(s.backend)))),
  ];
}

/** A call's outcome as the tool message the model reads: what an MCP client would pass on. */
export function toolMessage(outcome: ToolOutcome): string {
  if ('outputs' in outcome) return JSON.stringify(outcome.outputs);
  if ('error' in outcome) return JSON.stringify({ error: outcome.error });
  return JSON.stringify({ note: 'This evaluation does not run tools; answer without the result.' });
}
