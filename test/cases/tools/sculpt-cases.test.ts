import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODES, type ErrorCode } from '../../../src/errors/sculptor-error.ts';
import { loadRecordings, startReplayServer } from '../../../src/replay/index.ts';
import {
  checkCase,
  findSculptsFolder,
  findSculptTestFiles,
  formatSculptTestRun,
  loadSculptTestFile,
  replayEnv,
  runSculptTests,
  type SculptTestFile,
  type SculptTestRun,
} from '../../../src/testing/index.ts';
import { FACE_DRIVERS } from '../../faces/drivers/index.ts';
import { startTestGateway } from '../../support/start-test-gateway.ts';

// Every sculpt test file of the project (the samples in sculpts/ and the chain cases here),
// run through the engine by runSculptTests, and through every face over HTTP (FACE_DRIVERS),
// a gateway pointed at the same recordings by environment, as an operator would do it.

const ROOTS = ['sculpts', 'test/cases/tools'];
const files = await findSculptTestFiles(ROOTS);
const loaded = await Promise.all(files.map((f) => loadSculptTestFile(f)));
const tests = loaded.map((l) => l.test).filter((t): t is SculptTestFile => t !== undefined);
const rel = (file: string) => path.relative(process.cwd(), file);

it('finds every sculpt test file, and each one loads', () => {
  expect(files.map(rel)).toEqual(
    expect.arrayContaining([
      'sculpts/weather/lookup_weather_by_city.test.yaml',
      'test/cases/tools/shop/list_open_order_products.test.yaml',
    ]),
  );
  expect(loaded.flatMap((l) => l.errors.map((e) => e.format()))).toEqual([]);
  expect(tests.flatMap((t) => t.cases).length).toBeGreaterThanOrEqual(9);
});

describe('through the engine (runSculptTests)', () => {
  let run: SculptTestRun;
  beforeAll(async () => {
    run = await runSculptTests(ROOTS);
  });

  it('runs every file and every case', () => {
    expect(run.totals.files).toBe(files.length);
    expect(run.totals.cases).toBe(tests.flatMap((t) => t.cases).length);
    expect(run.files.flatMap((f) => f.errors.map((e) => e.format()))).toEqual([]);
  });

  for (const test of tests) {
    for (const [i, testCase] of test.cases.entries()) {
      it(`${rel(test.file)}: ${testCase.name}`, () => {
        const result = run.files.find((f) => f.file === test.file)?.cases[i];
        expect(result?.name).toBe(testCase.name);
        expect(result?.failures, formatSculptTestRun(run)).toEqual([]);
        expect(result?.passed).toBe(true);
      });
    }
  }
});

for (const driver of FACE_DRIVERS) {
  describe(`through the ${driver.name} face over HTTP (a gateway pointed at a replay server)`, () => {
    for (const test of tests) {
      describe(rel(test.file), () => {
        let replay: Awaited<ReturnType<typeof startReplayServer>>;
        let sculpts: string;
        let env: Record<string, string>;
        beforeAll(async () => {
          sculpts = test.sculpts ?? (await findSculptsFolder(test.file))!;
          replay = await startReplayServer(await loadRecordings(test.recordings));
          env = await replayEnv(sculpts, replay.url);
        });
        afterAll(async () => {
          await replay?.close();
        });

        for (const testCase of test.cases) {
          it(testCase.name, async ({ skip }) => {
            const call = {
              tool: test.tool,
              inputs: testCase.inputs,
              ...((testCase.version ?? test.version) !== undefined
                ? { version: (testCase.version ?? test.version)! }
                : {}),
            };
            // A face that cannot make this call (a2t-lite pins no versions) skips it, saying why.
            const unsupported = driver.unsupported?.(call);
            if (unsupported !== undefined) skip(unsupported);
            // A gateway per case: its step cache must not carry one case's answers into the next.
            const gateway = await startTestGateway(sculpts, env);
            try {
              const before = replay.requests.length;
              const { status, actual } = await driver.invoke(gateway.url, call);
              const calls = replay.requests.slice(before);
              expect(checkCase(testCase, actual, calls)).toEqual([]);
              const wanted = testCase.expect;
              if (status !== undefined) {
                expect(status).toBe('error' in wanted ? CODES[wanted.error as ErrorCode].status : 200);
              }
            } finally {
              await driver.close?.(gateway.url);
              await gateway.close();
            }
          });
        }
      });
    }
  });
}
