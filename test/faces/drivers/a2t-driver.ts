import { toolIdFor } from '../../../src/compile/tool-signature.ts';
import type { FaceDriver } from './face-driver.ts';

const auth = (token?: string): Record<string, string> =>
  token === undefined ? {} : { authorization: `Bearer ${token}` };

/** The A2T face (draft §6–7): `GET /tools` pages, `POST /tools/{id}[/versions/{n}]:invoke`. */
export const a2tDriver: FaceDriver = {
  name: 'a2t',
  async list(gatewayUrl, token) {
    const names: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const query: string = cursor === null ? '' : `&pageCursor=${encodeURIComponent(cursor)}`;
      const res = await fetch(`${gatewayUrl}/tools?pageLimit=100${query}`, { headers: auth(token) });
      if (res.status !== 200) throw new Error(`GET /tools answered ${res.status}`);
      const body = (await res.json()) as { items: Array<{ name: string }>; paging: { next: string | null } };
      names.push(...body.items.map((t) => t.name));
      cursor = body.paging.next;
      if (cursor === null) return names;
    }
    throw new Error('GET /tools: more than 100 pages');
  },
  async invoke(gatewayUrl, { tool, version, inputs, token }) {
    const id = toolIdFor(tool);
    const route = version === undefined ? `/tools/${id}:invoke` : `/tools/${id}/versions/${version}:invoke`;
    const res = await fetch(`${gatewayUrl}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth(token) },
      body: JSON.stringify({
        name: tool,
        input_parameters: Object.entries(inputs).map(([name, value]) => ({ name, value })),
      }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status === 200) {
      const outputs = body.output_parameters as Array<{ name: string; value: unknown }>;
      return { status: 200, actual: { outputs: Object.fromEntries(outputs.map((p) => [p.name, p.value])) } };
    }
    return {
      status: res.status,
      actual: { error: { code: String(body.code), message: String(body.detail) } },
    };
  },
};
