import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProcess, REPO, startCli } from '../cli/run-cli.ts';

/**
 * Every package a replica loads stays in its memory for good. Those only some deployments use
 * are loaded on first use: a gateway serving the samples without Redis, identity providers, OAuth
 * backends or an MCP request must not carry them.
 */
const LOADED_ON_FIRST_USE = ['ioredis', 'jose', 'oauth4webapi', '@modelcontextprotocol/server'];

/**
 * A module hook that appends each URL Node loads to the file named by LOADED_FILE. It takes the
 * variable out of the environment: the gateway's own child processes (JSONata evaluators) inherit
 * NODE_OPTIONS, and must neither record into the gateway's list nor write after the test ends.
 */
const RECORDER = `import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
const file = process.env.LOADED_FILE;
delete process.env.LOADED_FILE;
if (file) {
  registerHooks({
    load(url, context, next) {
      appendFileSync(file, url + '\\n');
      return next(url, context);
    },
  });
}
`;

let dir: string | undefined;
let cli: CliProcess | undefined;
afterEach(async () => {
  await cli?.stop();
  if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  cli = dir = undefined;
});

describe('the packages a serving gateway loads', { timeout: 60_000 }, () => {
  it('leaves out the Redis client, JOSE, the OAuth client and the MCP SDK until something uses them', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sculptor-loaded-'));
    const recorder = path.join(dir, 'record-loads.mjs');
    const loaded = path.join(dir, 'loaded.txt');
    await writeFile(recorder, RECORDER);
    cli = startCli(['serve', path.join(REPO, 'sculpts')], {
      env: {
        PORT: '0',
        HOST: '127.0.0.1',
        LOADED_FILE: loaded,
        NODE_OPTIONS: `--import=${pathToFileURL(recorder).href}`,
      },
    });
    const serving = await cli.waitFor(/\{[^\n]*"event":"serving"[^\n]*\}/, { timeoutMs: 40_000 });
    const base = (JSON.parse(serving[0]) as { url: string }).url;
    // A listing: the A2T face has run.
    expect((await fetch(`${base}/tools`)).status).toBe(200);
    const urls = (await readFile(loaded, 'utf8')).split('\n');
    const packages = new Set(urls.map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1]));
    // The recorder saw the gateway's own packages: an empty record would prove nothing.
    expect(packages).toContain('hono');
    expect(packages).toContain('undici');
    expect(LOADED_ON_FIRST_USE.filter((name) => packages.has(name))).toEqual([]);
  });
});
