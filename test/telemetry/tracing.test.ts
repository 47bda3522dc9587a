import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/telemetry/logger.ts';
import { traceServerRequest } from '../../src/telemetry/server-span.ts';
import { backendUrlTemplate } from '../../src/engine/step-tracer.ts';
import { backendClientAttributes, redactQueryValues, traceStep } from '../../src/telemetry/tracing.ts';

const exporter = new InMemorySpanExporter();
const sdk = new NodeSDK({
  spanProcessors: [new SimpleSpanProcessor({ exporter })],
  metricReaders: [],
  logRecordProcessors: [],
  resourceDetectors: [],
});
beforeAll(() => sdk.start());
afterEach(() => exporter.reset());
afterAll(async () => {
  await sdk.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

describe('URL helpers', () => {
  it('builds a URL template from the redacted base URL and the operation path', () => {
    expect(backendUrlTemplate('https://api.weather.gov', '/points/{point}')).toBe(
      'https://api.weather.gov/points/{point}',
    );
    expect(backendUrlTemplate('https://u:pw@h.example/v2/?key=k#f', '/pet/{petId}')).toBe(
      'https://REDACTED:REDACTED@h.example/v2/pet/{petId}',
    );
    expect(backendUrlTemplate('not a url', '/x')).toBe('[unparseable URL]');
  });

  it('hides every query value and keeps the names', () => {
    expect(redactQueryValues('?city=Paris&api_key=k&flag')).toBe('?city=REDACTED&api_key=REDACTED&flag');
    expect(redactQueryValues('')).toBe('');
  });
});

describe('traceStep', () => {
  it('opens a child span with the step’s names, then its outcome, cache and status', async () => {
    const result = { outcome: 'error', cache: 'off' } as {
      outcome: string;
      cache: string;
      status?: number;
      errorCode?: string;
    };
    let inner: Record<string, unknown> | undefined;
    await trace.getTracer('t').startActiveSpan('parent', async (parent) => {
      await traceStep(
        {
          id: 'geo',
          backend: 'geocoder',
          operation: 'search',
          operationId: 'search',
          urlTemplate: 'https://g/v1/search',
        },
        result,
        async () => {
          inner = backendClientAttributes({ origin: 'https://g', path: '/v1/search?name=Omaha&key=secret' });
          Object.assign(result, { outcome: 'ok', cache: 'miss', status: 200 });
        },
      );
      parent.end();
    });
    const step = exporter.getFinishedSpans().find((s) => s.name === 'step geo')!;
    const parent = exporter.getFinishedSpans().find((s) => s.name === 'parent')!;
    expect(step.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(step.attributes).toEqual({
      'sculptor.step.id': 'geo',
      'sculptor.backend': 'geocoder',
      'sculptor.operation': 'search',
      'sculptor.operation.id': 'search',
      'url.template': 'https://g/v1/search',
      'sculptor.step.outcome': 'ok',
      'sculptor.cache': 'miss',
      'http.response.status_code': 200,
    });
    // Inside the step, the HTTP client span gets the template, not the real URL.
    expect(inner).toMatchObject({
      'url.full': 'https://g/v1/search?name=REDACTED&key=REDACTED',
      'url.template': 'https://g/v1/search',
      'sculptor.backend': 'geocoder',
    });
  });

  it('marks a failed step with its error code, never its message', async () => {
    const result = { outcome: 'error', cache: 'bypass', errorCode: 'upstream.timeout' };
    await expect(
      traceStep({ id: 's', backend: 'b', operation: 'o', urlTemplate: 'http://b/o' }, result, async () => {
        throw new Error('message quoting an LLM value');
      }),
    ).rejects.toThrow();
    const [span] = exporter.getFinishedSpans();
    expect(span!.attributes['error.type']).toBe('upstream.timeout');
    expect(span!.status.code).toBe(2);
    expect(JSON.stringify(span!.attributes)).not.toContain('LLM value');
    expect(span!.events).toEqual([]);
  });

  it('outside any step, a backend call’s URL keeps only origin and query names', () => {
    expect(backendClientAttributes({ origin: 'http://h:1', path: '/a/b?x=1' })['url.full']).toBe(
      'http://h:1/REDACTED?x=REDACTED',
    );
  });
});

describe('traceServerRequest', () => {
  it('continues a W3C traceparent and names the span by route template', async () => {
    const headers = new Headers({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    const status = await traceServerRequest(
      { method: 'post', route: '/a2t/tools/{toolId}:invoke', headers },
      async () => 503,
    );
    expect(status).toBe(503);
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).toBe('POST /a2t/tools/{toolId}:invoke');
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(span!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(span!.attributes).toEqual({
      'http.request.method': 'POST',
      'url.scheme': 'http',
      'http.route': '/a2t/tools/{toolId}:invoke',
      'http.response.status_code': 503,
      'error.type': '503',
    });
  });

  it('uses the method alone when no route matched, and does not mark a 4xx as an error', async () => {
    await traceServerRequest({ method: 'BREW', route: undefined, headers: new Headers() }, async () => 404);
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).toBe('HTTP');
    expect(span!.attributes['http.request.method']).toBe('_OTHER');
    expect(span!.status.code).toBe(0);
  });
});

describe('logger', () => {
  it('writes JSON lines carrying the active trace and span ids, redacted', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const { logger, redactor } = createLogger({ level: 'info', destination: sink });
    redactor.add(['very-secret-token']);
    logger.info('outside');
    let ids: { traceId: string; spanId: string } | undefined;
    trace.getTracer('t').startActiveSpan('s', (span) => {
      ids = span.spanContext();
      logger.info({ note: 'error from backend: very-secret-token', url: 'https://u:p@h/x' }, 'inside');
      logger.debug('below the level');
      span.end();
    });
    expect(lines).toHaveLength(2);
    const [outside, inside] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(outside).not.toHaveProperty('trace_id');
    expect(outside).toMatchObject({ level: 'info', service: 'sculptor', msg: 'outside' });
    expect(inside).toMatchObject({
      trace_id: ids!.traceId,
      span_id: ids!.spanId,
      note: 'error from backend: [REDACTED]',
      url: 'https://REDACTED:REDACTED@h/x',
    });
  });
});
