/**
 * The `SCULPTOR_JSONATA_*` settings: the bounds every sculpt expression is evaluated within and
 * how it is isolated. Parsed here, with the other settings, and read by the compiler
 * (`compile/jsonata/`) through `processJsonataSettings`; this file imports nothing, so the
 * compiler can read its settings without `config/` reading the compiler.
 */

type Env = Readonly<Record<string, string | undefined>>;

/**
 * What one JSONata evaluation may spend (RELIABILITY G2): jsonata's own guardrails, and the
 * bounds the cost model (`compile/jsonata/cost-model.ts`) charges every built-in against.
 */
export interface JsonataLimits {
  /** jsonata's guardrails: ms per evaluation, nested evaluations, items per sequence. */
  timeout?: number;
  stack?: number;
  /** Also the most items an array made or sorted by a built-in may hold. */
  sequence?: number;
  /** Characters in one string a built-in makes (`SCULPTOR_JSONATA_MAX_STRING`). */
  maxString?: number;
  /** Characters and items the built-ins of one evaluation may handle (`SCULPTOR_JSONATA_MAX_WORK`). */
  maxWork?: number;
}

/**
 * Guardrails on every evaluation (RELIABILITY G2): a runaway expression otherwise starves the
 * event loop, and no timer can stop it (RELIABILITY M1). `maxString` and `maxWork` bound what the
 * built-ins make and handle (`SCULPTOR_JSONATA_MAX_STRING`, `…_MAX_WORK`): 5 Mi
 * characters is the largest string a backend answer (≤ 5 MiB) can hold.
 */
export const JSONATA_LIMITS = {
  timeout: 250,
  stack: 200,
  sequence: 10_000,
  maxString: 5 * 1024 * 1024,
  maxWork: 32 * 1024 * 1024,
} as const;

/** Where jsonata runs: in the gateway's own thread, in worker threads, or in evaluator processes. */
export type JsonataIsolation = 'off' | 'worker' | 'process';

export interface ExpressionPoolOptions {
  /** Evaluators (RELIABILITY G6 default: 2). */
  size: number;
  /** Each evaluator's old-generation heap limit, MiB (G6 default: 128). */
  heapMb: number;
  /** The longest one evaluation may run, whatever the caller's signal says. */
  capMs: number;
  /** Evaluations that may wait for an evaluator; past it they fail at once (W1005). */
  maxQueue: number;
  /** jsonata's guardrails in the evaluators. Only tests change them (to show what the kill stops). */
  limits: JsonataLimits;
}

export const POOL_DEFAULTS: ExpressionPoolOptions = {
  size: 2,
  heapMb: 128,
  capMs: 4 * JSONATA_LIMITS.timeout,
  maxQueue: 256,
  limits: JSONATA_LIMITS,
};

/** What a tool's evaluations may breach before it is suspended (`engine/tool-suspension.ts`). */
export interface SuspensionSettings {
  /** Budget breaches within `windowMs` that suspend a tool; 0 = never suspend. */
  breaches: number;
  windowMs: number;
  /** How long a suspended tool answers `tool.suspended` before it is tried again. */
  suspendMs: number;
}

export const SUSPENSION_DEFAULTS: SuspensionSettings = { breaches: 5, windowMs: 60_000, suspendMs: 60_000 };

/** The JSONata switches of the process, as `processJsonataSettings` reads them. */
export interface JsonataSettings {
  /** `SCULPTOR_JSONATA_FAST_PATH`: `true` (default) or `false` (docs/PERFORMANCE.md). */
  fastPath: boolean;
  /** `SCULPTOR_JSONATA_ISOLATION`: `process` (default), `worker` or `off`. */
  isolation: JsonataIsolation;
  /** `SCULPTOR_JSONATA_WORKERS`, `…_WORKER_HEAP_MB`, `…_WORKER_TIMEOUT_MS`. */
  pool: ExpressionPoolOptions;
  /** The guardrails and bounds of every evaluation, in process and in the pool (`…_MAX_STRING`, `…_MAX_WORK`). */
  limits: JsonataLimits;
  /** `SCULPTOR_TOOL_SUSPEND_BREACHES`, `…_WINDOW_MS`, `…_MS`. */
  suspension: SuspensionSettings;
}

const ISOLATIONS: readonly JsonataIsolation[] = ['off', 'worker', 'process'];
export const DEFAULT_ISOLATION: JsonataIsolation = 'process';

function isolationOf(env: Env, problems: string[]): JsonataIsolation {
  const text = env.SCULPTOR_JSONATA_ISOLATION ?? '';
  if (text === '') return DEFAULT_ISOLATION;
  if ((ISOLATIONS as readonly string[]).includes(text)) return text as JsonataIsolation;
  problems.push(`SCULPTOR_JSONATA_ISOLATION must be 'process', 'worker' or 'off' (got '${text}').`);
  return DEFAULT_ISOLATION;
}

function fastPathOf(env: Env, problems: string[]): boolean {
  const text = env.SCULPTOR_JSONATA_FAST_PATH ?? '';
  if (text === '' || text === 'true') return true;
  if (text === 'false') return false;
  problems.push(`SCULPTOR_JSONATA_FAST_PATH must be true or false (got '${text}').`);
  return true;
}

function intOf(env: Env, problems: string[]) {
  return (name: string, fallback: number, min: number, max: number): number => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (Number.isInteger(value) && value >= min && value <= max) return value;
    problems.push(`${name} must be a whole number from ${min} to ${max} (got '${text}').`);
    return fallback;
  };
}

/**
 * The bounds of the built-ins: the longest string one may make, and the characters
 * and items all of one evaluation's may handle. The work may not be less than one string.
 */
function limitsOf(env: Env, problems: string[]): JsonataLimits {
  const int = intOf(env, problems);
  const maxString = int('SCULPTOR_JSONATA_MAX_STRING', JSONATA_LIMITS.maxString, 1024, 256 * 1024 * 1024);
  const maxWork = int(
    'SCULPTOR_JSONATA_MAX_WORK',
    Math.max(JSONATA_LIMITS.maxWork, maxString),
    maxString,
    2 ** 31,
  );
  return { ...JSONATA_LIMITS, maxString, maxWork };
}

function poolOf(env: Env, problems: string[], limits: JsonataLimits): ExpressionPoolOptions {
  const int = intOf(env, problems);
  return {
    ...POOL_DEFAULTS,
    limits,
    size: int('SCULPTOR_JSONATA_WORKERS', POOL_DEFAULTS.size, 1, 64),
    heapMb: int('SCULPTOR_JSONATA_WORKER_HEAP_MB', POOL_DEFAULTS.heapMb, 32, 16_384),
    capMs: int('SCULPTOR_JSONATA_WORKER_TIMEOUT_MS', POOL_DEFAULTS.capMs, 10, 600_000),
  };
}

function suspensionOf(env: Env, problems: string[]): SuspensionSettings {
  const int = intOf(env, problems);
  return {
    breaches: int('SCULPTOR_TOOL_SUSPEND_BREACHES', SUSPENSION_DEFAULTS.breaches, 0, 1_000_000),
    windowMs: int('SCULPTOR_TOOL_SUSPEND_WINDOW_MS', SUSPENSION_DEFAULTS.windowMs, 100, 86_400_000),
    suspendMs: int('SCULPTOR_TOOL_SUSPEND_MS', SUSPENSION_DEFAULTS.suspendMs, 100, 86_400_000),
  };
}

function orThrow<T>(value: T, problems: string[]): T {
  if (problems.length > 0) throw new Error(problems.join(' '));
  return value;
}

/** `SCULPTOR_JSONATA_ISOLATION`: `process` (default), `worker` or `off`; anything else is refused. */
export function jsonataIsolation(env: Env): JsonataIsolation {
  const problems: string[] = [];
  return orThrow(isolationOf(env, problems), problems);
}

/** The shared pool's size, heap and cap from the environment; throws naming each bad variable. */
export function poolOptionsFromEnv(env: Env): ExpressionPoolOptions {
  const problems: string[] = [];
  return orThrow(poolOf(env, problems, limitsOf(env, problems)), problems);
}

export function readJsonataSettings(env: Env): { settings: JsonataSettings; problems: string[] } {
  const problems: string[] = [];
  const limits = limitsOf(env, problems);
  const settings = {
    isolation: isolationOf(env, problems),
    fastPath: fastPathOf(env, problems),
    pool: poolOf(env, problems, limits),
    limits,
    suspension: suspensionOf(env, problems),
  };
  return { settings, problems };
}

/** Every bad `SCULPTOR_JSONATA_*` variable, one line each (readSettings reports them with the rest). */
export function jsonataSettingsProblems(env: Env): string[] {
  return readJsonataSettings(env).problems;
}

/*
 * The process's JSONata settings, read from its environment when this module loads (tests load
 * copies of the modules under different environments). A bad value is not thrown here, where it
 * would fail an import with a stack trace, but at first use; every entry point reports
 * `jsonataSettingsProblems` with the other settings before that.
 */
const atLoad = readJsonataSettings(process.env);

export function processJsonataSettings(): JsonataSettings {
  return orThrow(atLoad.settings, atLoad.problems);
}
