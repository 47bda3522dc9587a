/** Documents fetched from an identity provider stay within their size bound while they stream. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readProviderJson } from '../../src/callers/provider-keys.ts';

let server: Server;
let base: string;
let sentByEndless = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/small') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [] }));
      return;
    }
    // Streams 64 KiB chunks until the reader goes away, or 64 MiB at most.
    res.setHeader('content-type', 'application/json');
    res.write('{"keys":"');
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const more = (): void => {
      while (sentByEndless < 64 * 1024 * 1024) {
        if (res.destroyed) return;
        sentByEndless += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end('"}');
    };
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('readProviderJson', () => {
  it('reads a document within the bound', async () => {
    await expect(readProviderJson(`${base}/small`, { timeoutMs: 5000, maxBytes: 1024 })).resolves.toEqual({
      keys: [],
    });
  });

  it('stops reading a document as soon as it passes the bound, long before the provider is done', async () => {
    await expect(
      readProviderJson(`${base}/endless`, { timeoutMs: 10_000, maxBytes: 256 * 1024 }),
    ).rejects.toThrow('over 262144 bytes');
    // The provider was cut off: it did not get to send its 64 MiB.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sentByEndless).toBeLessThan(16 * 1024 * 1024);
  });
});
