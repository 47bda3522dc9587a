/**
 * CLIENT spans for Redis commands, from ioredis's own diagnostics tracing
 * channel (`ioredis:command`, ioredis ≥ 5.9). This works whatever the module
 * system: @opentelemetry/instrumentation-ioredis patches the module when it is
 * require()d, which never happens when the gateway (ESM) imports ioredis,
 * unless an import-in-the-middle loader hook is added for it.
 *
 * Only commands run inside a span (an invocation) are traced, so the
 * connection's own chatter (ready check, QUIT) makes no root spans.
 * Recorded: command name, server address and port, database index. Not
 * recorded: keys or arguments.
 */
import diagnostics from 'node:diagnostics_channel';
import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR, tracer } from './tracing.ts';

interface CommandMessage {
  command?: string;
  database?: number;
  serverAddress?: string;
  serverPort?: number;
  error?: unknown;
}

let unsubscribe: (() => void) | undefined;

export function enableRedisSpans(): () => void {
  if (unsubscribe) return unsubscribe;
  const channel = diagnostics.tracingChannel<CommandMessage, CommandMessage>('ioredis:command');
  const spans = new WeakMap<object, Span>();
  const finish = (message: CommandMessage): void => {
    const span = spans.get(message);
    if (!span) return;
    spans.delete(message);
    if (message.error !== undefined) {
      const err = message.error as { name?: string } | undefined;
      span.setAttribute(ATTR.errorType, typeof err?.name === 'string' ? err.name : 'error');
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
  const handlers = {
    start(message: CommandMessage) {
      const parent = context.active();
      if (!trace.getSpan(parent)) return;
      const operation = String(message.command ?? 'command').toUpperCase();
      const span = tracer().startSpan(
        operation,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'db.system.name': 'redis',
            'db.operation.name': operation,
            ...(message.database !== undefined ? { 'db.namespace': String(message.database) } : {}),
            ...(message.serverAddress ? { 'server.address': message.serverAddress } : {}),
            ...(message.serverPort ? { 'server.port': message.serverPort } : {}),
          },
        },
        parent,
      );
      spans.set(message, span);
    },
    // A command that threw synchronously gets `error` then `end`, and no asyncEnd.
    end(message: CommandMessage) {
      if (message.error !== undefined) finish(message);
    },
    asyncStart() {},
    asyncEnd: finish,
    error() {},
  };
  channel.subscribe(handlers);
  unsubscribe = () => {
    channel.unsubscribe(handlers);
    unsubscribe = undefined;
  };
  return unsubscribe;
}
