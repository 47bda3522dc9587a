import { describe, expect, it } from 'vitest';
import { findSculptTestFiles, runSculptTests } from '../../src/testing/index.ts';

/** The sculpts the project ships come with their tests: every one of them passes. */
describe('the shipped sculpts pass their own test files', () => {
  it('runs every *.test.yaml under sculpts/', async () => {
    const files = await findSculptTestFiles(['sculpts']);
    const tools = files.map((f) => f.split('/').pop());
    expect(tools).toEqual(
      expect.arrayContaining([
        'find_pets_by_status.test.yaml',
        'describe_pet.test.yaml',
        'count_pets_in_stock.test.yaml',
        'list_available_pets.test.yaml',
        'lookup_weather_by_city.test.yaml',
      ]),
    );
    const run = await runSculptTests(files);
    const failures = run.files.flatMap((f) => [
      ...f.errors.map((e) => `${f.file}: ${String(e)}`),
      ...f.cases.filter((c) => !c.passed).map((c) => `${f.file}: ${c.name}: ${JSON.stringify(c.failures)}`),
    ]);
    expect(failures).toEqual([]);
    expect(run.passed).toBe(true);
    expect(run.files.reduce((n, f) => n + f.cases.length, 0)).toBeGreaterThanOrEqual(18);
  });
});
