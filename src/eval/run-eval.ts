import { compileSculpts } from '../compile/compile-sculpts.ts';
import { compileWithPlaceholders } from '../testing/index.ts';
import { SculptLoadError, SculptorError } from '../errors/sculptor-error.ts';
import { compareReports } from './compare-reports.ts';
import { catalogReport } from './eval-report.ts';
import { type EvalReport, labelOf } from './format-report.ts';
import { describeEndpoint, type EndpointConfig, maskSecrets } from './endpoint-config.ts';
import { createModelEndpoint } from './model-endpoint.ts';
import { type Face, offerCatalog, type OfferedCatalog } from './offered-tools.ts';
import { checkScenarios, type RunOptions, runCatalog, type ScenarioRun } from './run-scenarios.ts';
import { findScenarioFiles, loadScenarioFile, type ScenarioFile } from './scenario-file.ts';
import { catalogSecrets, checkRunnable, createToolRunner, type RunMode } from './tool-runner.ts';

export interface EvalOptions extends Omit<RunOptions, 'onRun'> {
  /** Scenario files, or folders holding `*.eval.yaml`. */
  scenarios: string[];
  /** The sculpt folder under test, and optionally a second one to compare it with. */
  tools: string;
  against?: string;
  face: Face;
  run: RunMode;
  recordings?: string;
  endpoint: EndpointConfig;
  env?: Readonly<Record<string, string | undefined>>;
  onRun?: (catalog: string, done: number, total: number, run: ScenarioRun) => void;
}

/** Scenario files found and read; every problem of every file at once. */
export async function loadScenarios(paths: readonly string[]): Promise<ScenarioFile[]> {
  const files = await findScenarioFiles(paths);
  if (files.length === 0) {
    throw new SculptorError('eval.scenario', `No scenario file (*.eval.yaml) in ${paths.join(', ')}.`);
  }
  const loaded = await Promise.all(files.map((f) => loadScenarioFile(f)));
  const errors = loaded.flatMap((l) => l.errors);
  if (errors.length > 0) throw new SculptLoadError(errors);
  return loaded.map((l) => l.file!);
}

/**
 * A folder compiled as its catalog. Against recordings, an unset credential variable gets the
 * placeholder `sculptor test` sends (recordings never check it), rather than failing every call.
 */
async function catalogOf(
  dir: string,
  face: Face,
  run: RunMode,
  env: Readonly<Record<string, string | undefined>>,
  placeholders: Set<string>,
): Promise<OfferedCatalog> {
  const tools =
    run === 'recordings'
      ? await compileWithPlaceholders(dir, env, placeholders)
      : await compileSculpts(dir, env);
  return offerCatalog(labelOf(dir), tools, face);
}

/**
 * `sculptor eval`: everything that can be wrong with the setup is found before the model is
 * asked anything (scenarios, catalogs, recordings, configuration); then each catalog runs every
 * scenario; the report masks every secret Sculptor knows, whatever a model or backend echoed.
 */
export async function runEval(options: EvalOptions): Promise<EvalReport> {
  const env = options.env ?? process.env;
  const files = await loadScenarios(options.scenarios);
  const placeholders = new Set<string>();
  const catalogs = [await catalogOf(options.tools, options.face, options.run, env, placeholders)];
  if (options.against !== undefined) {
    catalogs.push(await catalogOf(options.against, options.face, options.run, env, placeholders));
  }
  if (catalogs.length === 2 && catalogs[0]!.label === catalogs[1]!.label) {
    catalogs[1]!.label = `${catalogs[1]!.label} (B)`;
  }
  checkScenarios(files, catalogs);
  const runnerOptions = {
    mode: options.run,
    ...(options.recordings ? { recordings: options.recordings } : {}),
    env,
  };
  checkRunnable(catalogs, runnerOptions);
  const secrets = () => catalogs.flatMap(catalogSecrets);
  const endpoint = createModelEndpoint(options.endpoint, secrets);
  const runner = createToolRunner(runnerOptions);
  const startedAt = new Date().toISOString();
  try {
    const reports = [];
    for (const catalog of catalogs) {
      const run = await runCatalog(endpoint, catalog, files, runner, {
        ...options,
        onRun: (done, total, r) => options.onRun?.(catalog.label, done, total, r),
      });
      reports.push(catalogReport(run));
    }
    const report: EvalReport = {
      format: 1,
      endpoint: describeEndpoint(options.endpoint),
      model: options.endpoint.model,
      temperature: options.temperature,
      repeat: options.repeat,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      run:
        options.run === 'recordings'
          ? options.recordings
            ? labelOf(options.recordings)
            : 'recordings'
          : options.run,
      maxCalls: options.maxCalls,
      ...(placeholders.size > 0 ? { placeholderCredentials: [...placeholders].sort() } : {}),
      startedAt,
      scenarioFiles: files.map((f) => labelOf(f.file)),
      catalogs: reports.map((r) => ({
        ...r,
        scenarios: r.scenarios.map((s) => ({ ...s, file: labelOf(s.file) })),
      })),
      ...(reports.length === 2 ? { comparison: compareReports(reports[0]!, reports[1]!) } : {}),
    };
    const known = [options.endpoint.apiKey ?? '', ...secrets()].filter((s) => s.length >= 4);
    return JSON.parse(maskSecrets(JSON.stringify(report), known)) as EvalReport;
  } finally {
    await runner.close();
  }
}
