import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { CacheStore } from '../cache/cache-store.ts';
import { createMemoryStore } from '../cache/memory-store.ts';
import { createRedisStore } from '../cache/redis-store.ts';
import { type CallerDirectory } from '../callers/load-callers.ts';
import { createQuotaCheck } from '../callers/quotas.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { pageCursors } from '../catalog/page-cursor.ts';
import type { Settings } from '../config/settings.ts';
import type { Engine, InvocationReport } from '../engine/invoke-tool.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import { createA2tFace } from '../faces/a2t/a2t-face.ts';
import { createA2tLiteFace } from '../faces/a2t-lite/lite-face.ts';
import { createOpenApiFace } from '../faces/openapi/openapi-face.ts';
import { createMcpFace } from '../faces/mcp/mcp-face.ts';
import type { Face, FaceOptions } from '../faces/shared/face.ts';
import { hasDotSegment, rawPath } from '../faces/shared/raw-path.ts';
import { describeError, type GatewayLogger } from '../telemetry/logger.ts';
import { createMetrics, type GatewayMetrics } from '../telemetry/metrics.ts';
import { redisSecrets } from '../cache/redis-connection.ts';
import { traceMcpCall } from '../telemetry/mcp-span.ts';
import { traceServerRequest } from '../telemetry/server-span.ts';
import { tracingActive } from '../telemetry/tracing.ts';
import { createCallerConcurrency } from './caller-concurrency.ts';
import { createCore } from './create-core.ts';
import { loadCatalog } from './load-catalog.ts';
import { createLoadShedder } from './load-shedder.ts';
import { createInvocationGate } from './invocation-gate.ts';
import { createSharedRateLimiter } from './rate-limiter.ts';

export interface ReloadOptions {
  /**
   * Whether the sculpts changed while this reload read them (watchSculpts' `changedSince`): a
   * failure is then not counted as a refused reload — the reload that change triggers decides.
   */
  superseded?: () => boolean;
}

export interface Gateway {
  url: string;
  catalog: () => Catalog;
  /**
   * Recompiles the sculpts (checked against `sculptor.lock.json`) and reloads
   * the callers file, and swaps both atomically: requests already running
   * finish with the tool they started with. On errors it throws
   * SculptLoadError and the gateway keeps serving the last good catalog.
   * Counted in /metrics either way.
   */
  reload(options?: ReloadOptions): Promise<Catalog>;
  /** The catalog served: 1 as loaded at start, one more per reload that replaced it. */
  readonly generation: number;
  cache: CacheStore;
  metrics: GatewayMetrics;
  /** Whether close() has begun: /readyz answers 503 from that moment. */
  readonly draining: boolean;
  /**
   * Drains and stops (RELIABILITY J1): readiness 503 and no new connections
   * at once; in-flight requests may finish for `drainMs`; those still running
   * then are aborted and answer 503 gateway.draining; then every connection,
   * the backend pool, the cache store and `flush` are closed, each bounded.
   */
  close(): Promise<void>;
}

export interface GatewayOptions {
  settings: Settings;
  env?: Readonly<Record<string, string | undefined>>;
  onInvocation?: (report: InvocationReport) => void;
  /** Structured logs; none when absent (in-process tests). */
  log?: GatewayLogger;
  /** Runs at the end of close(), beside the other closes, e.g. the OpenTelemetry exporter flush. */
  flush?: () => Promise<unknown>;
  /** Apps answered before the faces (`serve --studio`: the Studio under /studio), given the callers in force. */
  mounts?: ReadonlyArray<(callers: () => CallerDirectory | undefined) => Hono>;
}

/** Paths answered outside the A2T face: no server span, no drain refusal, no log line. */
const OPERATIONAL_PATHS = new Set(['/livez', '/readyz', '/metrics']);

/** Listening addresses that only this machine can reach: the MCP face then checks Host too. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** After the drain deadline, how long aborted requests get to send their 503. */
const ABORT_GRACE_MS = 500;
/** Bounds on closing the backend pool and flushing telemetry at shutdown. */
const CLIENT_CLOSE_MS = 500;
const FLUSH_MS = 1000;

/**
 * The composition root: compile the sculpts once, then wire catalog, engine,
 * cache, telemetry and faces, and listen. Refuses to start when any sculpt has errors.
 */
export async function startGateway({
  settings,
  env = process.env,
  onInvocation,
  log,
  flush,
  mounts = [],
}: GatewayOptions): Promise<Gateway> {
  const logger: Logger | undefined = log?.logger;
  const redactor = log?.redactor;
  redactor?.add([...(settings.secretFromEnv ? [settings.secret] : []), ...redisSecrets(settings.redisUrl)]);
  const compile = () =>
    loadCatalog(settings, env, { ...(logger ? { logger } : {}), ...(redactor ? { redactor } : {}) });
  let { catalog, callers } = await compile();
  let generation = 1;
  let draining = false;

  const store = settings.redisUrl
    ? createRedisStore(settings.redisUrl, {
        onError: (err) =>
          logger?.warn({ event: 'cache_store_error', err: describeError(err) }, 'cache store error'),
      })
    : createMemoryStore();
  const metrics = createMetrics({
    // A spread: the stats interface has no index signature, the object literal does.
    cacheStore: () => ({ ...store.stats() }),
    stepCache: () => ({ integrityViolations: core.stepCache.stats().integrityViolations }),
  });
  metrics.catalogLoaded('start', generation);
  const drain = new AbortController();
  const core = createCore({
    secret: settings.secret,
    store,
    // Retries, breaker and concurrency cap per backend origin (RELIABILITY C1-C8).
    resilience: true,
    allowPrivateEgress: settings.allowPrivateEgress,
    maxBackendCalls: settings.maxBackendCalls,
    drain: drain.signal,
    instrument: { metrics, ...(logger ? { logger } : {}) },
  });
  const engine = core.engine;

  // Event-loop protection (RELIABILITY C10): shed invocations while the loop lags.
  const shedder = createLoadShedder({
    thresholdMs: settings.shedLagMs,
    onShedding: (lagMs) =>
      logger?.warn({ event: 'overloaded', lag_ms: lagMs }, 'event loop lagging: shedding invocations'),
  });

  // Per-caller rate limit on invocations (RELIABILITY A7), shared by the replicas through Redis
  // when there is one (issue #20); off unless SCULPTOR_RATE_LIMIT_PER_S is set.
  const limiter =
    settings.rateLimitPerS > 0
      ? createSharedRateLimiter(store, { ratePerS: settings.rateLimitPerS, burst: settings.rateLimitBurst })
      : undefined;

  // One gate for every face: a caller's rate and concurrency are the same whatever protocol it speaks.
  const admit = createInvocationGate({
    shedder,
    limiter,
    // Per-caller concurrency cap (issue #13): one caller's slow invocations cannot fill the
    // per-origin bulkheads and starve the others; SCULPTOR_MAX_INFLIGHT_PER_CALLER, 0 = off.
    ...(settings.maxInflightPerCaller > 0
      ? { slots: createCallerConcurrency({ maxPerCaller: settings.maxInflightPerCaller }) }
      : {}),
    callersConfigured: Boolean(settings.callers),
  });
  // Per-tenant quotas, shared by the replicas through the same store (issue #20).
  const quotas = createQuotaCheck(store, settings.secret);
  const cursors = pageCursors(settings.secret);

  // What every face is given; each gets the engine under its own name (metrics by face).
  const given: Omit<FaceOptions, 'engine'> = {
    catalog: () => catalog,
    callers: () => callers,
    quotas,
    admit,
    prefix: settings.prefix,
    ...(onInvocation ? { onInvocation } : {}),
  };
  // The faces, in the order their paths are tried; the first is also the server's own voice for
  // paths no face owns (A2T: problem+json).
  const faces: Face[] = [
    createA2tFace({ ...given, engine: throughFace(engine, 'a2t'), cursors }),
    // a2t-lite under {platform-root}/lite (its GET /tools has another shape than A2T's), and
    // the gateway's own OpenAPI document, docs page and typed operations (issue #16).
    createA2tLiteFace({ ...given, engine: throughFace(engine, 'a2t-lite') }),
    createOpenApiFace({ ...given, engine: throughFace(engine, 'openapi') }),
    createMcpFace({
      ...given,
      engine: throughFace(engine, 'mcp'),
      cursors,
      allowedHosts: settings.mcpAllowedHosts,
      loopbackOnly: LOOPBACK.has(settings.host),
      traceCall: traceMcpCall,
      onError: (err) => logger?.debug({ event: 'mcp_error', err: describeError(err) }, 'mcp request refused'),
    }),
  ];
  const primary = faces[0]!;
  /** The face a raw path belongs to, and its route template (for the span name). */
  const routed = (path: string): { face: Face; route: string | undefined } => {
    for (const face of faces) {
      const route = face.routeOf(path);
      if (route !== undefined) return { face, route };
    }
    return { face: primary, route: undefined };
  };

  const app = new Hono();
  /**
   * One middleware for what the server decides before any face (issue #18: each middleware
   * costs Hono a compose step per request, measurable on the single operation):
   * - routes match the raw path (issue #13 F7): a dot segment would be resolved by URL parsing,
   *   so a proxy's path rules and this route table would disagree on what was asked. Refused;
   * - liveness, readiness and metrics are answered even while draining, and have no span;
   * - while draining every other request is refused (503 gateway.draining, in its face's form);
   * - with an SDK, the request's SERVER span, named by its face's route template.
   */
  app.use('*', async (c, next) => {
    const raw = rawPath(c);
    if (hasDotSegment(raw)) {
      return routed(raw).face.refuse(
        c,
        new SculptorError(
          'request.malformed',
          "The path has a '.' or '..' segment (percent-encoded or not); send the resource's path as it is, without dot segments.",
        ),
      );
    }
    if (OPERATIONAL_PATHS.has(raw)) return next();
    if (draining) {
      return routed(raw).face.refuse(
        c,
        new SculptorError('gateway.draining', 'The gateway is shutting down; retry.'),
      );
    }
    // No SDK, no span: nothing here would be read (see tracingActive).
    if (!tracingActive()) return next();
    await traceServerRequest(
      { method: c.req.method, route: routed(raw).route, headers: c.req.raw.headers },
      async () => {
        await next();
        return c.res.status;
      },
    );
  });
  // Liveness answers from the event loop alone; readiness never depends on
  // Redis or backends, so a shared outage cannot empty the pool (RELIABILITY J3/J4).
  app.get('/livez', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => {
    if (draining) return c.json({ status: 'draining' }, 503);
    if (shedder.overloaded()) return c.json({ status: 'overloaded' }, 503);
    return c.json({ status: 'ready', tools: catalog.size });
  });
  app.get('/metrics', async (c) =>
    c.body(await metrics.render(), 200, { 'content-type': metrics.contentType }),
  );
  const callersInForce = () => callers;
  for (const mount of mounts) app.route('/', mount(callersInForce));
  for (const face of faces) app.route('/', face.app);
  app.notFound((c) => primary.refuse(c, new SculptorError('request.not_found', 'Not found.')));

  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve(
      {
        fetch: app.fetch,
        port: settings.port,
        hostname: settings.host,
        // Slow clients cannot hold sockets forever (RELIABILITY A2/A3).
        serverOptions: {
          requestTimeout: settings.requestTimeoutMs,
          headersTimeout: settings.headersTimeoutMs,
          // Node checks both timeouts only this often (default 30 s, which let a
          // slow head live 30 s whatever headersTimeout said): check 4× per timeout.
          connectionsCheckingInterval: Math.max(50, Math.min(1_000, settings.headersTimeoutMs / 4)),
          keepAliveTimeout: 5_000,
          maxHeaderSize: 16_384,
        },
      },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  if ('maxHeadersCount' in server) server.maxHeadersCount = 100;

  // Requests whose response is not finished yet: the drain waits for these.
  let inFlight = 0;
  let idle: (() => void) | undefined;
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    res.once('close', () => {
      inFlight--;
      if (inFlight === 0) idle?.();
    });
  });
  const settled = (ms: number): Promise<void> =>
    inFlight === 0
      ? Promise.resolve()
      : new Promise((resolve) => {
          const timer = setTimeout(done, ms);
          function done() {
            clearTimeout(timer);
            idle = undefined;
            resolve();
          }
          idle = done;
        });

  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;

  return {
    url: `http://${host}:${address.port}`,
    catalog: () => catalog,
    async reload(options = {}) {
      let next: Awaited<ReturnType<typeof compile>>;
      try {
        next = await compile();
      } catch (err) {
        if (!options.superseded?.()) metrics.catalogLoaded('refused', generation);
        throw err;
      }
      // Sculpts and callers are swapped together, so a request never sees one without the other.
      ({ catalog, callers } = next);
      metrics.catalogLoaded('ok', ++generation);
      for (const face of faces) face.catalogChanged?.();
      return catalog;
    },
    get generation() {
      return generation;
    },
    cache: store,
    metrics,
    get draining() {
      return draining;
    },
    close() {
      closing ??= (async () => {
        draining = true;
        shedder.close();
        const started = performance.now();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        if ('closeIdleConnections' in server) server.closeIdleConnections();
        await settled(settings.drainMs);
        const aborted = inFlight;
        if (aborted > 0) {
          drain.abort(new SculptorError('gateway.draining', 'The gateway is shutting down; retry.'));
          // Streams a face holds open (MCP subscriptions/listen) end here rather than being cut.
          await Promise.allSettled(
            faces.map((face) => within(face.close?.() ?? Promise.resolve(), CLIENT_CLOSE_MS)),
          );
          await settled(ABORT_GRACE_MS);
        }
        if ('closeAllConnections' in server) server.closeAllConnections();
        await closed;
        logger?.info(
          { event: 'drained', drain_ms: Math.round(performance.now() - started), aborted },
          'drained',
        );
        await Promise.allSettled([
          within(core.client.close(), CLIENT_CLOSE_MS),
          store.close(),
          ...(flush ? [within(flush(), FLUSH_MS)] : []),
        ]);
      })();
      return closing;
    },
  };
}

/** The engine as one face sees it: its invocations say which face they came through (metrics by face). */
function throughFace(engine: Engine, face: string): Engine {
  return { invoke: (tool, args, options = {}) => engine.invoke(tool, args, { ...options, face }) };
}

function within(promise: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.catch(() => undefined),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
