import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { CacheStore } from '../cache/cache-store.ts';
import { createMemoryStore } from '../cache/memory-store.ts';
import { createRedisStore } from '../cache/redis-store.ts';
import { StepCache } from '../cache/step-cache.ts';
import { checkTenancy } from '../callers/check-tenancy.ts';
import { type CallerDirectory, loadCallers } from '../callers/load-callers.ts';
import { createQuotaCheck } from '../callers/quotas.ts';
import { Catalog } from '../catalog/catalog.ts';
import { pageCursors } from '../catalog/page-cursor.ts';
import { compileSculpts } from '../compile/compile-sculpts.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import type { Settings } from '../config/settings.ts';
import { backendsMissingCredentials, missingCredentialsHint } from '../engine/attach-credentials.ts';
import { createEngine, type Engine, type InvocationReport } from '../engine/invoke-tool.ts';
import { SculptLoadError, SculptorError } from '../errors/sculptor-error.ts';
import { createA2tFace, problem } from '../faces/a2t/a2t-face.ts';
import { matchRoute } from '../faces/a2t/a2t-routes.ts';
import { hasDotSegment, rawPath } from '../faces/a2t/raw-path.ts';
import { createBackendClient } from '../http/backend-client.ts';
import { withResilience } from '../http/resilient-sender.ts';
import { createTokenSource } from '../oauth/token-source.ts';
import { instrumentEngine } from '../telemetry/instrument-engine.ts';
import { describeError, type GatewayLogger } from '../telemetry/logger.ts';
import { createMetrics, type GatewayMetrics } from '../telemetry/metrics.ts';
import { backendSecrets, urlPassword } from '../telemetry/redactor.ts';
import { traceServerRequest } from '../telemetry/server-span.ts';
import { tracingActive } from '../telemetry/tracing.ts';
import { concurrencyKey, createCallerConcurrency, tooManyInFlight } from './caller-concurrency.ts';
import { createLoadShedder } from './load-shedder.ts';
import { callerKey, createSharedRateLimiter } from './rate-limiter.ts';

export interface Gateway {
  url: string;
  catalog: () => Catalog;
  /**
   * Recompiles the sculpts and swaps the catalog atomically. On errors it
   * throws SculptLoadError and the gateway keeps serving the last good catalog.
   */
  reload(): Promise<Catalog>;
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
}

/** Paths answered outside the A2T face: no server span, no drain refusal, no log line. */
const OPERATIONAL_PATHS = new Set(['/livez', '/readyz', '/metrics']);

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
}: GatewayOptions): Promise<Gateway> {
  const logger: Logger | undefined = log?.logger;
  const redactor = log?.redactor;
  redactor?.add([...(settings.secretFromEnv ? [settings.secret] : []), ...urlPassword(settings.redisUrl)]);
  const compile = async (): Promise<{ catalog: Catalog; callers: CallerDirectory | undefined }> => {
    // TLS only, unless the deployment says otherwise (RELIABILITY B1).
    const tools = await compileSculpts(settings.sculpts, env, {
      requireHttps: !settings.allowPrivateEgress && !settings.allowHttpBackends,
    });
    const loaded = settings.callers ? await loadCallers(settings.callers, env) : { errors: [] };
    const errors = [
      ...loaded.errors,
      ...(loaded.errors.length === 0 ? checkTenancy(loaded.directory, tools) : []),
    ];
    if (errors.length > 0) throw new SculptLoadError(errors);
    for (const backend of backendsMissingCredentials(tools)) {
      logger?.warn(
        { event: 'credentials_unset', backend: backend.name, variables: backend.credentialsMissing },
        `backend '${backend.name}' has no credentials: ${missingCredentialsHint(backend)}; until then its tools answer 503 upstream.credentials_missing`,
      );
    }
    redactor?.add([...secretsOf(tools), ...(loaded.directory?.secrets ?? [])]);
    return { catalog: new Catalog(tools), callers: loaded.directory };
  };
  let { catalog, callers } = await compile();
  let draining = false;

  const store = settings.redisUrl
    ? createRedisStore(settings.redisUrl, {
        onError: (err) =>
          logger?.warn({ event: 'cache_store_error', err: describeError(err) }, 'cache store error'),
      })
    : createMemoryStore();
  const stepCache = new StepCache(store, { secret: settings.secret });
  const metrics = createMetrics({
    // A spread: the stats interface has no index signature, the object literal does.
    cacheStore: () => ({ ...store.stats() }),
    stepCache: () => ({ integrityViolations: stepCache.stats().integrityViolations }),
  });
  const client = createBackendClient();
  const drain = new AbortController();
  const engine = instrumentEngine(
    drainable(
      createEngine({
        // Retries and concurrency cap per backend origin, a breaker per operation (RELIABILITY C1-C8).
        sender: withResilience(client),
        cache: stepCache,
        cacheSecret: settings.secret,
        // Backends' OAuth tokens, shared with the other replicas through the same store.
        tokens: createTokenSource({ store, secret: settings.secret }),
        allowPrivateEgress: settings.allowPrivateEgress,
        maxBackendCalls: settings.maxBackendCalls,
      }),
      drain.signal,
    ),
    { metrics, ...(logger ? { logger } : {}) },
  );

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

  const prefix = settings.prefix;
  const routeOf = (path: string): string | undefined => {
    if (!path.startsWith(prefix)) return undefined;
    const match = matchRoute(path.slice(prefix.length));
    return match ? `${prefix}${match.route.template}` : undefined;
  };

  const app = new Hono();
  app.use('*', async (c, next) => {
    // No SDK, no span: nothing here would be read (see tracingActive).
    if (!tracingActive()) return next();
    const path = new URL(c.req.url).pathname;
    if (OPERATIONAL_PATHS.has(path)) return next();
    await traceServerRequest(
      { method: c.req.method, route: routeOf(path), headers: c.req.raw.headers },
      async () => {
        await next();
        return c.res.status;
      },
    );
  });
  // Routes match the raw path (issue #13 F7): a dot segment would be resolved by URL parsing,
  // so a proxy's path rules and this route table would disagree on what was asked. Refused.
  app.use('*', async (c, next) => {
    if (!hasDotSegment(rawPath(c))) return next();
    return problem(
      c,
      new SculptorError(
        'request.malformed',
        "The path has a '.' or '..' segment (percent-encoded or not); send the resource's path as it is, without dot segments.",
      ),
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
  app.use('*', async (c, next) => {
    if (draining)
      return problem(c, new SculptorError('gateway.draining', 'The gateway is shutting down; retry.'));
    // Only invocations (the only POSTs) are shed: listings are cheap and help an agent recover.
    if (c.req.method === 'POST' && shedder.overloaded()) {
      return problem(
        c,
        new SculptorError('gateway.overloaded', 'The gateway is overloaded; retry shortly.', {
          retryAfter: 1,
        }),
      );
    }
    if (limiter && c.req.method === 'POST') {
      const taken = await limiter.take(callerKey(c.req.header('authorization'), remoteAddress(c)));
      if (!taken.ok) {
        return problem(
          c,
          new SculptorError(
            'request.rate_limited',
            `Too many invocations; retry after ${taken.retryAfterS} s.`,
            {
              retryAfter: taken.retryAfterS,
            },
          ),
        );
      }
    }
    await next();
  });
  // Per-caller concurrency cap (issue #13): one caller's slow invocations cannot fill the
  // per-origin bulkheads and starve the others; SCULPTOR_MAX_INFLIGHT_PER_CALLER, 0 = off.
  const callerSlots =
    settings.maxInflightPerCaller > 0
      ? createCallerConcurrency({ maxPerCaller: settings.maxInflightPerCaller })
      : undefined;
  app.use('*', async (c, next) => {
    if (!callerSlots || c.req.method !== 'POST') return next();
    const caller = concurrencyKey(c.req.header('authorization'), remoteAddress(c), Boolean(settings.callers));
    const release = callerSlots.acquire(caller);
    if (!release) return problem(c, tooManyInFlight(settings.maxInflightPerCaller));
    try {
      await next();
    } finally {
      release();
    }
  });
  app.route(
    '/',
    createA2tFace({
      catalog: () => catalog,
      engine,
      cursors: pageCursors(settings.secret),
      callers: () => callers,
      // Per-tenant quotas, shared by the replicas through the same store (issue #20).
      quotas: createQuotaCheck(store, settings.secret),
      prefix,
      ...(onInvocation ? { onInvocation } : {}),
    }),
  );
  app.notFound((c) => problem(c, new SculptorError('request.not_found', 'Not found.')));

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
    async reload() {
      // Sculpts and callers are swapped together, so a request never sees one without the other.
      ({ catalog, callers } = await compile());
      return catalog;
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
          await settled(ABORT_GRACE_MS);
        }
        if ('closeAllConnections' in server) server.closeAllConnections();
        await closed;
        logger?.info(
          { event: 'drained', drain_ms: Math.round(performance.now() - started), aborted },
          'drained',
        );
        await Promise.allSettled([
          within(client.close(), CLIENT_CLOSE_MS),
          store.close(),
          ...(flush ? [within(flush(), FLUSH_MS)] : []),
        ]);
      })();
      return closing;
    },
  };
}

/**
 * Lets the drain deadline end in-flight invocations: their backend calls are
 * aborted and the caller gets 503 gateway.draining (retryable) rather than a
 * reset connection.
 */
function drainable(engine: Engine, drain: AbortSignal): Engine {
  // One controller per invocation, which the caller's signal and the drain both abort:
  // cheaper than AbortSignal.any, whose bookkeeping showed in the bench profile.
  const inFlight = new Set<AbortController>();
  drain.addEventListener('abort', () => {
    for (const controller of inFlight) controller.abort(drain.reason);
  });
  return {
    async invoke(tool, body, options = {}) {
      const controller = new AbortController();
      const outer = options.signal;
      const forward = () => controller.abort(outer?.reason);
      if (drain.aborted) controller.abort(drain.reason);
      else if (outer?.aborted) forward();
      else outer?.addEventListener('abort', forward, { once: true });
      inFlight.add(controller);
      try {
        return await engine.invoke(tool, body, { ...options, signal: controller.signal });
      } catch (err) {
        if (drain.aborted) {
          throw new SculptorError('gateway.draining', 'The gateway is shutting down; retry.', { cause: err });
        }
        throw err;
      } finally {
        inFlight.delete(controller);
        outer?.removeEventListener('abort', forward);
      }
    },
  };
}

function remoteAddress(c: Parameters<typeof getConnInfo>[0]): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined; // not served by @hono/node-server (in-process requests)
  }
}

/** Every credential value the compiled tools' backends hold, for the log redactor. */
function secretsOf(tools: CompiledTool[]): string[] {
  const seen = new Set<object>();
  const values: string[] = [];
  for (const tool of tools) {
    for (const step of tool.steps) {
      if (seen.has(step.backend)) continue;
      seen.add(step.backend);
      values.push(...backendSecrets(step.backend));
    }
  }
  return values;
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
