/**
 * The MCP face's telemetry: the `tools/call {tool}` span with the MCP semantic conventions, the
 * trace context read from `_meta` as well as from headers, execute_tool (a one-step tool's step folded
 * into it) nested under it, and /metrics counting invocations by face.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadRecordings, startReplayServer } from '../../../src/replay/index.ts';
import { replayEnv } from '../../../src/testing/index.ts';
import { invoke, startTestGateway } from '../../support/start-test-gateway.ts';
import { httpClient } from './mcp-client.ts';

const exporter = new InMemorySpanExporter();
const sdk = new NodeSDK({
  spanProcessors: [new SimpleSpanProcessor({ exporter })],
  metricReaders: [],
  logRecordProcessors: [],
  resourceDetectors: [],
});

const SCULPTS = 'sculpts/petstore';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
let replay: Awaited<ReturnType<typeof startReplayServer>>;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let client: Client;

beforeAll(async () => {
  sdk.start();
  replay = await startReplayServer(await loadRecordings(['sculpts/petstore/recordings/petstore-v2.har']));
  gateway = await startTestGateway(SCULPTS, await replayEnv(SCULPTS, replay.url));
  client = await httpClient(`${gateway.url}/mcp`, '2026-07-28');
});
beforeEach(() => exporter.reset());
afterAll(async () => {
  await client?.close();
  await gateway?.close();
  await replay?.close();
  await sdk.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

describe('MCP telemetry', () => {
  it('names the call span tools/call {tool}, with the MCP attributes; execute_tool nests under it', async () => {
    await client.callTool({ name: 'describe_pet', arguments: { pet_number: 10 } });
    const spans = exporter.getFinishedSpans();
    const call = spans.find((s) => s.name === 'tools/call describe_pet')!;
    expect(call).toBeDefined();
    expect(call.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'describe_pet',
      'gen_ai.operation.name': 'execute_tool',
    });
    expect(call.attributes['jsonrpc.request.id']).toEqual(expect.any(String));
    const execute = spans.find((s) => s.name === 'execute_tool describe_pet')!;
    expect(execute.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    // describe_pet has one step: folded into execute_tool, its attributes on it.
    expect(execute.attributes).toMatchObject({ 'sculptor.step.id': 'pet' });
    expect(spans.filter((s) => s.name.startsWith('step '))).toHaveLength(0);
    // And under the HTTP server span of POST /mcp, which continues the request's headers.
    const server = spans.find((s) => s.name === 'POST /mcp')!;
    expect(call.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
  });

  it('continues the trace context the client put in _meta, and marks a tool error', async () => {
    const result = await client.callTool({
      name: 'describe_pet',
      arguments: { pet_number: 424242 },
      _meta: { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` },
    });
    expect(result.isError).toBe(true);
    const call = exporter.getFinishedSpans().find((s) => s.name === 'tools/call describe_pet')!;
    expect(call.spanContext().traceId).toBe(TRACE_ID);
    expect(call.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(call.attributes['error.type']).toBe('tool.error');
  });

  it('counts invocations by face on /metrics', async () => {
    await client.callTool({ name: 'describe_pet', arguments: { pet_number: 10 } });
    const a2t = await fetch(`${gateway.url}/tools`).then(
      (r) => r.json() as Promise<{ items: Array<{ toolId: string; name: string }> }>,
    );
    const id = a2t.items.find((t) => t.name === 'describe_pet')!.toolId;
    await invoke(gateway.url, `/tools/${id}:invoke`, {
      name: 'describe_pet',
      input_parameters: [{ name: 'pet_number', value: 10 }],
    });
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(text).toMatch(/sculptor_face_invocations_total\{face="mcp",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/sculptor_face_invocations_total\{face="a2t",outcome="ok"\} 1\b/);
    // The existing series are unchanged.
    expect(text).toMatch(/sculptor_invocations_total\{tool="describe_pet",version="1",outcome="ok"\}/);
  });
});
