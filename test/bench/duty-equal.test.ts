/**
 * The bench's duty-equal A2T comparator (bench/duty-equal.ts) is only a fair comparison if it
 * really gives the guarantees it claims: these check each one over real loopback HTTP, against a
 * backend whose answers the test scripts. No timing is asserted (speed lives in `npm run bench`).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDutyEqualApp } from '../../bench/duty-equal.ts';
import { FORECAST_BODY, HAND_WRITTEN_PATH } from '../../bench/invocations.ts';

const FORECAST = readFileSync(new URL('../../bench/fixtures/nws-forecast-okx.json', import.meta.url));

/** What the backend answers next, in order; the forecast once the script is used up. */
let script: number[] = [];
let backendCalls = 0;
let backend: Server;
let gateway: ReturnType<typeof serve>;
let close: () => Promise<void>;
let url: string;

const listen = (server: Server | ReturnType<typeof serve>) =>
  new Promise<number>((resolve) => {
    if (server.listening) resolve((server.address() as AddressInfo).port);
    else server.once('listening', () => resolve((server.address() as AddressInfo).port));
  });

beforeAll(async () => {
  backend = createServer((req, res) => {
    backendCalls++;
    const status = script.shift() ?? 200;
    if (status === 200) {
      res.writeHead(200, { 'content-type': 'application/geo+json', 'content-length': FORECAST.length });
      res.end(FORECAST);
    } else {
      res.writeHead(status, { 'content-type': 'application/problem+json' });
      res.end('{"status":' + status + '}');
    }
  }).listen(0, '127.0.0.1');
  const backendPort = await listen(backend);
  const made = createDutyEqualApp(`http://127.0.0.1:${backendPort}`);
  close = made.close;
  gateway = serve({ fetch: made.app.fetch, port: 0, hostname: '127.0.0.1' });
  url = `http://127.0.0.1:${await listen(gateway)}`;
});

afterAll(async () => {
  await new Promise((resolve) => gateway?.close(resolve));
  await close?.();
  await new Promise((resolve) => backend?.close(resolve));
});

beforeEach(() => {
  script = [];
  backendCalls = 0;
});

const invoke = async (body: string = FORECAST_BODY, headers: Record<string, string> = {}) => {
  const res = await fetch(`${url}${HAND_WRITTEN_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('the duty-equal comparator', () => {
  it('answers the forecast as A2T and counts it in its metrics', async () => {
    const { status, body } = await invoke();
    expect(status).toBe(200);
    expect(body).toEqual({
      output_parameters: [
        { name: 'temperature', value: 22 },
        { name: 'short_forecast', value: 'Sunny' },
      ],
    });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/forecast_requests_total\{status="200"\} [1-9]/);
    expect(metrics).toMatch(/forecast_backend_calls_total\{outcome="200"\} [1-9]/);
  });

  it('validates the body with its schemas and caps it', async () => {
    const wrong = JSON.stringify({
      name: 'bench_forecast',
      input_parameters: [
        { name: 'office', value: 'XXX' },
        { name: 'x', value: 33 },
        { name: 'y', value: 35 },
      ],
    });
    const refused = await invoke(wrong);
    expect(refused.status).toBe(400);
    expect(String(refused.body.detail)).toContain('office');
    expect((await invoke('x'.repeat(70_000))).status).toBe(413);
    expect(backendCalls).toBe(0);
  });

  it('retries a 503 once, and only once', async () => {
    script = [503];
    expect((await invoke()).status).toBe(200);
    expect(backendCalls).toBe(2);
    backendCalls = 0;
    script = [503, 503];
    expect((await invoke()).status).toBe(502);
    expect(backendCalls).toBe(2);
  });

  it('opens its breaker after 5 consecutive failures: the next call never reaches the backend', async () => {
    expect((await invoke()).status).toBe(200); // a success resets the count of consecutive failures
    backendCalls = 0;
    script = [500, 500, 500, 500, 500];
    for (let i = 0; i < 5; i++) expect((await invoke()).status).toBe(502);
    expect(backendCalls).toBe(5);
    const refused = await invoke();
    expect(refused.status).toBe(503);
    expect(backendCalls).toBe(5);
  });
});
