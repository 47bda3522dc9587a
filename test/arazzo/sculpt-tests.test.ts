import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSculptTests } from '../../src/testing/index.ts';

/**
 * `sculptor test` on Arazzo workflows: a wrapping sculpt and a workflow served as written, run
 * against recordings (test/arazzo/fixtures/shop/recordings): the replay server answers every step,
 * those of a called workflow included, and a call no recording holds fails its case.
 */
const SHOP = path.resolve('test/arazzo/fixtures/shop');
const folders: string[] = [];
afterAll(() => Promise.all(folders.map((f) => rm(f, { recursive: true, force: true }))));

describe('sculpt tests for workflows, against recordings', { timeout: 60_000 }, () => {
  it("the shop's test files pass: criteria, goto, end, a body replacement and a nested workflow", async () => {
    const run = await runSculptTests([SHOP], { env: {} });
    expect(run.files.map((f) => [path.basename(f.file), f.errors.map((e) => e.format())])).toEqual([
      ['order_and_check.test.yaml', []],
      ['order_pet.test.yaml', []],
      ['reserve_pending_pet.test.yaml', []],
    ]);
    expect(run.totals).toEqual({ files: 3, cases: 5, passed: 5, failed: 0, fileErrors: 0 });
    // Each call answered by a recording, the nested workflow's steps included.
    const nested = run.files[0]!.cases[0]!;
    expect(nested.calls.map((c) => [`${c.method} ${c.path}`, c.matched])).toEqual([
      ['GET /pets?status=available', expect.stringMatching(/shop\.har#0$/)],
      ['POST /orders', expect.stringMatching(/shop\.har#3$/)],
      ['GET /pets/1', expect.stringMatching(/shop\.har#5$/)],
    ]);
  });

  it('a wrong expectation and an unrecorded call fail, each saying what differs', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sculptor-arazzo-tests-'));
    folders.push(dir);
    await cp(SHOP, dir, { recursive: true });
    const file = path.join(dir, 'order_pet.test.yaml');
    await writeFile(
      file,
      `tool: order_pet
recordings: [recordings]
cases:
  - name: wrong order number
    inputs: { how_many: 2 }
    expect: { outputs: { order: ord-42 } }
  - name: an order of three was never recorded
    inputs: { how_many: 3 }
    expect: { outputs: { order: ord-41 } }
`,
    );
    const run = await runSculptTests([file], { env: {} });
    const [wrong, unrecorded] = run.files[0]!.cases;
    expect(run.totals.failed).toBe(2);
    expect(wrong!.failures.map((f) => f.kind)).toEqual(['outputs']);
    expect(wrong!.actual).toEqual({ outputs: { order: 'ord-41' } });
    expect(unrecorded!.failures.map((f) => f.kind)).toContain('unrecorded');
    expect(unrecorded!.failures.find((f) => f.kind === 'unrecorded')!.message).toContain(
      'No recording answers POST /orders',
    );
  });
});
