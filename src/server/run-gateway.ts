/**
 * The `serve` lifecycle of one gateway process: logs, crash handlers, start,
 * then on SIGTERM or SIGINT a bounded drain (RELIABILITY J1, J6) and exit 0.
 */
import type { Logger } from 'pino';
import type { Settings } from '../config/settings.ts';
import { createLogger, describeError } from '../telemetry/logger.ts';
import { shutdownTelemetry, telemetryHandle } from '../telemetry/sdk-handle.ts';
import { startGateway } from './start-gateway.ts';

/** Exit status after an uncaught exception or unhandled rejection (EX_SOFTWARE). */
export const CRASH_EXIT_CODE = 70;
/** Beyond SCULPTOR_DRAIN_MS, how long the rest of the shutdown may take before the process is ended. */
export const SHUTDOWN_MARGIN_MS = 1800;

export async function runGateway(
  settings: Settings,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  const log = createLogger({ level: settings.logLevel });
  const { logger } = log;
  installCrashHandlers(logger);

  const telemetry = telemetryHandle();
  const gateway = await startGateway({ settings, env, log, flush: () => shutdownTelemetry(1000) });
  logger.info(
    {
      event: 'serving',
      url: gateway.url,
      prefix: settings.prefix,
      tools: gateway.catalog().size,
      sculpts: settings.sculpts,
      cache: gateway.cache.kind,
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
  if (!settings.secretFromEnv) {
    logger.warn(
      { event: 'ephemeral_secret' },
      'SCULPTOR_SECRET is not set; paging cursors are valid on this process only',
    );
  }

  const signal = await new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
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
