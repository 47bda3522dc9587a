import { writeFile } from 'node:fs/promises';
import { formatFinding } from '../designer/findings.ts';
import { SculptLoadError, SculptorError } from '../errors/sculptor-error.ts';
import { endpointFromEnv } from '../eval/endpoint-config.ts';
import type { Face } from '../eval/offered-tools.ts';
import { type EvalReport, formatReport } from '../eval/format-report.ts';
import { runEval } from '../eval/run-eval.ts';
import type { RunMode } from '../eval/tool-runner.ts';
import { commandNamed, type ParsedArgs, UsageError } from './command-table.ts';
import { sculptsDir } from './designer-commands.ts';

/** The option's value, else the default the command table gives (help and ATIP show the same). */
function option<T>(values: ParsedArgs['values'], name: string): T {
  const given = values[name];
  if (given !== undefined) return given as T;
  return commandNamed('eval')!.options.find((o) => o.name === name)!.default as T;
}

function share(name: string, text: string, max: number): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > max) {
    throw new UsageError('eval', `--${name} must be a number from 0 to ${max} (got '${text}').`);
  }
  return n;
}

/**
 * `sculptor eval`: the eval module (src/eval) runs the scenarios; this prints the table (or the
 * JSON) and turns what stopped the run into an exit status with the reason on stderr.
 */
export async function evalCommand({ values, positionals }: ParsedArgs): Promise<number> {
  const temperature = share('temperature', option<string>(values, 'temperature'), 2);
  const failUnder =
    typeof values['fail-under'] === 'string' ? share('fail-under', values['fail-under'], 1) : undefined;
  const repeat = option<number>(values, 'repeat');
  if (repeat < 1) throw new UsageError('eval', '--repeat must be at least 1.');
  const maxCalls = option<number>(values, 'max-calls');
  if (maxCalls < 1) throw new UsageError('eval', '--max-calls must be at least 1.');
  const json = typeof values.json === 'string' ? values.json : undefined;
  let report: EvalReport;
  try {
    const endpoint = endpointFromEnv(process.env, {
      ...(typeof values.url === 'string' ? { url: values.url } : {}),
      ...(typeof values.model === 'string' ? { model: values.model } : {}),
      timeoutMs: Math.max(1, option<number>(values, 'timeout')) * 1000,
      retries: option<number>(values, 'retries'),
    });
    report = await runEval({
      scenarios: positionals,
      tools: typeof values.tools === 'string' ? values.tools : sculptsDir(undefined),
      ...(typeof values.against === 'string' ? { against: values.against } : {}),
      face: option<Face>(values, 'face'),
      run: option<RunMode>(values, 'run'),
      ...(typeof values.recordings === 'string' ? { recordings: values.recordings } : {}),
      endpoint,
      repeat,
      temperature,
      ...(typeof values.seed === 'number' ? { seed: values.seed } : {}),
      maxCalls,
      onRun: (catalog, done, total, run) =>
        process.stderr.write(`  ${catalog}: ${done}/${total} ${run.scenario} (run ${run.repetition + 1})\n`),
    });
  } catch (err) {
    if (err instanceof SculptLoadError) {
      for (const e of err.errors) console.error(formatFinding({ severity: 'error', error: e }));
      console.error(`\n${err.errors.length} error(s); no model was asked anything.`);
      return 1;
    }
    if (err instanceof SculptorError) {
      console.error(`sculptor eval: ${err.code}: ${err.message}`);
      return 1;
    }
    throw err;
  }
  const text = `${JSON.stringify(report, null, 2)}\n`;
  if (json === '-') process.stdout.write(text);
  else {
    console.log(formatReport(report));
    if (json) {
      await writeFile(json, text);
      console.log(`\nJSON report: ${json}`);
    }
  }
  if (failUnder !== undefined) {
    const under = report.catalogs.filter((c) => (c.overall.argumentCorrectness.rate ?? 0) < failUnder);
    for (const c of under) {
      console.error(
        `sculptor eval: ${c.label} got ${Math.round((c.overall.argumentCorrectness.rate ?? 0) * 100)}% of turns right, under --fail-under ${failUnder}.`,
      );
    }
    if (under.length > 0) return 1;
  }
  return 0;
}
