import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as the OTLP/HTTP JSON export carries it, attributes flattened to a record. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  status: { code?: number; message?: string };
  resource: Record<string, unknown>;
  scope: string;
}

export interface OtlpReceiver {
  /** The OTEL_EXPORTER_OTLP_ENDPOINT to give the exporter: http://127.0.0.1:PORT */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Every request body received, as text, for scanning. */
  bodies: string[];
  contentTypes: string[];
  /** Resolves once `predicate` holds for the spans received, or rejects after `timeoutMs`. */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}

function valueOf(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  if (v.kvlistValue) return flatten(v.kvlistValue.values);
  return undefined;
}

function flatten(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

/**
 * A minimal OTLP/HTTP trace receiver on loopback: accepts the JSON encoding
 * (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) on POST /v1/traces and keeps the spans.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const contentTypes: string[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      bodies.push(text);
      contentTypes.push(String(req.headers['content-type']));
      if (req.method === 'POST' && req.url === '/v1/traces') {
        try {
          const body = JSON.parse(text) as {
            resourceSpans?: Array<{
              resource?: { attributes?: KeyValue[] };
              scopeSpans?: Array<{ scope?: { name?: string }; spans?: Array<Record<string, unknown>> }>;
            }>;
          };
          for (const rs of body.resourceSpans ?? []) {
            const resource = flatten(rs.resource?.attributes);
            for (const ss of rs.scopeSpans ?? []) {
              for (const s of ss.spans ?? []) {
                spans.push({
                  traceId: String(s.traceId),
                  spanId: String(s.spanId),
                  parentSpanId: String(s.parentSpanId ?? ''),
                  name: String(s.name),
                  kind: Number(s.kind),
                  attributes: flatten(s.attributes as KeyValue[]),
                  events: ((s.events as Array<{ name: string; attributes?: KeyValue[] }>) ?? []).map((e) => ({
                    name: e.name,
                    attributes: flatten(e.attributes),
                  })),
                  status: (s.status as ReceivedSpan['status']) ?? {},
                  resource,
                  scope: ss.scope?.name ?? '',
                });
              }
            }
          }
        } catch {
          // Not JSON (protobuf): kept in bodies only.
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    contentTypes,
    waitFor(predicate, timeoutMs = 10_000) {
      if (predicate(spans)) return Promise.resolve(spans);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`OTLP receiver: condition not met within ${timeoutMs} ms (${spans.length} spans)`),
          );
        }, timeoutMs);
        function check() {
          if (!predicate(spans)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(spans);
        }
        waiters.add(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
