/**
 * The peers' tables (peers.ts): every server's rounds, the tools/list sizes, the answer-size rows
 * and a verdict per target, each ratio the median of the per-round ratios.
 */
import { fixed, markdownTable, pairedRatio, perRoundRatios, type Round } from './rounds.ts';
import type { PeersOptions, Row } from './peers.ts';
import { median } from './stats.ts';

/** Failures in all rounds, with the statuses outside 2xx (`175 (503: 175)`). */
function failed(rounds: Round[]): string {
  const total = rounds.reduce((n, x) => n + x.non2xx + x.errors + x.timeouts, 0);
  const statuses = new Map<string, number>();
  for (const r of rounds) {
    for (const [status, n] of Object.entries(r.failedStatuses ?? {}))
      statuses.set(status, (statuses.get(status) ?? 0) + n);
  }
  const timeouts = rounds.reduce((n, x) => n + x.timeouts, 0);
  const parts = [...statuses].map(([status, n]) => `${status}: ${n}`);
  if (timeouts > 0) parts.push(`timeouts: ${timeouts}`);
  return parts.length > 0 ? `${total} (${parts.join(', ')})` : String(total);
}

export function report(data: {
  rows: Map<string, Row>;
  listSizes: string[][];
  notes: string[];
  options: PeersOptions;
  /** The forecast repeats of the answer-size rows. */
  sizeRepeats: number[];
  forecastBytes: number;
  wallSec: number;
}): string {
  const { rows } = data;
  const row = (key: string) => rows.get(key);
  const rps = (r: Round) => r.rps;
  const cpu = (r: Round) => r.cpuUsPerRequest;
  const table = [
    ['Server', 'req/s', 'CPU µs/call', 'p50 ms', 'p99 ms', 'req/s by round', 'other load', 'failed'],
  ];
  for (const r of rows.values()) {
    table.push([
      r.scenario.label,
      fixed(median(r.rounds.map(rps)), 0),
      fixed(median(r.rounds.flatMap((x) => (x.cpuUsPerRequest === undefined ? [] : [x.cpuUsPerRequest]))), 0),
      fixed(median(r.rounds.map((x) => x.p50Ms)), 2),
      fixed(median(r.rounds.map((x) => x.p99Ms)), 2),
      r.rounds.map((x) => fixed(x.rps, 0)).join(' / '),
      fixed(Math.max(...r.rounds.map((x) => x.foreignCores ?? 0)), 2) +
        (r.rounds.some((x) => x.retries > 0)
          ? ` (${r.rounds.reduce((n, x) => n + x.retries, 0)} rerun)`
          : ''),
      failed(r.rounds),
    ]);
  }
  const targets = [['Target', 'Measured (req/s ratio; CPU per call ratio; per round)', 'Verdict']];
  const compare = (a: string, b: string, what: string, min: number | undefined) => {
    const x = row(a);
    const y = row(b);
    if (!x || !y) {
      targets.push([what, 'not measured (see the notes)', '—']);
      return;
    }
    const ratio = pairedRatio(x.rounds, y.rounds, rps);
    const perRound = perRoundRatios(x.rounds, y.rounds, rps)
      .map((v) => fixed(v, 2))
      .join(' / ');
    targets.push([
      what,
      `${fixed(ratio, 2)}× (CPU ${fixed(pairedRatio(x.rounds, y.rounds, cpu), 2)}×; ${perRound})`,
      min === undefined ? '—' : Number.isFinite(ratio) && ratio >= min ? 'met' : 'NOT met',
    ]);
  };
  for (const era of ['2026-07-28', '2025-11-25'] as const) {
    compare(
      `sculptor_${era}`,
      `sdk_${era}`,
      `MCP ${era}: Sculptor ≥ 1.0× hand-written on the official SDK (lean)`,
      1,
    );
    compare(
      `sculptor_${era}`,
      `sdk_idiomatic_${era}`,
      `MCP ${era}: Sculptor against hand-written on the official SDK with registerTool + zod (no target)`,
      undefined,
    );
  }
  for (const era of ['2026-07-28', '2025-11-25'] as const) {
    compare(`sculptor_${era}`, `fastmcp_${era}`, `MCP ${era}: Sculptor ≥ 5× FastMCP from_openapi`, 5);
  }
  compare(
    'sculptor_2025-11-25',
    'generated',
    'MCP 2025-11-25: Sculptor against openapi-mcp-generator (no target)',
    undefined,
  );
  compare('a2t_sculptor', 'a2t_duty', 'A2T: Sculptor ≥ 1.0× the duty-equal hand-written handler', 1);
  compare(
    'a2t_sculptor',
    'a2t_hand',
    `A2T: Sculptor ≥ 0.80× the lean hand-written handler (${data.options.connections} connections)`,
    0.8,
  );
  const sizes = [['Answer size', 'Sculptor req/s', 'lean handler req/s', 'ratio (per round)']];
  const sizeRow = (label: string, s: string, h: string) => {
    const x = row(s);
    const y = row(h);
    if (!x || !y) return;
    sizes.push([
      label,
      fixed(median(x.rounds.map(rps)), 0),
      fixed(median(y.rounds.map(rps)), 0),
      `${fixed(pairedRatio(x.rounds, y.rounds, rps), 2)}× (${perRoundRatios(x.rounds, y.rounds, rps)
        .map((v) => fixed(v, 2))
        .join(' / ')})`,
    ]);
  };
  sizeRow(`${fixed(data.forecastBytes / 1000, 1)} KB (recorded)`, 'a2t_sculptor', 'a2t_hand');
  for (const repeat of data.sizeRepeats) {
    const label =
      rows.get(`size${repeat}_sculptor`)?.scenario.label.replace(/^.*forecast /, '') ?? `×${repeat}`;
    sizeRow(`${label} (periods ×${repeat})`, `size${repeat}_sculptor`, `size${repeat}_hand`);
  }
  const largest = data.sizeRepeats.at(-1)!;
  compare(
    `size${largest}_sculptor`,
    `size${largest}_hand`,
    'Largest answer: Sculptor ≥ 0.91× the lean handler (≤ 1.1× its cost per byte)',
    1 / 1.1,
  );
  return [
    '',
    `Peers and comparators: ${data.options.rounds} round(s) × ${data.options.durationSec} s per server after a warm-up of ${data.options.warmupSec} s, longer (≤ ${data.options.warmupMaxSec} s) while its rate still rose, ` +
      `${data.options.connections} connections, interleaved; ratios are medians of per-round ratios.`,
    '',
    markdownTable(table),
    '',
    markdownTable(data.listSizes),
    '',
    markdownTable(sizes),
    '',
    markdownTable(targets),
    ...(data.notes.length > 0 ? ['', ...data.notes.map((n) => `Note: ${n}`)] : []),
    '',
    `Peers wall time: ${fixed(data.wallSec, 0)} s.`,
  ].join('\n');
}
