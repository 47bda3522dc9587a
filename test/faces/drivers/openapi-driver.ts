import type { FaceDriver } from './face-driver.ts';

const auth = (token?: string): Record<string, string> =>
  token === undefined ? {} : { authorization: `Bearer ${token}` };

/**
 * The OpenAPI face: the caller's tools are the `/call/{name}` operations of its
 * `/openapi.json`; a call posts the inputs as one object and answers the outputs as one, or an
 * RFC 9457 problem. It has no versions: a call is always to the current one.
 */
export const openApiDriver: FaceDriver = {
  name: 'openapi',
  async list(gatewayUrl, token) {
    const res = await fetch(`${gatewayUrl}/openapi.json`, { headers: auth(token) });
    if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
    const document = (await res.json()) as { paths: Record<string, unknown> };
    return Object.keys(document.paths)
      .filter((p) => p.startsWith('/call/'))
      .map((p) => decodeURIComponent(p.slice('/call/'.length)))
      .sort();
  },
  unsupported(call) {
    return call.version === undefined
      ? undefined
      : 'the OpenAPI face has no versions: it calls the current one';
  },
  async invoke(gatewayUrl, { tool, inputs, token }) {
    const res = await fetch(`${gatewayUrl}/call/${tool}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth(token) },
      body: JSON.stringify(inputs),
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status === 200) return { status: 200, actual: { outputs: body } };
    return {
      status: res.status,
      actual: { error: { code: String(body.code), message: String(body.detail) } },
    };
  },
};
