import type { CallRecord, CatalogRun, ScenarioRun, TurnRun } from './run-scenarios.ts';
import { type Mean, meanOf, quantile } from './statistics.ts';

/** A share of successes, with its counts (rate null when there is nothing to count). */
export interface Rate {
  hits: number;
  of: number;
  rate: number | null;
}

export interface Metrics {
  /** Scenario runs (tasks) and the turns they had. */
  tasks: number;
  turns: number;
  /** Turns where the expected tool(s) were called (or none, when none was right). */
  toolChoice: Rate;
  /** Calls whose arguments validate against the schema the tool was offered with. */
  argumentValidity: Rate;
  /** Turns with the expected tool(s) and the expected arguments: the turn is right. */
  argumentCorrectness: Rate;
  /** Tool calls per task (every turn of one scenario run). */
  callsPerTask?: Mean;
  /** Per task, summed over its model requests; absent when the endpoint reports no usage. */
  promptTokens?: Mean;
  completionTokens?: Mean;
  /** Time waiting for the model per task, and per model request. */
  latencyMs?: Mean;
  requestLatencyMs?: { p50: number; p95: number };
}

/** A turn that went wrong, with the model's raw calls and text, for the reader to judge. */
export interface Failure {
  repetition: number;
  turn: number;
  request: string;
  problems: string[];
  calls: Array<Pick<CallRecord, 'tool' | 'rawArguments' | 'valid' | 'problems' | 'outcome'>>;
  answer: string | null;
  cutShort: boolean;
}

export interface ScenarioReport {
  file: string;
  scenario: string;
  metrics: Metrics;
  failures: Failure[];
}

export interface CatalogReport {
  label: string;
  face: string;
  tools: number;
  /** Characters of the `tools` array sent with every request. */
  offeredCharacters: number;
  overall: Metrics;
  scenarios: ScenarioReport[];
}

/** Cap on a raw call or answer kept in a report: enough to see what went wrong. */
const MAX_RAW = 4000;
const cap = (text: string) => (text.length > MAX_RAW ? `${text.slice(0, MAX_RAW)}…` : text);

function rate(hits: number, of: number): Rate {
  return { hits, of, rate: of === 0 ? null : hits / of };
}

export function metricsOf(runs: readonly ScenarioRun[]): Metrics {
  const turns: TurnRun[] = runs.flatMap((r) => r.turns);
  const calls = turns.flatMap((t) => t.calls);
  const perTask = (f: (t: TurnRun) => number | undefined) =>
    runs.map((r) =>
      r.turns.reduce<number | undefined>(
        (sum, t) => (sum === undefined || f(t) === undefined ? undefined : sum + f(t)!),
        0,
      ),
    );
  const known = (values: Array<number | undefined>) =>
    values.every((v) => v !== undefined) ? meanOf(values as number[]) : undefined;
  const requestLatencies = turns.filter((t) => t.modelRequests > 0).map((t) => t.latencyMs / t.modelRequests);
  const callsPerTask = meanOf(runs.map((r) => r.turns.reduce((n, t) => n + t.calls.length, 0)));
  const promptTokens = known(perTask((t) => t.promptTokens));
  const completionTokens = known(perTask((t) => t.completionTokens));
  const latencyMs = meanOf(runs.map((r) => r.turns.reduce((n, t) => n + t.latencyMs, 0)));
  return {
    tasks: runs.length,
    turns: turns.length,
    toolChoice: rate(turns.filter((t) => t.score.toolChoice).length, turns.length),
    argumentValidity: rate(calls.filter((c) => c.valid).length, calls.length),
    argumentCorrectness: rate(turns.filter((t) => t.score.correct).length, turns.length),
    ...(callsPerTask ? { callsPerTask } : {}),
    ...(promptTokens ? { promptTokens } : {}),
    ...(completionTokens ? { completionTokens } : {}),
    ...(latencyMs ? { latencyMs } : {}),
    ...(requestLatencies.length > 0
      ? {
          requestLatencyMs: { p50: quantile(requestLatencies, 0.5)!, p95: quantile(requestLatencies, 0.95)! },
        }
      : {}),
  };
}

export function catalogReport(run: CatalogRun): CatalogReport {
  const byScenario = new Map<string, ScenarioRun[]>();
  for (const r of run.runs) {
    const key = JSON.stringify([r.file, r.scenario]);
    byScenario.set(key, [...(byScenario.get(key) ?? []), r]);
  }
  return {
    label: run.catalog.label,
    face: run.catalog.face,
    tools: run.catalog.tools.size,
    offeredCharacters: run.catalog.characters,
    overall: metricsOf(run.runs),
    scenarios: [...byScenario.values()].map((runs) => ({
      file: runs[0]!.file,
      scenario: runs[0]!.scenario,
      metrics: metricsOf(runs),
      failures: runs.flatMap((r) =>
        r.turns.flatMap((t, turn): Failure[] =>
          t.score.correct && t.calls.every((c) => c.valid)
            ? []
            : [
                {
                  repetition: r.repetition,
                  turn: turn + 1,
                  request: t.request,
                  problems: [
                    ...t.score.problems,
                    ...t.calls
                      .filter((c) => !c.valid)
                      .map((c) => `${c.tool}: invalid arguments (${c.problems.join('; ')}).`),
                  ],
                  calls: t.calls.map((c) => ({
                    tool: c.tool,
                    rawArguments: cap(c.rawArguments),
                    valid: c.valid,
                    problems: c.problems,
                    ...(c.outcome ? { outcome: c.outcome } : {}),
                  })),
                  answer: t.answer === null ? null : cap(t.answer),
                  cutShort: t.cutShort,
                },
              ],
        ),
      ),
    })),
  };
}
