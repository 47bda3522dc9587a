import type dns from 'node:dns';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BackendClient, createBackendClient } from '../../src/http/backend-client.ts';
import { guardLookup, isForbiddenAddress, type LookupFunction } from '../../src/http/egress-policy.ts';
import { expectCode } from './expect-code.ts';
import { type FaultBackend, startFaultBackend } from './fault-backend.ts';

describe('isForbiddenAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254', // cloud metadata
    '100.64.0.1',
    '100.100.100.200', // Alibaba metadata, CGNAT
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '198.18.0.1',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:192.168.0.1',
    '64:ff9b::127.0.0.1', // NAT64
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::', // 6to4 of 127.0.0.1
    '2002:c0a8:101::1',
    'fc00::1',
    'fd12:3456:789a::1',
    'fe80::1',
    'fe80::1%eth0',
    'ff02::1',
    '[::1]',
    'not-an-ip',
    '',
  ])('refuses %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.32.0.1', // just outside 172.16/12
    '100.128.0.1', // just outside 100.64/10
    '169.255.0.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808', // NAT64 of 8.8.8.8
    '2002:808:808::1', // 6to4 of 8.8.8.8
  ])('allows %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});

describe('guardLookup', () => {
  function stub(addresses: dns.LookupAddress[]): LookupFunction {
    return (_hostname, _options, callback) => process.nextTick(callback, null, addresses);
  }
  function resolve(lookup: LookupFunction, all: boolean): Promise<unknown> {
    return new Promise((res, rej) => {
      lookup('api.example.test', { all }, (err, address, family) =>
        err ? rej(err) : res(all ? address : { address, family }),
      );
    });
  }

  it('passes public answers through in the requested form', async () => {
    const lookup = guardLookup(
      stub([
        { address: '93.184.215.14', family: 4 },
        { address: '2606:2800::1', family: 6 },
      ]),
    );
    expect(await resolve(lookup, true)).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800::1', family: 6 },
    ]);
    expect(await resolve(lookup, false)).toEqual({ address: '93.184.215.14', family: 4 });
  });

  it('refuses a name when any answer is private (rebinding, mixed answers)', async () => {
    const lookup = guardLookup(
      stub([
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ]),
    );
    await expectCode(resolve(lookup, true), 'upstream.forbidden_address');
    await expectCode(resolve(lookup, false), 'upstream.forbidden_address');
  });

  it('refuses an empty answer', async () => {
    await expectCode(resolve(guardLookup(stub([])), true), 'upstream.forbidden_address');
  });
});

describe('egress policy at connect time', () => {
  let backend: FaultBackend;
  let client: BackendClient;

  beforeAll(async () => {
    backend = await startFaultBackend();
    client = createBackendClient();
  });
  afterAll(async () => {
    await client.close();
    await backend.close();
  });
  beforeEach(() => backend.reset());

  const send = (c: BackendClient, url: string, allowPrivate?: boolean) =>
    c.send(
      { method: 'GET', url, headers: {} },
      { signal: AbortSignal.timeout(2000), ...(allowPrivate === undefined ? {} : { allowPrivate }) },
    );

  it('the production default refuses 127.0.0.1 and the server sees no connection', async () => {
    const err = await expectCode(send(client, `${backend.origin}/json`), 'upstream.forbidden_address');
    await expectCode(send(client, `${backend.origin}/json`, false), 'upstream.forbidden_address');
    expect(backend.connections).toBe(0);
    // The fix is named for the operator (never on the wire): one run to allow a loopback backend.
    expect(err.message).not.toMatch(/127\.0\.0\.1|allowPrivate/);
    expect(err.hint).toMatch(
      /allowPrivate: true.*SCULPTOR_ALLOW_PRIVATE_EGRESS=true.*SCULPTOR_ALLOW_HTTP_BACKENDS alone/,
    );
  });

  it.each([
    ['IPv4-mapped IPv6', (port: number) => `http://[::ffff:127.0.0.1]:${port}/json`],
    ['dword IPv4', (port: number) => `http://2130706433:${port}/json`],
    ['hex IPv4', (port: number) => `http://0x7f.0.0.1:${port}/json`],
    ['a name resolving to loopback', (port: number) => `http://localhost:${port}/json`],
    ['IPv6 loopback', (port: number) => `http://[::1]:${port}/json`],
  ])('refuses %s without connecting', async (_name, url) => {
    await expectCode(send(client, url(backend.port)), 'upstream.forbidden_address');
    expect(backend.connections).toBe(0);
  });

  it('refuses a name whose resolver answers with a private address', async () => {
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if (options.all) process.nextTick(callback, null, [{ address: '127.0.0.1', family: 4 }]);
      else process.nextTick(callback, null, '127.0.0.1', 4);
    };
    const rebinding = createBackendClient({ lookup });
    try {
      await expectCode(
        send(rebinding, `http://api.example.test:${backend.port}/json`),
        'upstream.forbidden_address',
      );
      expect(backend.connections).toBe(0);
      // The same resolver with allowPrivate reaches the server: the refusal above was the policy.
      const res = await send(rebinding, `http://api.example.test:${backend.port}/json`, true);
      expect(res.status).toBe(200);
      expect(backend.connections).toBe(1);
    } finally {
      await rebinding.close();
    }
  });

  it('refuses non-http schemes', async () => {
    await expectCode(send(client, 'file:///etc/passwd'), 'upstream.forbidden_address');
    await expectCode(send(client, 'ftp://127.0.0.1/x', true), 'upstream.forbidden_address');
  });

  it('allowPrivate reaches 127.0.0.1, localhost and the IPv4-mapped form', async () => {
    for (const url of [
      `${backend.origin}/json`,
      `http://localhost:${backend.port}/json`,
      `http://[::ffff:127.0.0.1]:${backend.port}/json`,
    ]) {
      const res = await send(client, url, true);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true, name: 'sculptor', items: [1, 2, 3] });
    }
    expect(backend.requests).toHaveLength(3);
  });

  it('a connection pooled for an allowPrivate call never serves a call under the policy', async () => {
    expect((await send(client, `${backend.origin}/json`, true)).status).toBe(200);
    await expectCode(send(client, `${backend.origin}/json`), 'upstream.forbidden_address');
    expect(backend.requests).toHaveLength(1);
  });
});
