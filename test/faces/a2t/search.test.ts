/**
 * `GET /tools?q=` on the A2T face: an extension; without `q` the listing is
 * byte-for-byte what it was (test/faces/a2t/listing-json.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServedSignature } from '../../../src/faces/a2t/served-signature.ts';
import { getJson, startTestGateway } from '../../support/start-test-gateway.ts';

type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;
const names = (body: Record<string, unknown>) => (body.items as ServedSignature[]).map((t) => t.name);

describe('A2T GET /tools?q=', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway('sculpts', {
      PETSTORE_BASE_URL: 'http://127.0.0.1:9/v2',
      PETSTORE3_BASE_URL: 'http://127.0.0.1:9/api/v3',
    });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('ranks by relevance, not by name', async () => {
    const { status, body } = await getJson(
      `${gateway.url}/tools?q=${encodeURIComponent('weather forecast')}`,
    );
    expect(status).toBe(200);
    expect(names(body)[0]).toBe('lookup_weather_by_city');
    expect((body.items as ServedSignature[])[0]!.currentVersion).toBe(2);
  });

  it('pages a ranked listing exactly once through, in rank order', async () => {
    const all = names((await getJson(`${gateway.url}/tools?q=pets&pageLimit=100`)).body);
    expect(all.length).toBeGreaterThanOrEqual(3);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      const url: string = `${gateway.url}/tools?q=pets&pageLimit=1${cursor ? `&pageCursor=${encodeURIComponent(cursor)}` : ''}`;
      const { status, body } = await getJson(url);
      expect(status).toBe(200);
      seen.push(...names(body));
      cursor = (body.paging as { next: string | null }).next;
      if (!cursor) break;
    }
    expect(seen).toEqual(all);
  });

  it('combines with tag, and answers an empty page when nothing matches', async () => {
    const { body } = await getJson(`${gateway.url}/tools?q=pets&tag=petstore`);
    expect(names(body).length).toBeGreaterThan(0);
    for (const t of body.items as ServedSignature[]) expect(t.tags).toContain('petstore');
    const none = await getJson(`${gateway.url}/tools?q=zzyzx`);
    expect(none.body).toEqual({ items: [], paging: { pageLimit: 20, next: null } });
  });

  it.each([
    ['q=a&q=b', 'request.malformed'],
    ['q=%20', 'request.malformed'],
    [`q=${'x'.repeat(201)}`, 'request.malformed'],
  ])('refuses %s with %s', async (query, code) => {
    const { status, body } = await getJson(`${gateway.url}/tools?${query}`);
    expect(status).toBe(400);
    expect(body.code).toBe(code);
  });

  it('refuses a search cursor for another query, and a listing cursor for a search', async () => {
    const first = await getJson(`${gateway.url}/tools?q=pets&pageLimit=1`);
    const cursor = encodeURIComponent((first.body.paging as { next: string }).next);
    expect((await getJson(`${gateway.url}/tools?q=pet&pageCursor=${cursor}`)).body.code).toBe(
      'request.bad_paging',
    );
    expect((await getJson(`${gateway.url}/tools?pageCursor=${cursor}`)).body.code).toBe('request.bad_paging');
  });
});

describe('A2T search is scoped to the caller', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway(
      'test/hardening/fixtures/tenancy',
      {
        LAB_URL: 'http://127.0.0.1:9',
        ACME_LAB_KEY: 'a',
        GLOBEX_LAB_KEY: 'g',
        ACME_TOKEN: 'acme-token-0123456789abcdefghij',
        GLOBEX_TOKEN: 'globex-token-0123456789abcdefghij',
      },
      { callers: 'test/hardening/fixtures/tenancy-callers.yaml' },
    );
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const search = async (token: string) => {
    const res = await fetch(`${gateway.url}/tools?q=${encodeURIComponent('public counter')}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return names((await res.json()) as Record<string, unknown>);
  };

  it('a tool outside the tenant allowlist is never found', async () => {
    expect((await search('acme-token-0123456789abcdefghij'))[0]).toBe('public_stats');
    const globex = await search('globex-token-0123456789abcdefghij');
    expect(globex).not.toContain('public_stats');
  });

  it('no token: 401, not a search', async () => {
    const res = await fetch(`${gateway.url}/tools?q=counter`);
    expect(res.status).toBe(401);
  });
});
