import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { type PetstoreBackend, startPetstoreBackend } from '../support/petstore-backend.ts';
import { startTestGateway } from '../support/start-test-gateway.ts';
import { rawRequest } from './raw-http.ts';

// Were the route table to match the path *after* URL parsing removed dot segments,
// `/foo/../tools/<id>:invoke` would invoke the tool while a proxy's path rules saw `/foo/…`.
// These go over raw sockets: fetch would normalize the paths before sending them.
let petstore: PetstoreBackend;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
const NAME = 'count_pets_in_stock';
const ID = toolIdFor(NAME);
const BODY = JSON.stringify({ name: NAME, input_parameters: [] });

beforeAll(async () => {
  petstore = await startPetstoreBackend();
  gateway = await startTestGateway('sculpts', {
    PETSTORE_BASE_URL: `${petstore.url}/v2`,
    PETSTORE3_BASE_URL: `${petstore.url}/api/v3`,
  });
});
afterAll(async () => {
  await gateway?.close();
  await petstore?.close();
});

function post(target: string) {
  return rawRequest(
    gateway.url,
    `POST ${target} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(BODY)}\r\nConnection: close\r\n\r\n${BODY}`,
  );
}

function bodyOf(text: string): Record<string, unknown> {
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
}

describe('dot segments in the request path', () => {
  it('the plain path invokes the tool (the control)', async () => {
    const res = await post(`/tools/${ID}:invoke`);
    expect(res.status).toBe(200);
  });

  it.each([
    `/foo/../tools/${ID}:invoke`,
    `/tools/./${ID}:invoke`,
    `/tools/%2e/${ID}:invoke`,
    `/tools/%2E/${ID}:invoke`,
    `/foo/%2e%2e/tools/${ID}:invoke`,
    `/foo/.%2E/tools/${ID}:invoke`,
    `/foo/%2e./tools/${ID}:invoke`,
    `/tools/${ID}:invoke/.`,
    `/tools/x/../${ID}:invoke`,
    `http://gateway/foo/../tools/${ID}:invoke`,
  ])('%s is refused with 400 request.malformed, and the backend is never called', async (target) => {
    const before = petstore.requests.length;
    const res = await post(target);
    expect(res.status, res.text).toBe(400);
    expect(res.text).toMatch(/content-type: application\/problem\+json/i);
    expect(bodyOf(res.text)).toMatchObject({ code: 'request.malformed', status: 400 });
    expect(petstore.requests.length).toBe(before);
  });

  it('a backslash path (which URL parsing would turn into dot segments) never reaches a tool', async () => {
    const before = petstore.requests.length;
    // Refused by the HTTP server before the gateway's own check runs: a plain 400.
    expect((await post(`/foo\\..\\tools/${ID}:invoke`)).status).toBe(400);
    expect(petstore.requests.length).toBe(before);
  });

  it('dots inside a segment are not dot segments: %252e and ..x stay plain 404s', async () => {
    for (const target of [
      `/tools/%252e/${ID}:invoke`,
      `/tools/..x/${ID}:invoke`,
      `/tools/.../${ID}:invoke`,
    ]) {
      const res = await post(target);
      expect(res.status, target).toBe(404);
    }
  });

  it('listings too: GET /x/../tools is refused', async () => {
    const res = await rawRequest(
      gateway.url,
      'GET /x/../tools HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    );
    expect(res.status).toBe(400);
  });
});
