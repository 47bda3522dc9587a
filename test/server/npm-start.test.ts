import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { startGatewayProcess } from './gateway-process.ts';
import { reportFigures } from '../support/report-figures.ts';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** A Petstore v3 stand-in whose inventory answers after `delayMs`, counting the calls it holds. */
async function slowInventory(delayMs: number): Promise<{ url: string; pending: () => number }> {
  let pending = 0;
  const server: Server = createServer((req, res) => {
    pending++;
    setTimeout(() => {
      pending--;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ available: 7, sold: 3 }));
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pending: () => pending };
}

async function until(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

// Under `sh -c`, SIGTERM to npm would end npm and sh and leave the gateway orphaned, serving,
// never draining: the start script `exec`s node.
describe('npm start', () => {
  it('passes SIGTERM on: the gateway drains its in-flight call (200) and the whole tree exits', async () => {
    const backend = await slowInventory(1500);
    const gateway = await startGatewayProcess({
      sculpts: 'sculpts',
      command: 'npm',
      args: ['start', '--silent'],
      env: {
        HOME: process.env.HOME ?? '/tmp',
        PETSTORE3_BASE_URL: `${backend.url}/api/v3`,
        SCULPTOR_LOG_LEVEL: 'info',
      },
      startTimeoutMs: 30_000,
    });
    cleanup.push(() => gateway.kill());
    const name = 'count_pets_in_stock';
    const call = fetch(`${gateway.url}/tools/${toolIdFor(name)}:invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, input_parameters: [] }),
    });
    await until('the call at the backend', () => backend.pending() === 1);

    const sigterm = performance.now();
    gateway.child.kill('SIGTERM'); // npm's own pid
    await until('the draining log line', () => gateway.logs().some((l) => l.event === 'draining'));
    const answer = await call;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      output_parameters: [
        { name: 'available', value: 7 },
        { name: 'pending', value: 0 },
        { name: 'sold', value: 3 },
      ],
    });
    const exited = await Promise.race([
      gateway.exited,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10_000)),
    ]);
    expect(exited, 'npm start did not exit within 10 s of SIGTERM').toBeDefined();
    expect(gateway.logs().find((l) => l.event === 'drained')).toMatchObject({ aborted: 0 });
    expect(gateway.logs().at(-1)).toMatchObject({ event: 'stopped' });
    // Nothing is left listening: the gateway exited with npm, not orphaned.
    await expect(fetch(`${gateway.url}/livez`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
    reportFigures(
      `npm start: drained and exited ${Math.round(performance.now() - sigterm)} ms after SIGTERM`,
    );
  }, 45_000);
});
