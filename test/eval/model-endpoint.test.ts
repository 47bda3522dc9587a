import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EndpointConfig, endpointFromEnv, maskSecrets } from '../../src/eval/endpoint-config.ts';
import { createModelEndpoint } from '../../src/eval/model-endpoint.ts';
import { startTestModel, type TestModel } from '../support/word-match-model.ts';

const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'lookup_weather_by_city',
      description: 'Look up the weather forecast for a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];
const ASK = {
  messages: [{ role: 'user' as const, content: 'Weather in Omaha?' }],
  tools: TOOLS,
  temperature: 0,
};

let model: TestModel;
beforeAll(async () => {
  model = await startTestModel({ key: 'sk-test-key-123456' });
});
afterAll(async () => {
  await model.close();
});

const config = (extra: Partial<EndpointConfig> = {}): EndpointConfig => ({
  baseUrl: model.url,
  model: 'word-match',
  apiKey: 'sk-test-key-123456',
  timeoutMs: 5_000,
  retries: 0,
  ...extra,
});

/** A port nothing listens on: taken from the system, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the model endpoint', () => {
  it('asks with the tools and reads the call, its raw arguments, usage and latency', async () => {
    model.mode = 'normal';
    const answer = await createModelEndpoint(config()).complete(ASK);
    expect(answer.toolCalls).toEqual([
      { id: expect.any(String), name: 'lookup_weather_by_city', arguments: '{"city":"Omaha"}' },
    ]);
    expect(answer.promptTokens).toBeGreaterThan(0);
    expect(answer.completionTokens).toBeGreaterThan(0);
    expect(answer.latencyMs).toBeGreaterThan(0);
    const sent = model.requests.at(-1)!;
    expect(sent).toMatchObject({ model: 'word-match', temperature: 0, tools: TOOLS });
    expect(model.authorizations.at(-1)).toBe('Bearer sk-test-key-123456');
  });

  it('reports no token counts when the endpoint reports no usage, rather than zero', async () => {
    model.mode = 'no-usage';
    const answer = await createModelEndpoint(config()).complete(ASK);
    expect(answer.promptTokens).toBeUndefined();
    expect(answer.completionTokens).toBeUndefined();
  });

  it('is eval.endpoint_unreachable when nothing listens, saying to start the server', async () => {
    const port = await closedPort();
    const err = await createModelEndpoint(config({ baseUrl: `http://127.0.0.1:${port}/v1` }))
      .complete(ASK)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'eval.endpoint_unreachable' });
    expect((err as Error).message).toMatch(/Start the server|SCULPTOR_EVAL_URL/);
  });

  it('is eval.endpoint_refused on a 401, naming the key variable, never the key', async () => {
    model.mode = 'normal';
    const err = await createModelEndpoint(config({ apiKey: 'sk-wrong-key-999999' }))
      .complete(ASK)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'eval.endpoint_refused' });
    expect((err as Error).message).toContain('SCULPTOR_EVAL_API_KEY');
    expect((err as Error).message).not.toContain('sk-wrong-key-999999');
  });

  it('is eval.endpoint_rate_limited on a 429 that outlasts the retries, after retrying', async () => {
    model.mode = '429';
    const before = model.requests.length;
    const err = await createModelEndpoint(config({ retries: 2 }))
      .complete(ASK)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'eval.endpoint_rate_limited' });
    expect(model.requests.length - before).toBe(3);
  });

  it('is eval.endpoint_error on another error status, with the server’s own words', async () => {
    model.mode = '500';
    const err = await createModelEndpoint(config())
      .complete(ASK)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'eval.endpoint_error' });
    expect((err as Error).message).toContain('The model crashed.');
  });

  it('is eval.endpoint_malformed on a 200 that is not a chat completion', async () => {
    for (const mode of ['no-choices', 'not-json'] as const) {
      model.mode = mode;
      const err = await createModelEndpoint(config())
        .complete(ASK)
        .catch((e: unknown) => e);
      expect(err, mode).toMatchObject({ code: 'eval.endpoint_malformed' });
    }
  });

  it('masks every known secret in what it sends, whatever route it took into the prompt', async () => {
    model.mode = 'normal';
    const endpoint = createModelEndpoint(config(), () => ['backend-secret-abc']);
    await endpoint.complete({
      ...ASK,
      messages: [
        {
          role: 'user',
          content: 'My key is sk-test-key-123456 and the token backend-secret-abc; weather in Omaha?',
        },
      ],
    });
    const body = JSON.stringify(model.requests.at(-1));
    expect(body).not.toContain('backend-secret-abc');
    expect(body).not.toContain('sk-test-key-123456');
    expect(body).toContain('My key is ••• and the token •••');
  });

  it('never falls back to OPENAI_API_KEY: a local endpoint without a key gets a placeholder', async () => {
    const open = await startTestModel();
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-hosted-account-key';
    try {
      await createModelEndpoint({ baseUrl: open.url, model: 'm', timeoutMs: 5_000, retries: 0 }).complete(
        ASK,
      );
      expect(open.authorizations).toEqual(['Bearer no-key']);
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
      await open.close();
    }
  });
});

describe('endpoint configuration', () => {
  it('comes from SCULPTOR_EVAL_URL, _MODEL and _API_KEY, options overriding the first two', () => {
    const env = {
      SCULPTOR_EVAL_URL: 'http://127.0.0.1:11434/v1/',
      SCULPTOR_EVAL_MODEL: 'qwen2.5:7b',
      SCULPTOR_EVAL_API_KEY: 'k-123',
    };
    expect(endpointFromEnv(env)).toEqual({
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'qwen2.5:7b',
      apiKey: 'k-123',
      timeoutMs: 120_000,
      retries: 2,
    });
    expect(endpointFromEnv(env, { model: 'llama3.1', url: 'http://127.0.0.1:8000/v1' })).toMatchObject({
      model: 'llama3.1',
      baseUrl: 'http://127.0.0.1:8000/v1',
    });
  });

  it('is eval.config, saying what to set, when the URL or the model is missing or wrong', () => {
    expect(() => endpointFromEnv({})).toThrow(/SCULPTOR_EVAL_URL.*SCULPTOR_EVAL_MODEL/);
    expect(() => endpointFromEnv({ SCULPTOR_EVAL_URL: 'http://x/v1' })).toThrow(
      expect.objectContaining({ code: 'eval.config' }),
    );
    expect(() => endpointFromEnv({ SCULPTOR_EVAL_URL: 'not a url', SCULPTOR_EVAL_MODEL: 'm' })).toThrow(
      expect.objectContaining({ code: 'eval.config' }),
    );
    expect(() => endpointFromEnv({ SCULPTOR_EVAL_URL: 'file:///etc', SCULPTOR_EVAL_MODEL: 'm' })).toThrow(
      expect.objectContaining({ code: 'eval.config' }),
    );
  });

  it('masks secrets as written and as JSON escapes them', () => {
    expect(maskSecrets('a "x\\"y" b x"y', ['x"y'])).toBe('a "•••" b •••');
  });
});
