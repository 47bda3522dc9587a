/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned) against a real
 * gateway serving the conformance sculpts (./conformance: tools named as the scenarios call them,
 * over a replay server of recorded answers), for the 2026-07-28 and 2025-11-25 requirements.
 * What cannot apply to a gateway of sculpted tools (prompts, resources, sampling, elicitation,
 * image/audio content, MCP logging) is in ./conformance-baselines, one reason per entry; the
 * suite fails on any other failure, and on a baselined entry that starts passing.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecordings, startReplayServer } from '../../../src/replay/index.ts';
import { replayEnv } from '../../../src/testing/index.ts';
import { startTestGateway } from '../../support/start-test-gateway.ts';

const DIR = 'test/faces/mcp/conformance';
const CLI = path.resolve('node_modules/.bin/conformance');

let replay: Awaited<ReturnType<typeof startReplayServer>>;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let results: string;
let watch: NodeJS.Timeout;

beforeAll(async () => {
  replay = await startReplayServer(await loadRecordings([`${DIR}/recordings/fixtures.yaml`]));
  gateway = await startTestGateway(DIR, await replayEnv(DIR, replay.url));
  results = await mkdtemp(path.join(tmpdir(), 'sculptor-conformance-'));
  // test_trigger_tool_change's backend call stands for a deploy: the gateway reloads, and the
  // reload must reach the suite's subscriptions/listen stream as list_changed.
  let seen = 0;
  watch = setInterval(() => {
    const calls = replay.requests.filter((r) => r.path === '/tool-change').length;
    if (calls > seen) {
      seen = calls;
      void gateway.reload();
    }
  }, 10);
});
afterAll(async () => {
  clearInterval(watch);
  await gateway?.close();
  await replay?.close();
  await rm(results, { recursive: true, force: true });
});

/** Runs the suite's CLI under the Node running the tests (24), bounded; resolves to its exit and output. */
function conformance(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLI, args, {
      env: { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('the MCP conformance suite', () => {
  for (const revision of ['2026-07-28', '2025-11-25']) {
    it(
      `passes --requirements ${revision}, failing only where its baseline says why`,
      { timeout: 60_000 },
      async () => {
        const { code, output } = await conformance([
          'server',
          '--url',
          `${gateway.url}/mcp`,
          '--requirements',
          revision,
          '--expected-failures',
          `test/faces/mcp/conformance-baselines/${revision}.yml`,
          '--timeout',
          '10000',
          '-o',
          path.join(results, revision),
        ]);
        expect(output, output).toContain('Baseline check passed');
        expect(code, output).toBe(0);
        // The tools scenarios a gateway of sculpted tools can serve pass outright.
        for (const scenario of [
          'tools-list',
          'tools-call-simple-text',
          'tools-call-error',
          'tools-call-with-progress',
        ]) {
          expect(output).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
        }
        expect(output).toMatch(/✓ dns-rebinding-protection: \d+ passed, 0 failed/);
        if (revision === '2026-07-28')
          expect(output).toMatch(/✓ http-header-validation: \d+ passed, 0 failed/);
      },
    );
  }
});
