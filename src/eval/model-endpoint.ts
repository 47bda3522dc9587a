import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  PermissionDeniedError,
  RateLimitError,
} from 'openai';
import { SculptorError } from '../errors/sculptor-error.ts';
import { describeEndpoint, ENV, type EndpointConfig, maskSecrets } from './endpoint-config.ts';
import type { ChatTool } from './offered-tools.ts';

/**
 * The model under test, behind any OpenAI-compatible chat-completions endpoint (Ollama, vLLM,
 * LM Studio, llama.cpp's server, a hosted API). The client is the `openai` package: it is the
 * reference implementation of that wire format, kept by its authors as the API moves, and
 * brings the retry policy (429 and 5xx with backoff, honouring Retry-After) and the typed
 * errors this file turns into Sculptor's codes, so an endpoint that is down or refuses is an
 * error saying what to do, never a score of zero.
 */

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatRequest {
  messages: ChatMessage[];
  tools: ChatTool[];
  temperature: number;
  seed?: number;
}

export interface ModelAnswer {
  /** The assistant message, its tool calls' arguments as raw text. */
  content: string | null;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  promptTokens?: number;
  completionTokens?: number;
  latencyMs: number;
}

export interface ModelEndpoint {
  readonly config: EndpointConfig;
  complete(request: ChatRequest, signal?: AbortSignal): Promise<ModelAnswer>;
}

/**
 * Every request to the model goes through one fetch, which masks any secret Sculptor knows
 * (the endpoint's key, backend credentials) in the body before it leaves: a secret can reach a
 * prompt only through a tool result or a scenario, and is cut there whatever the route.
 */
export function createModelEndpoint(
  config: EndpointConfig,
  secrets: () => readonly string[] = () => [],
): ModelEndpoint {
  const known = () => [config.apiKey ?? '', ...secrets()].filter((s) => s.length >= 4);
  const client = new OpenAI({
    baseURL: config.baseUrl,
    // Always given, so the client never falls back to OPENAI_API_KEY, a hosted account's key.
    apiKey: config.apiKey ?? 'no-key',
    adminAPIKey: null,
    organization: null,
    project: null,
    timeout: config.timeoutMs,
    maxRetries: config.retries,
    fetch: async (url, init) => {
      const body = typeof init?.body === 'string' ? maskSecrets(init.body, known()) : init?.body;
      return fetch(url, { ...init, body });
    },
  });
  return {
    config,
    async complete(request, signal) {
      const started = performance.now();
      let raw: unknown;
      try {
        raw = await client.chat.completions.create(
          {
            model: config.model,
            messages: request.messages as OpenAI.Chat.ChatCompletionMessageParam[],
            tools: request.tools as OpenAI.Chat.ChatCompletionTool[],
            temperature: request.temperature,
            ...(request.seed !== undefined ? { seed: request.seed } : {}),
          },
          signal ? { signal } : undefined,
        );
      } catch (err) {
        throw endpointError(err, config, known());
      }
      return readAnswer(raw, performance.now() - started, config);
    },
  };
}

/** A chat completion, or `eval.endpoint_malformed` naming what is missing. */
function readAnswer(raw: unknown, latencyMs: number, config: EndpointConfig): ModelAnswer {
  const malformed = (what: string) =>
    new SculptorError(
      'eval.endpoint_malformed',
      `The endpoint at ${describeEndpoint(config)} answered, but not with a chat completion (${what}). Check that the URL ends in the API root (…/v1) of an OpenAI-compatible server.`,
    );
  if (typeof raw !== 'object' || raw === null) {
    throw malformed(typeof raw === 'string' ? 'the answer is not JSON' : 'the answer is empty');
  }
  const answer = raw as {
    choices?: unknown;
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
  };
  if (!Array.isArray(answer.choices) || answer.choices.length === 0) throw malformed('it has no choices');
  const message = (answer.choices[0] as { message?: unknown }).message;
  if (typeof message !== 'object' || message === null) throw malformed('its first choice has no message');
  const m = message as { content?: unknown; tool_calls?: unknown };
  if (m.tool_calls !== undefined && m.tool_calls !== null && !Array.isArray(m.tool_calls)) {
    throw malformed('tool_calls is not a list');
  }
  const toolCalls = ((m.tool_calls as unknown[] | null | undefined) ?? []).map((c, i) => {
    const call = c as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    if (typeof call?.function?.name !== 'string') throw malformed(`tool call ${i + 1} has no function name`);
    const args = call.function.arguments;
    return {
      id: typeof call.id === 'string' && call.id ? call.id : `call_${i + 1}`,
      name: call.function.name,
      // Some servers send an object where the API sends its JSON text: kept as text either way.
      arguments: typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args),
    };
  });
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined);
  const promptTokens = count(answer.usage?.prompt_tokens);
  const completionTokens = count(answer.usage?.completion_tokens);
  return {
    content: typeof m.content === 'string' ? m.content : null,
    toolCalls,
    ...(promptTokens !== undefined ? { promptTokens } : {}),
    ...(completionTokens !== undefined ? { completionTokens } : {}),
    latencyMs,
  };
}

/** The client's error as a Sculptor code, with what to do; the server's own words cut and masked. */
function endpointError(err: unknown, config: EndpointConfig, secrets: readonly string[]): SculptorError {
  const where = describeEndpoint(config);
  const said = (e: APIError) => {
    const body = e.error as { message?: unknown } | undefined;
    const text = typeof body?.message === 'string' ? body.message : '';
    return text ? `: "${maskSecrets(text, secrets).replace(/\s+/g, ' ').slice(0, 300)}"` : '';
  };
  if (err instanceof APIConnectionTimeoutError) {
    return new SculptorError(
      'eval.endpoint_unreachable',
      `The model endpoint at ${where} did not answer within ${config.timeoutMs / 1000} s. A local model may need longer on its first request (it loads): raise --timeout.`,
      { cause: err },
    );
  }
  if (err instanceof APIConnectionError) {
    return new SculptorError(
      'eval.endpoint_unreachable',
      `Cannot reach the model endpoint at ${where}. Start the server (e.g. \`ollama serve\`), or point ${ENV.url} at one that runs.`,
      { cause: err },
    );
  }
  if (err instanceof AuthenticationError || err instanceof PermissionDeniedError) {
    return new SculptorError(
      'eval.endpoint_refused',
      `The model endpoint at ${where} refused the request (${err.status})${said(err)}. Set ${ENV.key} to a key with access to the model '${config.model}'.`,
      { cause: err },
    );
  }
  if (err instanceof RateLimitError) {
    return new SculptorError(
      'eval.endpoint_rate_limited',
      `The model endpoint at ${where} is rate limiting (429) after ${config.retries} retries${said(err)}. Wait and run again, with fewer --repeat or more --retries.`,
      { cause: err },
    );
  }
  if (err instanceof APIError && err.status !== undefined) {
    return new SculptorError(
      'eval.endpoint_error',
      `The model endpoint at ${where} answered ${err.status}${said(err)}. Check the model name '${config.model}' (${ENV.model}) and that it supports tool calling.`,
      { cause: err },
    );
  }
  if (err instanceof SyntaxError) {
    return new SculptorError(
      'eval.endpoint_malformed',
      `The model endpoint at ${where} answered JSON that does not parse. Check that the URL is the API root (…/v1) of an OpenAI-compatible server.`,
      { cause: err },
    );
  }
  if (err instanceof Error && err.name === 'AbortError')
    return new SculptorError('request.cancelled', 'The evaluation was stopped.', { cause: err });
  return new SculptorError(
    'eval.endpoint_error',
    `The request to the model endpoint at ${where} failed (${err instanceof Error ? err.message : String(err)}).`,
    { cause: err },
  );
}
