/**
 * Structured JSON logs (pino) on stdout, one object per line, each carrying
 * trace_id and span_id when a span is active. Every line passes through the
 * Redactor before it is written.
 */
import { type Logger, pino } from 'pino';
import { Redactor } from './redactor.ts';
import { activeTraceIds } from './tracing.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface GatewayLogger {
  logger: Logger;
  redactor: Redactor;
}

export interface LoggerOptions {
  level: LogLevel;
  /** Where lines go; stdout (fd 1, synchronous writes) by default. Tests pass a stream. */
  destination?: NodeJS.WritableStream | { write(line: string): unknown };
  redactor?: Redactor;
}

export function createLogger(options: LoggerOptions): GatewayLogger {
  const redactor = options.redactor ?? new Redactor();
  const destination = options.destination ?? pino.destination({ dest: 1, sync: true });
  const logger = pino(
    {
      level: options.level,
      base: { service: 'sculptor' },
      timestamp: isoTimeEachMs(),
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => activeTraceIds(),
      hooks: { streamWrite: (line) => redactor.redact(line) },
    },
    destination as pino.DestinationStream,
  );
  return { logger, redactor };
}

/**
 * pino's `stdTimeFunctions.isoTime`, with the text kept for the rest of its
 * millisecond: under load several lines share one, and Date#toISOString per
 * line showed in the bench profile. The same output.
 */
function isoTimeEachMs(): () => string {
  let ms = Number.NaN;
  let text = '';
  return () => {
    const now = Date.now();
    if (now !== ms) {
      ms = now;
      text = `,"time":"${new Date(now).toISOString()}"`;
    }
    return text;
  };
}

/**
 * What may be logged of an error: its class, code and message with secrets
 * and URL userinfo removed by the Redactor, and the stack frames (no values).
 */
export function describeError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { type: typeof err };
  const code = (err as { code?: unknown }).code;
  return {
    type: err.name,
    ...(typeof code === 'string' ? { code } : {}),
    message: err.message,
    stack: err.stack?.split('\n').slice(1, 12).join('\n'),
  };
}
