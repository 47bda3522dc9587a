/**
 * A tool call's answer, for every face that writes its own JSON: never cached (`no-store`).
 * Written as a plain Response with plain headers, which @hono/node-server sends as they are;
 * `c.header` + `c.json` would build a web `Headers` object per call and convert it back.
 */
export function callAnswer(body: unknown): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: CALL_HEADERS });
}

const CALL_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };
