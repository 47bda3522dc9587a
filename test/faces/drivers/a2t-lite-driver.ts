import type { FaceDriver } from './face-driver.ts';

const auth = (token?: string): Record<string, string> =>
  token === undefined ? {} : { authorization: `Bearer ${token}` };

/**
 * The a2t-lite face (docs/protocols/a2t-lite.md), at `{platform-root}/lite`:
 * `GET /tools` by offset, `POST /tools/{name}` with the arguments as a plain object, answering
 * `{result}` or `{error: {code, message}}` with A2T's status. The protocol has no versions:
 * a call is always to the current one.
 */
export const a2tLiteDriver: FaceDriver = {
  name: 'a2t-lite',
  async list(gatewayUrl, token) {
    const names: string[] = [];
    for (let offset = 0; offset < 10_000; offset += 100) {
      const res = await fetch(`${gatewayUrl}/lite/tools?limit=100&offset=${offset}`, {
        headers: auth(token),
      });
      if (res.status !== 200) throw new Error(`GET /lite/tools answered ${res.status}`);
      const body = (await res.json()) as { tools: Array<{ name: string }>; total: number };
      names.push(...body.tools.map((t) => t.name));
      if (offset + 100 >= body.total) return names;
    }
    throw new Error('GET /lite/tools: more than 100 pages');
  },
  unsupported(call) {
    return call.version === undefined ? undefined : 'a2t-lite has no versions: it calls the current one';
  },
  async invoke(gatewayUrl, { tool, inputs, token }) {
    const res = await fetch(`${gatewayUrl}/lite/tools/${tool}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth(token) },
      body: JSON.stringify(inputs),
    });
    const body = (await res.json()) as {
      result?: Record<string, unknown>;
      error?: { code: string; message: string };
    };
    if (res.status === 200) return { status: 200, actual: { outputs: body.result! } };
    return {
      status: res.status,
      actual: { error: { code: String(body.error?.code), message: String(body.error?.message) } },
    };
  },
};
