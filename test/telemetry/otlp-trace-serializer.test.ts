import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Link, SpanKind, SpanStatusCode, TraceFlags, type Tracer } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { type ReadableSpan, type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { createTraceExporter, exportsOtlpProtobuf } from '../../src/telemetry/otlp-trace-exporter.ts';
import { TraceSerializer } from '../../src/telemetry/otlp-trace-serializer.ts';

/** Finished spans of real SDK tracers, kept for the serializers. */
function recorder(resource = resourceFromAttributes({ 'service.name': 'sculptor', 'host.name': 'h-é' })) {
  const spans: ReadableSpan[] = [];
  const processor: SpanProcessor = {
    onStart() {},
    onEnd: (span) => void spans.push(span),
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const provider = new TracerProvider({ resource, spanProcessors: [processor] });
  return {
    spans,
    provider,
    tracer: (name = 'sculptor', version?: string) => provider.getTracer(name, version),
  };
}

/** An invocation's spans as the gateway records them: SERVER, then execute_tool with the step folded in. */
function invocation(tracer: Tracer, callId: string, status = 200): void {
  tracer.startActiveSpan(
    'POST /tools/{toolId}:invoke',
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': 'POST',
        'url.scheme': 'http',
        'http.route': '/tools/{toolId}:invoke',
      },
    },
    (server) => {
      tracer.startActiveSpan(
        'execute_tool bench_forecast',
        {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'bench_forecast',
            'gen_ai.tool.call.id': callId,
            'sculptor.tool.version': 1,
          },
        },
        (span) => {
          span.setAttributes({
            'sculptor.step.id': 'forecast',
            'url.template': 'http://127.0.0.1:9/gridpoints/{wfo}/{x},{y}/forecast',
            'http.response.status_code': status,
          });
          span.end();
        },
      );
      server.setAttribute('http.response.status_code', status);
      server.end();
    },
  );
}

const sdkBytes = (spans: ReadableSpan[]) => Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);

describe('TraceSerializer', () => {
  it('writes the bytes the SDK’s protobuf serializer writes, for every kind of span content', () => {
    const { spans, tracer } = recorder();
    const other = recorder(resourceFromAttributes({ 'service.name': 'other' }));
    const link: Link = {
      context: {
        traceId: 'ABCDEF0123456789abcdef0123456789',
        spanId: '0123456789abcdef',
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
        traceState: new TraceState('a=1,b=2'),
      },
      attributes: { why: 'retry' },
    };
    const t = tracer();
    t.startActiveSpan('root', { kind: SpanKind.CLIENT, links: [link] }, (root) => {
      root.setAttributes({
        ascii: 'plain',
        accents: 'café — ünïcode',
        emoji: '🌤 sunny',
        lone: '\ud800 half',
        long: 'x'.repeat(300),
        empty: '',
        int: 42,
        negative: -7,
        big: 2 ** 40,
        huge: 2 ** 63,
        double: 1.5,
        nan: Number.NaN,
        yes: true,
        no: false,
        strings: ['a', 'é'],
        numbers: [1, 2.5, -3],
        mixed: [true, null as unknown as string],
      });
      root.addEvent('exception', { 'exception.type': 'Error', count: 3 });
      root.addEvent('bare');
      root.setStatus({ code: SpanStatusCode.ERROR, message: 'déjà vu' });
      root.end();
    });
    invocation(t, '7d4b8e1e-0000-4000-8000-000000000001');
    tracer('@opentelemetry/instrumentation-undici', '0.34.0')
      .startSpan('GET', { kind: SpanKind.CLIENT })
      .end();
    other.tracer().startSpan('elsewhere', { kind: SpanKind.PRODUCER }).end();
    const batch = [...spans, ...other.spans, ...spans];

    const serializer = new TraceSerializer();
    expect(Buffer.from(serializer.serialize(batch)).equals(sdkBytes(batch))).toBe(true);
    // Again, the attributes now copied from the cache.
    expect(serializer.cachedAttributes).toBeGreaterThan(10);
    expect(Buffer.from(serializer.serialize(batch)).equals(sdkBytes(batch))).toBe(true);
  });

  it('handles lengths past one varint byte at every level (a batch of 512 invocations)', () => {
    const { spans, tracer } = recorder();
    for (let i = 0; i < 512; i++) invocation(tracer(), `call-${i}`, i % 7 === 0 ? 502 : 200);
    const serializer = new TraceSerializer();
    const bytes = Buffer.from(serializer.serialize(spans));
    expect(bytes.length).toBeGreaterThan(16384 * 8);
    expect(bytes.equals(sdkBytes(spans))).toBe(true);
  });

  it('stops caching an attribute with many distinct values (a call id), and still writes it right', () => {
    const { spans, tracer } = recorder();
    for (let i = 0; i < 100; i++) invocation(tracer(), `call-${i}`);
    const serializer = new TraceSerializer();
    serializer.serialize(spans.slice(0, 2));
    const afterOne = serializer.cachedAttributes;
    expect(Buffer.from(serializer.serialize(spans)).equals(sdkBytes(spans))).toBe(true);
    // Every attribute but the call id is the same in each invocation: the call id's entries were dropped.
    expect(serializer.cachedAttributes).toBe(afterOne - 1);
  });
});

describe('exportsOtlpProtobuf', () => {
  it('takes over only OTLP over HTTP in protobuf, the SDK’s default', () => {
    expect(exportsOtlpProtobuf({})).toBe(true);
    expect(
      exportsOtlpProtobuf({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }),
    ).toBe(true);
    expect(exportsOtlpProtobuf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe(false);
    expect(exportsOtlpProtobuf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBe(false);
    expect(
      exportsOtlpProtobuf({
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }),
    ).toBe(true);
    expect(exportsOtlpProtobuf({ OTEL_TRACES_EXPORTER: 'console' })).toBe(false);
    expect(exportsOtlpProtobuf({ OTEL_TRACES_EXPORTER: 'otlp,zipkin' })).toBe(false);
  });
});

describe('createTraceExporter', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('posts the batch to the configured endpoint with its headers, as the SDK’s exporter does', async () => {
    const received: Array<{ url?: string; type?: string; auth?: string; body: Buffer }> = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          url: req.url,
          type: req.headers['content-type'],
          auth: req.headers.authorization,
          body: Buffer.concat(chunks),
        });
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${port}`;
      process.env.OTEL_EXPORTER_OTLP_HEADERS = 'authorization=Bearer collector-token';
      const exporter = createTraceExporter();
      const { spans, tracer } = recorder();
      invocation(tracer(), 'call-1');
      const result = await new Promise<{ code: number; error?: Error }>((resolve) =>
        exporter.export(spans, resolve),
      );
      expect(result.error).toBeUndefined();
      expect(result.code).toBe(0);
      expect(received).toHaveLength(1);
      expect(received[0]!.url).toBe('/v1/traces');
      expect(received[0]!.type).toBe('application/x-protobuf');
      expect(received[0]!.auth).toBe('Bearer collector-token');
      expect(received[0]!.body.equals(sdkBytes(spans))).toBe(true);
      await exporter.shutdown();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
