/**
 * The OTLP/HTTP protobuf trace exporter the SDK would make from the OTEL_EXPORTER_OTLP_* variables
 * (endpoint, headers, timeout, compression: the same configuration code), with the gateway's
 * serializer (otlp-trace-serializer.ts: the same bytes for less CPU) in place of the SDK's.
 */
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer, TraceExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { TraceSerializer } from './otlp-trace-serializer.ts';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Whether the SDK would export traces with OTLP over HTTP in protobuf, the case this exporter
 * replaces: OTEL_TRACES_EXPORTER unset or `otlp` alone, the protocol (traces-specific first)
 * unset or `http/protobuf`. Any other set-up is left to the SDK.
 */
export function exportsOtlpProtobuf(env: Env): boolean {
  const exporters = [
    ...new Set(
      (env.OTEL_TRACES_EXPORTER ?? '')
        .split(',')
        .map((e) => e.trim())
        .filter((e) => e !== '' && e !== 'null'),
    ),
  ];
  if (exporters.length > 1 || (exporters.length === 1 && exporters[0] !== 'otlp')) return false;
  const protocol =
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() ||
    env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() ||
    'http/protobuf';
  return protocol === 'http/protobuf';
}

export function createTraceExporter(): OTLPExporterBase<ReadableSpan[]> {
  const serializer = new TraceSerializer();
  return new OTLPExporterBase(
    createOtlpHttpExportDelegate(
      convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
      {
        serializeRequest: (spans: ReadableSpan[]) => serializer.serialize(spans),
        deserializeResponse: (data: Uint8Array) => ProtobufTraceSerializer.deserializeResponse(data),
      },
      'otlp_http_span_exporter',
      TraceExporterMetricsHelper,
      undefined,
    ),
  );
}
