/**
 * The corpus (issue #14): `init` + `check` on the operations of every
 * description under ../shared/specs, Stripe's published one and a generated
 * Stripe-like one (test/designer/run-corpus.ts), in a child process so its
 * time and peak memory are its own; the figures and every failure with its
 * reason are printed. The clean count is pinned: it may only go up (raise the
 * pin when it does).
 *
 * CI runs a sample — at most SAMPLE operations per document, spread over it:
 * 676 operations, ≈ 12 s of CPU (1 min 43 s of wall time with the two cores
 * shared by a load average of 20) — to stay within a minute or two; the full
 * corpus (3,802 operations, ≈ 27 s of CPU, 2 min 57 s of wall time on that
 * machine) runs with SCULPTOR_CORPUS_FULL=1.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import type { CorpusReport } from './run-corpus.ts';

const SAMPLE = 25;
const full = process.env.SCULPTOR_CORPUS_FULL === '1';
/** Operations that scaffold and check clean: raise when more do, never lower. */
const PINNED = full ? 3_795 : 669;

it(
  `init + check on ${full ? 'every operation' : `up to ${SAMPLE} operations`} of every description in the corpus`,
  { timeout: full ? 900_000 : 300_000 },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'corpus-report-'));
    try {
      const out = join(dir, 'report.json');
      const args = [join(import.meta.dirname, 'run-corpus.ts'), '--json', out];
      if (!full) args.push('--sample', String(SAMPLE));
      await promisify(execFile)(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
      const report = JSON.parse(await readFile(out, 'utf8')) as CorpusReport;
      console.log(
        [
          `corpus (${full ? 'full' : `sample of ≤ ${SAMPLE} per document`}): ${report.documents} descriptions, ` +
            `${report.operations} operations, ${report.scaffolded} scaffolded, ${report.clean} clean (pinned ${PINNED}); ` +
            `${report.seconds.toFixed(1)} s, peak RSS ${report.peakRssMb.toFixed(0)} MB`,
          ...report.perDocument
            .filter((d) => d.operations >= 100 || d.seconds >= 3)
            .map((d) => `  ${d.document}: ${d.clean}/${d.operations} clean, ${d.seconds.toFixed(1)} s`),
          `failures (${report.failures.length}):`,
          ...report.failures.map((f) => `  ${f}`),
        ].join('\n'),
      );
      // Stripe's description and the generated one must be there, and load.
      const large = report.perDocument.filter((d) => /stripe/.test(d.document));
      expect(large).toHaveLength(2);
      for (const d of large) expect(d.clean).toBe(d.operations);
      expect(report.clean).toBeGreaterThanOrEqual(PINNED);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
