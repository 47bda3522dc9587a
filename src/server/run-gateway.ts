/**
 * The `serve` lifecycle of one gateway process: logs, crash handlers, start,
 * reloads on SIGHUP (and on change with SCULPTOR_RELOAD_ON_CHANGE), then on
 * SIGTERM or SIGINT a bounded drain (RELIABILITY J1, J6) and exit 0.
 */
import { type DiagLogger, DiagLogLevel, diag } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { Settings } from '../config/settings.ts';
import { createLogger, describeError } from '../telemetry/logger.ts';
import { shutdownTelemetry, telemetryHandle } from '../telemetry/sdk-handle.ts';
import { startReloads } from './reload-gateway.ts';
import { type GatewayOptions, startGateway } from './start-gateway.ts';
import { stopSignal } from './stop-signal.ts';

/** Exit status after an uncaught exception or unhandled rejection (EX_SOFTWARE). */
export const CRASH_EXIT_CODE = 70;
/** Beyond SCULPTOR_DRAIN_MS, how long the rest of the shutdown may take before the process is ended. */
export const SHUTDOWN_MARGIN_MS = 1800;

export async function runGateway(
  settings: Settings,
  env: Readonly<Record<string, string | undefined>> = process.env,
  mounts: GatewayOptions['mounts'] = [],
): Promise<number> {
  const log = createLogger({ level: settings.logLevel });
  const { logger } = log;
  installCrashHandlers(logger);
  // The exporter's own credentials (OTEL_EXPORTER_OTLP_HEADERS: "api-key=…") are secrets too.
  log.redactor.add(otlpHeaderValues(env));
  // SDK warnings and errors (a collector that refuses exports, say) as JSON log lines,
  // unless OTEL_LOG_LEVEL asked for the SDK's own console logger.
  if (!env.OTEL_LOG_LEVEL) {
    diag.setLogger(diagToLog(logger), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  }

  const telemetry = telemetryHandle();
  const gateway = await startGateway({
    settings,
    env,
    log,
    flush: () => shutdownTelemetry(1000),
    mounts,
  });
  const reloads = startReloads(gateway, settings, logger);
  await reloads.ready;
  // Listened for before saying "serving" (stop-signal.ts).
  const stopped = stopSignal();
  logger.info(
    {
      event: 'serving',
      url: gateway.url,
      prefix: settings.prefix,
      tools: gateway.catalog().size,
      sculpts: settings.sculpts,
      cache: gateway.cache.kind,
      callers: settings.callers ?? null,
      generation: gateway.generation,
      reload_on_change: settings.reloadOnChange,
      tracing: telemetry?.tracing ?? false,
      tracing_reason: telemetry?.reason ?? 'started without --import ./src/telemetry/register.ts',
    },
    'serving',
  );
  if (!telemetry && (env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) {
    logger.warn(
      { event: 'tracing_not_loaded' },
      'an OTLP endpoint is set but the process was not started with --import ./src/telemetry/register.ts: no traces are exported',
    );
  }
  if (!settings.callers) {
    logger.warn(
      { event: 'no_caller_authentication' },
      'SCULPTOR_CALLERS is not set: every request is served as one anonymous tenant, unauthenticated; set it before exposing the gateway',
    );
  }
  if (!settings.secretFromEnv) {
    logger.warn(
      { event: 'ephemeral_secret' },
      'SCULPTOR_SECRET is not set; paging cursors are valid on this process only',
    );
  }

  const signal = await stopped;
  reloads.close();
  logger.info({ event: 'draining', signal, drain_ms: settings.drainMs }, 'draining');
  // A second signal, or a shutdown that overruns its budget, ends the process at once.
  const force = (reason: string) => () => {
    logger.error({ event: 'forced_exit', reason }, 'shutdown cut short');
    process.exit(1);
  };
  process.once('SIGTERM', force('second SIGTERM'));
  process.once('SIGINT', force('second SIGINT'));
  const watchdog = setTimeout(force('shutdown overran'), settings.drainMs + SHUTDOWN_MARGIN_MS);
  watchdog.unref();
  await gateway.close();
  clearTimeout(watchdog);
  logger.info({ event: 'stopped' }, 'stopped');
  return 0;
}

/**
 * An uncaught exception or unhandled rejection leaves the process in an
 * unknown state: log it (redacted, through the logger) and exit non-zero so
 * the orchestrator restarts a clean one (RELIABILITY J6).
 */
export function installCrashHandlers(logger: Logger, exit: (code: number) => void = process.exit): void {
  process.on('uncaughtException', (err, origin) => {
    logger.fatal({ event: 'crash', origin, err: describeError(err) }, 'uncaught exception');
    exit(CRASH_EXIT_CODE);
  });
  process.on('unhandledRejection', (reason) => {
    logger.fatal(
      { event: 'crash', origin: 'unhandledRejection', err: describeError(reason) },
      'unhandled rejection',
    );
    exit(CRASH_EXIT_CODE);
  });
}

/** The values of OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_TRACES_HEADERS (`k=v,k2=v2`). */
export function otlpHeaderValues(env: Readonly<Record<string, string | undefined>>): string[] {
  return [env.OTEL_EXPORTER_OTLP_HEADERS, env.OTEL_EXPORTER_OTLP_TRACES_HEADERS].flatMap((text) =>
    (text ?? '').split(',').flatMap((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return [];
      const value = pair.slice(eq + 1).trim();
      try {
        return [value, decodeURIComponent(value)];
      } catch {
        return [value];
      }
    }),
  );
}

/**
 * OpenTelemetry's diagnostic messages as `otel_diag` log lines: the first line
 * of the message (an exporter error arrives as a JSON-encoded error with its
 * stack), capped, and redacted like every line.
 */
function diagToLog(logger: Logger): DiagLogger {
  const text = (message: string, args: unknown[]): string => {
    let first = message;
    try {
      const parsed = JSON.parse(message) as { message?: unknown; stack?: unknown };
      first = String(parsed.message ?? parsed.stack ?? message);
    } catch {
      // not JSON
    }
    const extra = args.map((a) => (a instanceof Error ? `${a.name}: ${a.message}` : String(a))).join(' ');
    return `${first.split('\n')[0]} ${extra}`.trim().slice(0, 500);
  };
  const line =
    (level: 'error' | 'warn' | 'info' | 'debug' | 'trace') =>
    (message: string, ...args: unknown[]) =>
      logger[level]({ event: 'otel_diag' }, `opentelemetry: ${text(message, args)}`);
  return {
    error: line('error'),
    warn: line('warn'),
    info: line('info'),
    debug: line('debug'),
    verbose: line('trace'),
  };
}
