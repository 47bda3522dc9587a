import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SculptorError } from '../../../src/errors/sculptor-error.ts';
import { readRequestBody } from '../../../src/faces/common/read-request-body.ts';

const LIMIT = 1024;

/** Answers the body's length, or the SculptorError code; `settled` counts reads that finished. */
let settled = 0;
const app = new Hono().post('/', async (c) => {
  try {
    const text = await readRequestBody(c, LIMIT);
    return c.json({ length: text.length, text: text.slice(0, 16) });
  } catch (err) {
    return c.json({ code: (err as SculptorError).code }, (err as SculptorError).status as 400);
  } finally {
    settled++;
  }
});

const streamOf = (parts: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const p of parts) controller.enqueue(new TextEncoder().encode(p));
      controller.close();
    },
  });

describe('readRequestBody over Node (the body read straight from the socket)', () => {
  let server: ReturnType<typeof serve>;
  let url: string;
  beforeAll(async () => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

  it('reads a body up to the limit exactly, declared or chunked, UTF-8 decoded', async () => {
    expect(await (await post('x'.repeat(LIMIT))).json()).toEqual({ length: LIMIT, text: 'x'.repeat(16) });
    const chunked = await post(streamOf(['é'.repeat(100), 'x'.repeat(LIMIT - 200)]));
    expect(await chunked.json()).toEqual({ length: LIMIT - 100, text: 'é'.repeat(16) });
    expect(await (await post('')).json()).toEqual({ length: 0, text: '' });
  });

  it('refuses one byte more: by its declared length, and counted when chunked', async () => {
    const declared = await post('x'.repeat(LIMIT + 1));
    expect([declared.status, await declared.json()]).toEqual([413, { code: 'request.too_large' }]);
    const chunked = await post(streamOf(['x'.repeat(LIMIT), 'y']));
    expect([chunked.status, await chunked.json()]).toEqual([413, { code: 'request.too_large' }]);
  });

  it('settles when the caller goes away mid-body (no read left waiting)', async () => {
    const before = settled;
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n' + 'x'.repeat(100));
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    for (let i = 0; i < 50 && settled === before; i++) await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(before + 1);
  });
});

describe('readRequestBody elsewhere (app.request: the web stream, same count)', () => {
  const post = (body: string | ReadableStream<Uint8Array>) =>
    app.request('/', { method: 'POST', body, duplex: 'half' } as RequestInit);

  it('reads up to the limit and refuses one byte more, chunked included', async () => {
    expect(await (await post(streamOf(['x'.repeat(LIMIT)]))).json()).toEqual({
      length: LIMIT,
      text: 'x'.repeat(16),
    });
    const over = await post(streamOf(['x'.repeat(LIMIT - 1), 'yz']));
    expect([over.status, await over.json()]).toEqual([413, { code: 'request.too_large' }]);
  });
});
