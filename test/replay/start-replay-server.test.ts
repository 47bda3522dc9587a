import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadRecordings, type RecordedExchange } from '../../src/replay/load-recordings.ts';
import { type ReplayServer, startReplayServer } from '../../src/replay/start-replay-server.ts';
import { BODIES, CASSETTES, FIXTURES } from './recordings-paths.ts';

const NEW_YORK_REORDERED = '/v1/search?name=New+York&count=5&format=json&language=en';

let cassettes: RecordedExchange[];
const servers: ReplayServer[] = [];

async function start(exchanges: RecordedExchange[], mode?: 'repeat' | 'once'): Promise<ReplayServer> {
  const server = await startReplayServer(exchanges, {
    port: 0,
    host: '127.0.0.1',
    ...(mode ? { mode } : {}),
  });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  cassettes = await loadRecordings([CASSETTES]);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Keeps the expected miss lines out of the test output, and lets tests read them. */
function captureStderr(): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  return lines;
}

describe('startReplayServer with the shared cassettes', () => {
  let server: ReplayServer;
  beforeAll(async () => {
    server = await startReplayServer(cassettes, { port: 0 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('listens on an ephemeral loopback port', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url).not.toMatch(/:0$/);
  });

  it('answers a geocoding search whatever the query order, with the first recording byte-for-byte', async () => {
    const res = await fetch(server.url + NEW_YORK_REORDERED);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const expected = await readFile(
      join(BODIES, 'open-meteo-geocoding/geocode_nyc__1_200_v1_search_New_York.json'),
    );
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(expected)).toBe(true);
    expect(res.headers.get('content-length')).toBe(String(expected.length));
    expect(JSON.parse(body.toString('utf8')).results[0].name).toBe('New York');
  });

  it('treats %20 and + alike and decodes %2C in the query', async () => {
    const res = await fetch(
      `${server.url}/v1/search?format=json&language=en&count=5&name=New%20York%2C%20NY`,
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"generationtime_ms":1.2571812}');
  });

  it('answers NWS points with the recorded geo+json and end-to-end headers only', async () => {
    const res = await fetch(`${server.url}/points/40.7128,-74.006`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/geo+json');
    expect(res.headers.get('x-correlation-id')).not.toBeNull();
    expect(res.headers.get('cache-control')).toMatch(/max-age/);
    const body = (await res.json()) as { properties: { gridId: string; gridX: number; gridY: number } };
    expect(body.properties).toMatchObject({ gridId: 'OKX', gridX: 33, gridY: 35 });
  });

  it('replays the recorded NWS 404 as it was, which is not a miss', async () => {
    const res = await fetch(`${server.url}/points/51.5074,-0.1278`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const expected = await readFile(
      join(BODIES, 'nws/point_international_error__0_404_points_51.5074,-0.1278.json'),
    );
    expect(Buffer.from(await res.arrayBuffer()).equals(expected)).toBe(true);
  });

  it('answers the gridpoint forecast', async () => {
    const res = await fetch(`${server.url}/gridpoints/OKX/33,35/forecast`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/geo+json');
    const body = (await res.json()) as { properties: { periods: unknown[] } };
    expect(body.properties.periods.length).toBeGreaterThan(0);
  });
});

describe('startReplayServer: misses, the request log and hits', () => {
  it('answers a miss with a replay.no_match problem naming the request, and logs it on stderr', async () => {
    const stderr = captureStderr();
    const server = await start(cassettes);
    const res = await fetch(`${server.url}/points/0.1,0.2?units=si`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const problem = (await res.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({
      type: 'about:blank',
      title: 'No recording matches',
      status: 404,
      detail: 'No recorded exchange for GET /points/0.1,0.2?units=si',
      code: 'replay.no_match',
    });
    // Same method, closest path first; the recording recorded twice is one hint.
    expect(problem['candidates']).toEqual([
      {
        method: 'GET',
        url: 'https://api.weather.gov/points/0.0,0.0',
        source: `${CASSETTES}/nws/error_invalid_coords.yaml#0`,
      },
      {
        method: 'GET',
        url: 'https://api.weather.gov/points/40.7128,-74.006',
        source: `${CASSETTES}/nws/forecast_nyc.yaml#0`,
      },
      {
        method: 'GET',
        url: 'https://api.weather.gov/points/51.5074,-0.1278',
        source: `${CASSETTES}/nws/point_international_error.yaml#0`,
      },
    ]);
    expect(stderr.join('')).toContain('no recording matches GET /points/0.1,0.2?units=si');
  });

  it('offers recordings of the same path first when only the query or method differs', async () => {
    captureStderr();
    const server = await start(cassettes);
    const res = await fetch(`${server.url}/v1/search?name=Paris`, { method: 'POST', body: 'x' });
    const problem = (await res.json()) as {
      detail: string;
      candidates: Array<{ method: string; url: string }>;
    };
    expect(problem.detail).toBe('No recorded exchange for POST /v1/search?name=Paris');
    expect(problem.candidates).toHaveLength(3);
    expect(problem.candidates.every((c) => new URL(c.url).pathname === '/v1/search')).toBe(true);
  });

  it('logs every request with what answered it, and counts hits', async () => {
    captureStderr();
    const server = await start(cassettes);
    await (await fetch(server.url + NEW_YORK_REORDERED)).arrayBuffer();
    await (await fetch(`${server.url}/nope`)).arrayBuffer();
    await (await fetch(`${server.url}/points/51.5074,-0.1278`)).arrayBuffer();
    expect(server.requests).toEqual([
      {
        method: 'GET',
        path: NEW_YORK_REORDERED,
        matched: `${CASSETTES}/open-meteo-geocoding/geocode_nyc.yaml#1`,
      },
      { method: 'GET', path: '/nope', matched: null },
      {
        method: 'GET',
        path: '/points/51.5074,-0.1278',
        matched: `${CASSETTES}/nws/point_international_error.yaml#0`,
      },
    ]);
    expect(server.hits()).toBe(2);
  });
});

describe('startReplayServer: modes', () => {
  // "New York" was recorded twice with different answers (Jan and May 2026).
  const twice = [
    `${CASSETTES}/open-meteo-geocoding/geocode_nyc.yaml#1`,
    `${CASSETTES}/open-meteo-geocoding/geocoding_search_nyc.yaml#0`,
  ];

  async function matchedFor(server: ReplayServer, times: number): Promise<Array<string | null>> {
    for (let i = 0; i < times; i++) await (await fetch(server.url + NEW_YORK_REORDERED)).arrayBuffer();
    return server.requests.map((request) => request.matched);
  }

  it("'repeat' (the default) answers with the first matching recording every time", async () => {
    const server = await start(cassettes);
    expect(await matchedFor(server, 3)).toEqual([twice[0], twice[0], twice[0]]);
  });

  it("'once' uses matching recordings up in order, then repeats the last", async () => {
    const server = await start(cassettes, 'once');
    expect(await matchedFor(server, 3)).toEqual([twice[0], twice[1], twice[1]]);
    // Each request has its own queue.
    await (await fetch(`${server.url}/gridpoints/OKX/33,35/forecast`)).arrayBuffer();
    expect(server.requests.at(-1)?.matched).toBe(`${CASSETTES}/nws/forecast_nyc.yaml#1`);
  });

  it('refuses an unknown mode, and a status it cannot answer with', async () => {
    await expect(startReplayServer([], { mode: 'loop' as 'once' })).rejects.toThrow(/mode/);
    const informational: RecordedExchange = {
      source: 'memory#0',
      request: { method: 'GET', url: 'https://backend.test/ws', headers: {} },
      response: { status: 101, headers: {}, body: '' },
    };
    await expect(startReplayServer([informational])).rejects.toThrow(/memory#0: status 101/);
  });
});

describe('startReplayServer: answers from HAR and hand-made recordings', () => {
  it('serves a base64 HAR body as bytes and drops stale framing and encoding headers', async () => {
    const server = await start(await loadRecordings([FIXTURES]));
    const icon = await fetch(`${server.url}/icons/land/night/few?size=small`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await icon.arrayBuffer());
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(icon.headers.get('content-length')).toBe(String(png.length));

    const forecast = await fetch(
      `${server.url}/v1/forecast?timezone=America/New_York&current=temperature_2m%2Cwind_speed_10m&longitude=-74.006&latitude=40.7143`,
    );
    expect(forecast.status).toBe(200);
    // The HAR recorded gzip + chunked; its content is stored decoded, so neither applies.
    expect(forecast.headers.get('content-encoding')).toBeNull();
    expect(forecast.headers.get('transfer-encoding')).toBeNull();
    expect(forecast.headers.get('vary')).toBe('Accept-Encoding');
    const body = Buffer.from(await forecast.arrayBuffer());
    expect(forecast.headers.get('content-length')).toBe(String(body.length));
    expect(JSON.parse(body.toString('utf8')).current.temperature_2m).toBe(21.4);
  });

  it('answers HEAD and 204 without a body, and sends each Set-Cookie on its own', async () => {
    const exchange = (method: string, status: number, body: string): RecordedExchange => ({
      source: `memory#${method}`,
      request: { method, url: 'https://backend.test/items/7', headers: {} },
      response: {
        status,
        headers: {
          'content-type': 'text/plain',
          'set-cookie': 'a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT\nb=2',
        },
        body,
      },
    });
    const server = await start([exchange('HEAD', 200, 'hello'), exchange('DELETE', 204, '')]);
    const head = await fetch(`${server.url}/items/7`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('5');
    expect(head.headers.getSetCookie()).toEqual(['a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT', 'b=2']);
    expect(await head.text()).toBe('');
    const deleted = await fetch(`${server.url}/items/7`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect(deleted.headers.get('content-length')).toBeNull();
  });

  it('leaves out a recorded header Node cannot send, instead of failing the answer', async () => {
    const stderr = captureStderr();
    const server = await start([
      {
        source: 'memory#0',
        request: { method: 'GET', url: 'https://backend.test/x', headers: {} },
        response: { status: 200, headers: { 'bad header': 'x', 'x-ok': 'y' }, body: 'ok' },
      },
    ]);
    const res = await fetch(`${server.url}/x`);
    expect(await res.text()).toBe('ok');
    expect(res.headers.get('x-ok')).toBe('y');
    expect(stderr.join('')).toContain('memory#0: header "bad header"');
  });

  it('closes even with a keep-alive connection open, and closing twice is fine', async () => {
    const server = await startReplayServer(cassettes, { port: 0 });
    await (await fetch(`${server.url}/gridpoints/OKX/33,35/forecast`)).arrayBuffer();
    await server.close();
    await server.close();
    await expect(fetch(`${server.url}/gridpoints/OKX/33,35/forecast`)).rejects.toThrow();
  });
});
