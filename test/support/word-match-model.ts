import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { random } from './stripe-like-openapi.ts';

/**
 * A model for tests: an OpenAI-compatible chat-completions server on loopback whose choices
 * depend only on the tools it is given, the way a model's do on what it reads. It ranks the
 * tools by the words they share with the request (name and description, rarer words weighing
 * more), calls the best one when it shares any, and fills each argument from what it finds in
 * the request: a capitalized name for text, a number for an integer, an enum value named in the
 * request. A vague description shares fewer words and loses; a required input it cannot find
 * is left out, and the call is invalid. After a tool result it answers in words.
 *
 * With a temperature above 0 it samples among the tools (softmax of the scores, seeded by the
 * request's `seed`), so repeated runs can differ as a real model's do. `mode` makes it fail the
 * ways endpoints do: refuse the key, rate limit, answer something that is not a completion.
 */
export type TestModelMode =
  'normal' | '401' | '429' | '500' | 'no-choices' | 'not-json' | 'bad-arguments' | 'no-usage';

export interface TestModel {
  /** The API root, e.g. http://127.0.0.1:PORT/v1. */
  url: string;
  /** Every request body received, parsed. */
  requests: Array<Record<string, unknown>>;
  /** Authorization headers received, to check what was sent. */
  authorizations: Array<string | undefined>;
  mode: TestModelMode;
  close(): Promise<void>;
}

interface ChatTool {
  function: { name: string; description?: string; parameters?: Schema };
}
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  description?: string;
}
interface Message {
  role: string;
  content?: string | null;
}

const STOP = new Set(
  'a an and are as at be by can do does for from give how i in is it its me my of on or please show tell that the this to use user what whats when where which who will with you your asks about it'.split(
    ' ',
  ),
);

export function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !STOP.has(w))
    .map((w) => (w.length > 4 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

/** Tools by their score for a request: shared words, each weighing its rarity among the tools. */
export function rank(tools: ChatTool[], request: string): Array<{ name: string; score: number }> {
  const docs = tools.map((t) => ({
    name: t.function.name,
    nameWords: new Set(words(t.function.name)),
    all: new Set([...words(t.function.name), ...words(t.function.description ?? '')]),
  }));
  const asked = new Set(words(request));
  return docs
    .map((d) => {
      let score = 0;
      for (const w of asked) {
        if (!d.all.has(w)) continue;
        const df = docs.filter((o) => o.all.has(w)).length;
        score += Math.log(1 + docs.length / df) * (d.nameWords.has(w) ? 2 : 1);
      }
      return { name: d.name, score };
    })
    .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1));
}

/** Names in a request: runs of capitalized words, the sentence's first word only when a name follows it. */
function properNames(text: string): string[] {
  const found: string[] = [];
  for (const sentence of text.split(/[.?!]\s+/)) {
    const tokens = sentence.split(/\s+/).map((t) => t.replace(/[^\p{L}\p{N}'-]/gu, ''));
    let run: string[] = [];
    tokens.forEach((t, i) => {
      const capital = /^\p{Lu}/u.test(t) && !(i === 0 && !/^\p{Lu}/u.test(tokens[1] ?? ''));
      if (capital && !/['’]/.test(t)) run.push(t);
      else {
        if (run.length > 0) found.push(run.join(' '));
        run = [];
      }
    });
    if (run.length > 0) found.push(run.join(' '));
  }
  return found;
}

function typeOf(schema: Schema): string {
  const t = Array.isArray(schema.type) ? schema.type.find((x) => x !== 'null') : schema.type;
  return t ?? 'string';
}

/** The arguments this model can find for a tool in the conversation's requests (latest first). */
function fill(tool: ChatTool, requests: string[]): Record<string, unknown> {
  const schema = tool.function.parameters ?? {};
  const required = new Set(schema.required ?? []);
  const strict = Object.values(schema.properties ?? {}).some(
    (p) => Array.isArray(p.type) && p.type.includes('null'),
  );
  const args: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    let value: unknown;
    for (const request of requests) {
      const asked = new Set(words(request));
      const values = (prop.enum ?? []).filter((v): v is string => typeof v === 'string');
      if (values.length > 0) value = values.find((v) => words(v).every((w) => asked.has(w)));
      else if (typeOf(prop) === 'integer' || typeOf(prop) === 'number') {
        const n = /\b\d+\b/.exec(request);
        if (n) value = Number(n[0]);
      } else if (typeOf(prop) === 'boolean') {
        if (words(name).some((w) => asked.has(w))) value = true;
      } else if (required.has(name) || words(`${name} ${prop.description ?? ''}`).some((w) => asked.has(w))) {
        value = properNames(request)[0] ?? /"([^"]+)"/.exec(request)?.[1];
      }
      if (value !== undefined) break;
    }
    if (value !== undefined) args[name] = value;
    else if (strict) args[name] = null;
  }
  return args;
}

function choose(
  scored: Array<{ name: string; score: number }>,
  temperature: number,
  seed: number,
): string | undefined {
  const candidates = scored.filter((s) => s.score > 0);
  if (candidates.length === 0) return undefined;
  if (temperature <= 0) return candidates[0]!.name;
  const weights = candidates.map((c) => Math.exp((c.score - candidates[0]!.score) / temperature));
  let r = random(seed)() * weights.reduce((a, b) => a + b, 0);
  for (const [i, w] of weights.entries()) {
    r -= w;
    if (r <= 0) return candidates[i]!.name;
  }
  return candidates.at(-1)!.name;
}

export function answer(body: Record<string, unknown>): { message: Record<string, unknown>; finish: string } {
  const messages = (body.messages as Message[]) ?? [];
  const tools = (body.tools as ChatTool[]) ?? [];
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    return {
      message: {
        role: 'assistant',
        content: `Here is what the tool said: ${String(last.content).slice(0, 200)}`,
      },
      finish: 'stop',
    };
  }
  const requests = messages
    .filter((m) => m.role === 'user')
    .map((m) => String(m.content ?? ''))
    .reverse();
  let chosen: string | undefined;
  for (const request of requests) {
    chosen = choose(rank(tools, request), Number(body.temperature ?? 0), Number(body.seed ?? 0));
    if (chosen) break;
  }
  const tool = tools.find((t) => t.function.name === chosen);
  if (!tool)
    return { message: { role: 'assistant', content: 'I can answer that without a tool.' }, finish: 'stop' };
  return {
    message: {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `call_${messages.length}`,
          type: 'function',
          function: { name: tool.function.name, arguments: JSON.stringify(fill(tool, requests)) },
        },
      ],
    },
    finish: 'tool_calls',
  };
}

const tokens = (text: string) => Math.ceil(text.length / 4);

export async function startTestModel(
  options: { key?: string; mode?: TestModelMode; port?: number } = {},
): Promise<TestModel> {
  const requests: TestModel['requests'] = [];
  const authorizations: TestModel['authorizations'] = [];
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const model: TestModel = {
    url: '',
    requests,
    authorizations,
    mode: options.mode ?? 'normal',
    close: async () => {},
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    if (req.method !== 'POST' || !req.url?.endsWith('/v1/chat/completions')) {
      return send(res, 404, { error: { message: `No route ${req.method} ${req.url}` } });
    }
    const body = JSON.parse(text) as Record<string, unknown>;
    requests.push(body);
    authorizations.push(req.headers.authorization);
    if (model.mode === '401' || (options.key && req.headers.authorization !== `Bearer ${options.key}`)) {
      return send(res, 401, {
        error: { message: 'Incorrect API key provided.', type: 'invalid_request_error' },
      });
    }
    if (model.mode === '429')
      return send(res, 429, { error: { message: 'Rate limit reached.' } }, { 'retry-after': '0' });
    if (model.mode === '500') return send(res, 500, { error: { message: 'The model crashed.' } });
    if (model.mode === 'no-choices')
      return send(res, 200, { id: 'x', object: 'chat.completion', choices: [] });
    if (model.mode === 'not-json')
      return send(res, 200, '<html>a proxy page</html>', { 'content-type': 'text/html' });
    const { message, finish } = answer(body);
    if (model.mode === 'bad-arguments' && Array.isArray(message.tool_calls)) {
      (message.tool_calls as Array<{ function: { arguments: string } }>)[0]!.function.arguments =
        '{"city": New York';
    }
    send(res, 200, {
      id: `chatcmpl-${requests.length}`,
      object: 'chat.completion',
      created: 0,
      model: body.model,
      choices: [{ index: 0, message, finish_reason: finish }],
      ...(model.mode === 'no-usage'
        ? {}
        : {
            usage: {
              prompt_tokens: tokens(JSON.stringify(body.messages) + JSON.stringify(body.tools ?? [])),
              completion_tokens: tokens(JSON.stringify(message)),
              total_tokens: 0,
            },
          }),
    });
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, { error: { message: String(err) } }));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  model.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  model.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return model;
}
