/**
 * The seam between the OpenTelemetry SDK, started by register.ts before the
 * application loads, and the application, which only knows
 * @opentelemetry/api. register.ts leaves a handle here; the shutdown path
 * flushes through it without importing the SDK.
 */
export interface TelemetryHandle {
  /** Why tracing is on or off ("an OTLP endpoint is set", …). */
  reason: string;
  tracing: boolean;
  /** Whether backend calls get an HTTP CLIENT span of their own (SCULPTOR_TRACE_BACKEND_CALLS). */
  backendCallSpans?: boolean;
  /** Exports what is buffered and stops the SDK. */
  shutdown(): Promise<void>;
}

const KEY = Symbol.for('sculptor.telemetry');

type WithHandle = typeof globalThis & { [KEY]?: TelemetryHandle };

export function setTelemetryHandle(handle: TelemetryHandle): void {
  (globalThis as WithHandle)[KEY] = handle;
}

/** The handle register.ts left, or undefined when the process was started without it. */
export function telemetryHandle(): TelemetryHandle | undefined {
  return (globalThis as WithHandle)[KEY];
}

/**
 * Flushes and stops the SDK, waiting at most `timeoutMs` (RELIABILITY I6: the
 * flush is bounded so shutdown fits the container's grace period). Never throws.
 */
export async function shutdownTelemetry(timeoutMs: number): Promise<'done' | 'timeout' | 'none' | 'failed'> {
  const handle = telemetryHandle();
  if (!handle) return 'none';
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      handle.shutdown().then(() => 'done' as const),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      }),
    ]);
  } catch {
    return 'failed';
  } finally {
    clearTimeout(timer);
  }
}
