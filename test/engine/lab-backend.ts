import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small backend on 127.0.0.1 for chain tests (the "lab" of
 * test/engine/fixtures/lab). Bodies are written as raw JSON text so that
 * integers beyond 2^53 go out exactly as a Java or Go backend writes them.
 *
 *   GET /slow/{name}?ms=N      {"name"} after N ms (N ≤ 5000)
 *   GET /accounts/latest       {"id": 12345678901234567891, "owner": "ada"}
 *   GET /accounts/{id}/balance {"account_id": <id, as received>, "cents": 1250}; 404 unless digits
 *   GET /me                    {"user": labUser(<x-api-key>)}; 401 without the header
 *   GET /echo                  {"headers": {name: value, …}}: every request header, echoed
 *   GET /stats                 {"visits": <requests to /stats so far>}
 *   GET /flaky                 500 on the first request, then {"ok": true}
 *   GET /status/{code}         that status, a JSON problem body
 */
export interface LabBackend {
  url: string;
  requests: Array<{
    path: string;
    apiKey: string | undefined;
    /** Every header value the request carried, to prove what never reaches a backend. */
    headerValues: string[];
    at: number;
    doneAt?: number;
  }>;
  close(): Promise<void>;
}

export const BIG_ID = '12345678901234567891';

/**
 * The user a key belongs to, as `/me` names it: derived from the key, never the key
 * itself — a backend that echoes a credential gets its answer withheld.
 */
export function labUser(key: string): string {
  return `user-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}

export async function startLabBackend(): Promise<LabBackend> {
  const requests: LabBackend['requests'] = [];
  const timers = new Set<NodeJS.Timeout>();
  let stats = 0;
  let flaky = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://lab');
    const entry: LabBackend['requests'][number] = {
      path: req.url ?? '/',
      apiKey: req.headers['x-api-key'] as string | undefined,
      headerValues: req.rawHeaders.filter((_, i) => i % 2 === 1),
      at: performance.now(),
    };
    requests.push(entry);
    const json = (status: number, text: string) => {
      entry.doneAt = performance.now();
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
    };
    req.resume();
    const parts = url.pathname.split('/').slice(1);
    if (parts[0] === 'slow' && parts.length === 2) {
      const ms = Math.min(Number(url.searchParams.get('ms') ?? 0), 5000);
      const timer = setTimeout(() => {
        timers.delete(timer);
        json(200, JSON.stringify({ name: decodeURIComponent(parts[1]!) }));
      }, ms);
      timers.add(timer);
      return;
    }
    if (url.pathname === '/accounts/latest') return json(200, `{"id": ${BIG_ID}, "owner": "ada"}`);
    if (parts[0] === 'accounts' && parts[2] === 'balance' && parts.length === 3) {
      return /^\d+$/.test(parts[1]!)
        ? json(200, `{"account_id": ${parts[1]}, "cents": 1250}`)
        : json(404, '{"title": "no such account"}');
    }
    if (url.pathname === '/me') {
      return entry.apiKey
        ? json(200, JSON.stringify({ user: labUser(entry.apiKey) }))
        : json(401, '{"title": "no key"}');
    }
    if (url.pathname === '/echo') return json(200, JSON.stringify({ headers: req.headers }));
    if (url.pathname === '/stats') return json(200, JSON.stringify({ visits: ++stats }));
    if (url.pathname === '/flaky') {
      return ++flaky === 1 ? json(500, '{"title": "try again"}') : json(200, '{"ok": true}');
    }
    if (parts[0] === 'status') return json(Number(parts[1]), '{"title": "as asked"}');
    json(404, '{"title": "not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A tool that echoes its name through the lab backend, as a sculpt file's text. */
export function echoSculpt(name: string, description: string): string {
  return [
    `tool: ${name}`,
    'version: 1',
    `description: ${description}`,
    'inputs:',
    "  name: { type: string, maxLength: 20, description: 'A name.' }",
    'outputs:',
    "  name: { type: string, description: 'The same name.' }",
    'steps:',
    '  - id: echo',
    '    call: lab#slow',
    '    params: \'{ "name": $inputs.name, "ms": 1 }\'',
    'output: \'{ "name": $steps.echo.name }\'',
    '',
  ].join('\n');
}
