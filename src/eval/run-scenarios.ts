import { SculptLoadError, SculptorError } from '../errors/sculptor-error.ts';
import type { ChatMessage, ModelEndpoint } from './model-endpoint.ts';
import { type OfferedCatalog, readCall } from './offered-tools.ts';
import { type Alternative, type Scenario, type ScenarioFile, toolsNamed } from './scenario-file.ts';
import { type ModelCall, scoreTurn, type TurnScore } from './score-turn.ts';
import { type ToolOutcome, type ToolRunner, toolMessage } from './tool-runner.ts';

export interface RunOptions {
  /** Runs of each scenario. */
  repeat: number;
  temperature: number;
  /** Sent as `seed` (plus the repetition's index) when given, for endpoints that honour it. */
  seed?: number;
  /** Tool calls one turn may make before it is cut short. */
  maxCalls: number;
  signal?: AbortSignal;
  /** After each scenario run, for progress lines. */
  onRun?: (done: number, total: number, run: ScenarioRun) => void;
}

/** One call of a run, as the report shows it: the model's raw call first. */
export interface CallRecord extends ModelCall {
  /** What running it gave (absent when tools are not run). */
  outcome?: { ok: true } | { error: { code: string; message: string } };
}

export interface TurnRun {
  request: string;
  calls: CallRecord[];
  /** The model's last text answer of the turn (null when it only called tools). */
  answer: string | null;
  score: TurnScore;
  /** The turn stopped at the call limit before the model answered. */
  cutShort: boolean;
  modelRequests: number;
  /** Summed over the turn's model requests; undefined when the endpoint does not report usage. */
  promptTokens?: number;
  completionTokens?: number;
  /** Time waiting for the model (tool runs excluded). */
  latencyMs: number;
}

export interface ScenarioRun {
  file: string;
  scenario: string;
  repetition: number;
  turns: TurnRun[];
}

export interface CatalogRun {
  catalog: OfferedCatalog;
  runs: ScenarioRun[];
}

/** The answers of a turn that a catalog can be held to: those naming only tools it offers. */
export function applicable(expect: readonly Alternative[], catalog: OfferedCatalog): Alternative[] {
  return expect.filter((a) => toolsNamed(a).every((t) => catalog.tools.has(t)));
}

/**
 * Before any model is asked: every turn of every scenario must have an answer the catalog can
 * give, or the scenario cannot tell anything about it (and a run would score a typo as the
 * model's failure). Every such problem is reported at once, at its place in its file.
 */
export function checkScenarios(files: readonly ScenarioFile[], catalogs: readonly OfferedCatalog[]): void {
  const errors: SculptorError[] = [];
  for (const file of files) {
    for (const scenario of file.scenarios) {
      for (const turn of scenario.turns) {
        for (const catalog of catalogs) {
          if (applicable(turn.expect, catalog).length > 0) continue;
          const named = [...new Set(turn.expect.flatMap(toolsNamed))].join(', ');
          const offered = [...catalog.tools.keys()];
          errors.push(
            new SculptorError(
              'eval.scenario',
              `'${scenario.name}' expects ${named}, which ${catalog.label} does not offer (it offers ${offered.slice(0, 12).join(', ')}${offered.length > 12 ? ', …' : ''}). Fix the tool name, or add the answer this catalog should give under any:.`,
              { at: turn.at },
            ),
          );
        }
      }
    }
  }
  if (errors.length > 0) throw new SculptLoadError(errors);
}

/** Every scenario of every file, `repeat` times, against one catalog; runs are sequential. */
export async function runCatalog(
  endpoint: ModelEndpoint,
  catalog: OfferedCatalog,
  files: readonly ScenarioFile[],
  runner: ToolRunner,
  options: RunOptions,
): Promise<CatalogRun> {
  const runs: ScenarioRun[] = [];
  const total = files.reduce((n, f) => n + f.scenarios.length, 0) * options.repeat;
  for (const file of files) {
    for (const scenario of file.scenarios) {
      for (let repetition = 0; repetition < options.repeat; repetition++) {
        const run = await runScenario(endpoint, catalog, file, scenario, runner, repetition, options);
        runs.push(run);
        options.onRun?.(runs.length, total, run);
      }
    }
  }
  return { catalog, runs };
}

export async function runScenario(
  endpoint: ModelEndpoint,
  catalog: OfferedCatalog,
  file: Pick<ScenarioFile, 'file' | 'system'>,
  scenario: Scenario,
  runner: ToolRunner,
  repetition: number,
  options: Omit<RunOptions, 'repeat' | 'onRun'>,
): Promise<ScenarioRun> {
  const messages: ChatMessage[] = file.system ? [{ role: 'system', content: file.system }] : [];
  const turns: TurnRun[] = [];
  for (const turn of scenario.turns) {
    messages.push({ role: 'user', content: turn.request });
    const run = await runTurn(endpoint, catalog, messages, runner, repetition, options);
    turns.push({
      request: turn.request,
      ...run,
      score: scoreTurn(applicable(turn.expect, catalog), run.calls),
    });
  }
  return { file: file.file, scenario: scenario.name, repetition, turns };
}

/**
 * One turn: ask, run what the model calls, give it the results, until it answers in words (or
 * reaches the call limit). Every request goes to the same endpoint with the same tools.
 */
async function runTurn(
  endpoint: ModelEndpoint,
  catalog: OfferedCatalog,
  messages: ChatMessage[],
  runner: ToolRunner,
  repetition: number,
  options: Omit<RunOptions, 'repeat' | 'onRun'>,
): Promise<Omit<TurnRun, 'request' | 'score'>> {
  const calls: CallRecord[] = [];
  let answer: string | null;
  let modelRequests = 0;
  let latencyMs = 0;
  let promptTokens: number | undefined = 0;
  let completionTokens: number | undefined = 0;
  let cutShort = false;
  for (;;) {
    if (options.signal?.aborted) throw new SculptorError('request.cancelled', 'The evaluation was stopped.');
    const reply = await endpoint.complete(
      {
        messages,
        tools: catalog.chatTools,
        temperature: options.temperature,
        ...(options.seed !== undefined ? { seed: options.seed + repetition } : {}),
      },
      options.signal,
    );
    modelRequests++;
    latencyMs += reply.latencyMs;
    promptTokens =
      reply.promptTokens === undefined || promptTokens === undefined
        ? undefined
        : promptTokens + reply.promptTokens;
    completionTokens =
      reply.completionTokens === undefined || completionTokens === undefined
        ? undefined
        : completionTokens + reply.completionTokens;
    answer = reply.content;
    messages.push({
      role: 'assistant',
      content: reply.content,
      ...(reply.toolCalls.length > 0
        ? {
            tool_calls: reply.toolCalls.map((c) => ({
              id: c.id,
              type: 'function' as const,
              function: { name: c.name, arguments: c.arguments },
            })),
          }
        : {}),
    });
    if (reply.toolCalls.length === 0) break;
    for (const c of reply.toolCalls) {
      const call = readCall(catalog, c.name, c.arguments);
      const outcome: ToolOutcome = await runner.run(catalog, call, options.signal);
      messages.push({ role: 'tool', tool_call_id: c.id, content: toolMessage(outcome) });
      calls.push({
        ...call,
        ...('outputs' in outcome
          ? { outcome: { ok: true } }
          : 'error' in outcome
            ? { outcome: { error: outcome.error } }
            : {}),
      });
    }
    if (runner.mode === 'none') break;
    if (calls.length >= options.maxCalls) {
      cutShort = true;
      break;
    }
  }
  return {
    calls,
    answer,
    cutShort,
    modelRequests,
    ...(promptTokens !== undefined ? { promptTokens } : {}),
    ...(completionTokens !== undefined ? { completionTokens } : {}),
    latencyMs,
  };
}
