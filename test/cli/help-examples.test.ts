/**
 * Every example of every command's `--help` runs as written (test/support/shell-examples.ts:
 * in a scratch copy of the checkout, `sculptor` being the project's CLI, servers given a free
 * port and stopped once they serve, every wait bounded), offline: an example that names a file
 * the checkout does not ship, or calls a backend the recordings do not hold, fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/command-table.ts';
import { runCommands, scratchCheckout } from '../support/shell-examples.ts';
import { startTestModel, type TestModel } from '../support/word-match-model.ts';

describe('the --help examples', () => {
  let scratch: Awaited<ReturnType<typeof scratchCheckout>>;
  // `sculptor eval`'s examples ask the test model at the port they name (no model runs here).
  let model: TestModel;
  beforeAll(async () => {
    scratch = await scratchCheckout();
    model = await startTestModel({ port: 11435 });
  });
  afterAll(async () => {
    await model?.close();
    await scratch?.remove();
  });

  for (const command of COMMANDS) {
    it(`sculptor ${command.name}: each example runs`, { timeout: 300_000 }, async () => {
      expect(command.examples.length).toBeGreaterThan(0);
      for (const example of command.examples) {
        expect(example).toMatch(new RegExp(`(^|\\s)sculptor ${command.name}\\b`));
        await runCommands([{ text: example, expect: [] }], scratch.dir);
      }
    });
  }
});
