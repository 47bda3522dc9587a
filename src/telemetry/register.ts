/**
 * Starts the OpenTelemetry SDK before the application loads, so that what it
 * instruments is instrumented from the first import:
 *
 *   node --import ./src/telemetry/register.ts src/cli/main.ts serve
 *
 * Configured by the standard OTEL_* variables. Tracing is on only when
 * OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (or
 * OTEL_TRACES_EXPORTER names console/zipkin) and OTEL_SDK_DISABLED is not true;
 * otherwise nothing is loaded and every span call in the app is a no-op.
 * Only traces are exported over OTLP: metrics are scraped from /metrics
 * (Prometheus) and logs go to stdout as JSON.
 *
 * Library code never imports this file or the SDK: only @opentelemetry/api.
 */
import { readFileSync } from 'node:fs';
import { readTelemetrySettings, SettingsError, type TelemetrySettings } from '../config/settings.ts';
import { setTelemetryHandle } from './sdk-handle.ts';

let settings: TelemetrySettings;
try {
  settings = readTelemetrySettings(process.env);
} catch (err) {
  if (!(err instanceof SettingsError)) throw err;
  console.error(err.message);
  process.exit(1);
}

if (settings.tracing) {
  const [{ NodeSDK }, { UndiciInstrumentation }, { defaultResource, resourceFromAttributes }] =
    await Promise.all([
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/instrumentation-undici'),
      import('@opentelemetry/resources'),
    ]);
  const { backendClientAttributes } = await import('./tracing.ts');
  const { enableRedisSpans } = await import('./redis-spans.ts');
  const { createTraceExporter, exportsOtlpProtobuf } = await import('./otlp-trace-exporter.ts');

  const named =
    Boolean(process.env.OTEL_SERVICE_NAME) ||
    /(^|,)\s*service\.name=/.test(process.env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.version': packageVersion() })),
    // The SDK would otherwise name the service "unknown_service:node".
    ...(named ? {} : { serviceName: 'sculptor' }),
    // Traces only: no OTLP metrics or logs (Prometheus /metrics, JSON on stdout).
    metricReaders: [],
    logRecordProcessors: [],
    // OTLP/HTTP protobuf (the default): the same exporter, with a cheaper serializer.
    ...(exportsOtlpProtobuf(process.env) ? { traceExporter: createTraceExporter() } : {}),
    // A CLIENT span per backend call only when asked (SCULPTOR_TRACE_BACKEND_CALLS=true);
    // otherwise the gateway injects the trace context into backend calls itself
    // (tracing.ts, withTraceContext).
    instrumentations: settings.backendCallSpans
      ? [
          new UndiciInstrumentation({
            // Only backend calls made inside an invocation: no root spans of stray requests.
            requireParentforSpans: true,
            startSpanHook: (request) => backendClientAttributes(request),
          }),
        ]
      : [],
  });
  sdk.start();
  enableRedisSpans();
  setTelemetryHandle({
    tracing: true,
    reason: settings.reason,
    backendCallSpans: settings.backendCallSpans === true,
    shutdown: () => sdk.shutdown(),
  });
} else {
  setTelemetryHandle({ tracing: false, reason: settings.reason, shutdown: async () => {} });
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
