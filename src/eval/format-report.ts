import path from 'node:path';
import type { Comparison, Difference, MetricName } from './compare-reports.ts';
import type { CatalogReport, Metrics, Rate } from './eval-report.ts';
import type { Mean } from './statistics.ts';

/** What `sculptor eval` writes: the setting, each catalog's scores, and their comparison. */
export interface EvalReport {
  /** The report format's version, for tools that read the JSON. */
  format: 1;
  endpoint: string;
  model: string;
  temperature: number;
  repeat: number;
  seed?: number;
  run: string;
  maxCalls: number;
  /** Credential variables that were unset: recordings were sent a placeholder instead. */
  placeholderCredentials?: string[];
  startedAt: string;
  scenarioFiles: string[];
  catalogs: CatalogReport[];
  comparison?: Comparison;
}

const LABELS: Record<MetricName, string> = {
  toolChoice: 'tool choice',
  argumentValidity: 'args valid',
  argumentCorrectness: 'args correct',
  callsPerTask: 'calls/task',
  promptTokens: 'prompt tok/task',
  completionTokens: 'compl. tok/task',
  latencyMs: 'model ms/task',
};

const pct = (r: number | null) => (r === null ? '–' : `${Math.round(r * 100)}%`);
const showRate = (r: Rate) => (r.rate === null ? '–' : `${r.hits}/${r.of} ${pct(r.rate)}`);
const number = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const showMean = (m: Mean | undefined, digits = 0) => (m ? number(m.mean, digits) : '–');

/** Columns of text, left-aligned, two spaces apart. */
export function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length)));
  return rows.map((r) =>
    r
      .map((c, i) => c + ' '.repeat(widths[i]! - [...c].length))
      .join('  ')
      .trimEnd(),
  );
}

function metricCells(m: Metrics): string[] {
  return [
    showRate(m.toolChoice),
    showRate(m.argumentValidity),
    showRate(m.argumentCorrectness),
    showMean(m.callsPerTask, 1),
    showMean(m.promptTokens),
    showMean(m.completionTokens),
    showMean(m.latencyMs),
  ];
}

const HEAD = ['scenario', ...Object.values(LABELS)];

/** The readable form: a table per catalog, failures with the model's raw calls, the comparison. */
export function formatReport(report: EvalReport, options: { failures?: number } = {}): string {
  const shown = options.failures ?? 3;
  const lines: string[] = [
    `sculptor eval: ${report.model} at ${report.endpoint}; ${report.repeat} run(s) per scenario at temperature ${report.temperature}${report.seed !== undefined ? `, seed ${report.seed}` : ''}; tools ${report.run === 'none' ? 'not run' : `run against ${report.run}`}.`,
  ];
  if (report.placeholderCredentials) {
    lines.push(
      `Unset credential variables (${report.placeholderCredentials.join(', ')}) were sent a placeholder: the recordings do not check them.`,
    );
  }
  for (const c of report.catalogs) {
    lines.push(
      '',
      `${c.label} (${c.face}): ${c.tools} tool(s) offered, ${number(c.offeredCharacters)} characters (≈ ${number(Math.ceil(c.offeredCharacters / 4))} tokens) with every request`,
    );
    const rows = [
      HEAD,
      ...c.scenarios.map((s) => [s.scenario, ...metricCells(s.metrics)]),
      ['all', ...metricCells(c.overall)],
    ];
    lines.push(...table(rows).map((l) => `  ${l}`));
    const latency = c.overall.requestLatencyMs;
    if (latency)
      lines.push(`  model latency per request: p50 ${number(latency.p50)} ms, p95 ${number(latency.p95)} ms`);
    const failing = c.scenarios.filter((s) => s.failures.length > 0);
    if (failing.length > 0)
      lines.push('', `  Failures (the model's calls as it made them; up to ${shown} per scenario):`);
    for (const s of failing) {
      for (const f of s.failures.slice(0, shown)) {
        lines.push(
          `  - ${s.scenario}, run ${f.repetition + 1}, turn ${f.turn}: ${JSON.stringify(f.request)}`,
        );
        for (const p of f.problems) lines.push(`      ${p}`);
        for (const call of f.calls) {
          const outcome = !call.outcome
            ? ''
            : 'ok' in call.outcome
              ? ' → ran'
              : ` → ${call.outcome.error.code}`;
          lines.push(
            `      called ${call.tool}(${call.rawArguments})${call.valid ? '' : ' [invalid]'}${outcome}`,
          );
        }
        if (f.calls.length === 0 && f.answer !== null)
          lines.push(`      answered: ${JSON.stringify(f.answer.slice(0, 300))}`);
        if (f.cutShort) lines.push('      (stopped at the call limit, --max-calls)');
      }
      if (s.failures.length > shown)
        lines.push(`      … and ${s.failures.length - shown} more (in the JSON report)`);
    }
  }
  if (report.comparison) lines.push('', ...formatComparison(report.comparison));
  return lines.join('\n');
}

function showValue(metric: MetricName, value: number | null): string {
  if (value === null) return '–';
  if (metric === 'toolChoice' || metric === 'argumentValidity' || metric === 'argumentCorrectness')
    return pct(value);
  return number(value, metric === 'callsPerTask' ? 1 : 0);
}

function showDelta(d: Difference): string {
  if (d.delta === null) return '–';
  const sign = d.delta > 0 ? '+' : d.delta < 0 ? '−' : '±';
  const size = Math.abs(d.delta);
  if (d.metric === 'toolChoice' || d.metric === 'argumentValidity' || d.metric === 'argumentCorrectness') {
    return `${sign}${Math.round(size * 100)} pts`;
  }
  return `${sign}${number(size, d.metric === 'callsPerTask' ? 1 : 0)}`;
}

export function formatComparison(c: Comparison): string[] {
  const lines = [
    `Compared: A = ${c.a}, B = ${c.b} (◆ a difference that matters: shares by Fisher's exact test at p < 0.05, means by 10 % and 2 standard errors)`,
  ];
  const rows = [['', 'metric', 'A', 'B', 'B − A', '', 'basis']];
  const add = (name: string, differences: Difference[]) => {
    differences.forEach((d, i) =>
      rows.push([
        i === 0 ? name : '',
        LABELS[d.metric],
        showValue(d.metric, d.a),
        showValue(d.metric, d.b),
        showDelta(d),
        d.meaningful ? `◆ ${d.better === 'a' ? 'A' : 'B'} better` : '',
        d.basis,
      ]),
    );
  };
  add('all', c.overall);
  for (const s of c.scenarios) {
    const flagged = s.differences.filter((d) => d.meaningful);
    if (flagged.length > 0) add(s.scenario, flagged);
  }
  lines.push(...table(rows).map((l) => `  ${l}`));
  const quiet = c.scenarios.filter((s) => !s.differences.some((d) => d.meaningful)).length;
  if (quiet > 0)
    lines.push(`  ${quiet} scenario(s) with no difference that matters (each metric in the JSON report).`);
  return lines;
}

/** A folder as reports name it: relative to where the command runs, when it is below it. */
export function labelOf(dir: string): string {
  const relative = path.relative(process.cwd(), path.resolve(dir));
  return relative && !relative.startsWith('..') ? relative : path.resolve(dir);
}
