import type { Http2Bindings, HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { CacheStore } from '../cache/cache-store.ts';
import { chooseCacheStore } from '../cache/choose-store.ts';
import { type CallerDirectory } from '../callers/load-callers.ts';
import { createQuotaCheck } from '../callers/quotas.ts';
import { createCallService } from '../invoke/call-service.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { pageCursors } from '../catalog/page-cursor.ts';
import type { Settings } from '../config/settings.ts';
import type { InvocationReport } from '../engine/invoke-tool.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import type { Face, FaceOptions } from '../faces/common/face.ts';
import { hasDotSegment, rawRequestPath } from '../faces/common/raw-path.ts';
import { describeError, type GatewayLogger } from '../telemetry/logger.ts';
import { createMetrics, type GatewayMetrics } from '../telemetry/metrics.ts';
import { redisSecrets } from '../cache/redis-url.ts';
import { traceMcpCall } from '../telemetry/mcp-span.ts';
import { traceServerRequest } from '../telemetry/server-span.ts';
import { tracingActive } from '../telemetry/tracing.ts';
import { composeFaces } from './compose-faces.ts';
import { createCore } from './create-core.ts';
import { loadCatalog } from './load-catalog.ts';
import { listen } from './listen.ts';
import { addOperationalRoutes, OPERATIONAL_PATHS } from './operational-routes.ts';
import { createHostPolicy } from './host-policy.ts';
import { createAdmission } from './invocation-gate.ts';

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

  const store = await chooseCacheStore(settings.redisUrl, (err) =>
    logger?.warn({ event: 'cache_store_error', err: describeError(err) }, 'cache store error'),
  );
  const metrics = createMetrics({
    // A spread: the stats interface has no index signature, the object literal does.
    cacheStore: () => ({ ...store.stats() }),
    stepCache: () => ({ ...core.stepCache.stats() }),
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

  // One gate for every face: a caller's rate and concurrency are the same whatever protocol it speaks.
  const { admit, admitStream, shedder } = createAdmission(settings, store, logger);
  // DNS rebinding protection for every route, faces and mounted apps alike.
  const hostRefusal = createHostPolicy({
    bindAddress: settings.host,
    allowedHosts: settings.allowedHosts,
    callersConfigured: Boolean(settings.callers),
  });
  // Per-tenant quotas, shared by the replicas through the same store.
  const quotas = createQuotaCheck(store, settings.secret);
  const cursors = pageCursors(settings.secret);

  // The one call pipeline every face decodes into: admission, the caller's look-up, scopes and
  // quota, the engine, the report.
  const calls = createCallService({
    catalog: () => catalog,
    engine,
    admit,
    quotas,
    onReport: onInvocation,
  });
  const given: FaceOptions = {
    catalog: () => catalog,
    calls,
    callers: () => callers,
    ...(admitStream ? { admitStream } : {}),
    prefix: settings.prefix,
  };
  const { faces, routed } = composeFaces(given, {
    cursors,
    maxStreams: settings.maxStreams,
    traceCall: traceMcpCall,
    onMcpError: (err) =>
      logger?.debug({ event: 'mcp_error', err: describeError(err) }, 'mcp request refused'),
  });
  const primary = faces[0]!;

  const app = new Hono();
  /**
   * What the server decides before any face, outside Hono's chain (a middleware would make Hono
   * compose every route's handlers on every request, ≈ 2 KiB allocated per invocation):
   * - routes match the raw path: a dot segment would be resolved by URL parsing,
   *   so a proxy's path rules and this route table would disagree on what was asked. Refused;
   * - liveness, readiness and metrics are answered even while draining, and have no span (nor
   *   a Host check: probes and scrapers name the pod's address, and these serve no tool);
   * - the Host/Origin rule (host-policy.ts): a page that rebound its own name cannot reach any route;
   * - while draining every other request is refused (503 gateway.draining, in its face's form);
   * - with an SDK, the request's SERVER span, named by its face's route template.
   * A refusal is written by its face, through `refusals`, an app of one route that reads both from env.
   */
  const refusals = new Hono<{ Bindings: Refused }>();
  refusals.all('*', (c) => c.env.face.refuse(c, c.env.refusal));
  const refuse = (request: Request, env: NodeBindings, raw: string, refusal: SculptorError) =>
    refusals.fetch(request, { ...env, face: routed(raw).face, refusal });
  const serveRequest = (request: Request, env: NodeBindings): Response | Promise<Response> => {
    const raw = rawRequestPath(env, request.url);
    if (hasDotSegment(raw)) {
      return refuse(
        request,
        env,
        raw,
        new SculptorError(
          'request.malformed',
          "The path has a '.' or '..' segment (percent-encoded or not); send the resource's path as it is, without dot segments.",
        ),
      );
    }
    if (OPERATIONAL_PATHS.has(raw)) return app.fetch(request, env);
    const refusal =
      hostRefusal(request.headers.get('host') ?? undefined, request.headers.get('origin') ?? undefined) ??
      (draining ? new SculptorError('gateway.draining', 'The gateway is shutting down; retry.') : undefined);
    if (refusal) return refuse(request, env, raw, refusal);
    // No SDK, no span: nothing here would be read (see tracingActive).
    if (!tracingActive()) return app.fetch(request, env);
    let response: Response | undefined;
    return traceServerRequest(
      { method: request.method, route: routed(raw).route, headers: request.headers },
      async () => {
        response = await app.fetch(request, env);
        return response.status;
      },
    ).then(() => response!);
  };
  addOperationalRoutes(app, {
    draining: () => draining,
    overloaded: () => shedder.overloaded(),
    tools: () => catalog.size,
    metrics,
  });
  const callersInForce = () => callers;
  for (const mount of mounts) app.route('/', mount(callersInForce));
  for (const face of faces) app.route('/', face.app);
  app.notFound((c) => primary.refuse(c, new SculptorError('request.not_found', 'Not found.')));

  const listener = await listen(serveRequest, settings);

  let closing: Promise<void> | undefined;

  return {
    url: listener.url,
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
        const closed = listener.stopAccepting();
        await listener.settled(settings.drainMs);
        const aborted = listener.inFlight;
        if (aborted > 0) {
          drain.abort(new SculptorError('gateway.draining', 'The gateway is shutting down; retry.'));
          // Streams a face holds open (MCP subscriptions/listen) end here rather than being cut.
          await Promise.allSettled(
            faces.map((face) => within(face.close?.() ?? Promise.resolve(), CLIENT_CLOSE_MS)),
          );
          await listener.settled(ABORT_GRACE_MS);
        }
        listener.closeAll();
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

type NodeBindings = HttpBindings | Http2Bindings;

/** A refused request's bindings: Node's, and the refusal its face writes. */
type Refused = NodeBindings & { face: Face; refusal: SculptorError };

function within(promise: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.catch(() => undefined),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
