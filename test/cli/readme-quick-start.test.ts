/**
 * The newcomer check: every command block of README's quick-start sections, run as written,
 * offline, in a scratch copy of the checkout (test/support/shell-examples.ts: servers in the
 * background until the section ends, a free port for each, every wait bounded, every server
 * stopped). A command that exits non-zero, answers a Sculptor error, or answers without what a
 * `# → …` comment says fails the check, naming the command and its output.
 *
 * "Two commands" is the one quick-start section not run here: its `npm ci` would reinstall the
 * packages this very run uses, and its `npm test` is this suite; `npm start` is run by
 * test/server/npm-start.test.ts. The Claude Desktop block is run by
 * test/faces/mcp/readme-clients.test.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandsOf, REPO, runCommands, scratchCheckout, shellBlocks } from '../support/shell-examples.ts';

const README = readFileSync(path.join(REPO, 'README.md'), 'utf8');
const SECTIONS = ['Try it', 'Offline demo: the flagship weather tool', "The designer's loop"];

describe("README's quick start, as a newcomer types it", () => {
  let scratch: Awaited<ReturnType<typeof scratchCheckout>>;
  beforeAll(async () => {
    scratch = await scratchCheckout();
  });
  afterAll(async () => {
    await scratch?.remove();
  });

  it('names no file the checkout does not ship, and no raw node … .ts command', () => {
    for (const section of SECTIONS) {
      for (const block of shellBlocks(README, section)) {
        expect(block, section).not.toMatch(/(^|\s)node [^\n]*\.ts/);
        for (const file of block.matchAll(/--openapi (\S+)/g)) {
          expect(() => readFileSync(path.join(REPO, file[1]!)), file[1]).not.toThrow();
        }
      }
    }
  });

  for (const section of SECTIONS) {
    it(`"${section}" runs as written, offline`, { timeout: 300_000 }, async () => {
      const commands = shellBlocks(README, section).flatMap(commandsOf);
      expect(commands.length, section).toBeGreaterThan(0);
      const results = await runCommands(commands, scratch.dir);
      expect(results.map((r) => r.command)).toEqual(commands.map((c) => c.text));
    });
  }
});
