import type { Context, Hono } from 'hono';
import type { CallerDirectory } from '../../callers/load-callers.ts';
import type { QuotaCheck } from '../../callers/quotas.ts';
import type { Catalog } from '../../catalog/catalog.ts';
import type { Engine, InvocationReport } from '../../engine/invoke-tool.ts';
import { SculptorError, toSculptorError } from '../../errors/sculptor-error.ts';

/**
 * What the server needs to know of a face (the contract between `server/` and each face):
 * the server composes the faces, names spans and writes the refusals it decides itself
 * (draining, a path with dot segments, no such path) in the form of the face the request was
 * for. Each face decides what an invocation is, and asks the server's InvocationGate itself.
 */
export interface Face {
  /** Names the face in metrics and logs (`a2t`, `mcp`, …). */
  name: string;
  /** Answers the face's paths (mounted at the root: each face matches its own prefix). */
  app: Hono;
  /** The route template of a raw path, for span names; undefined when the path is not the face's. */
  routeOf(path: string): string | undefined;
  /** Writes an error the server decided on, in this face's wire form. */
  refuse(c: Context, error: SculptorError): Response;
  /** Told after a reload swapped the catalog (MCP pushes `list_changed` to listening clients). */
  catalogChanged?(): void;
  /** Called when the gateway stops, after the drain: ends what the face holds open (streams). */
  close?(): Promise<void>;
}

/**
 * Admission of one invocation, the same for every face: throws `gateway.overloaded` while the
 * event loop lags (RELIABILITY C10), `request.rate_limited` past the caller's rate (RELIABILITY
 * A7) and `request.too_many_in_flight` past its concurrency cap; else resolves to the function
 * that gives the caller's slot back, which the face calls once the invocation has answered.
 * A face calls it as soon as it knows a request is an invocation.
 */
export type InvocationGate = (c: Context) => Promise<() => void>;

/** What the server hands every face it composes (a face may take more: A2T its cursors…). */
export interface FaceOptions {
  /** The catalog in force; read per request, so a reload swaps it atomically. */
  catalog: () => Catalog;
  engine: Engine;
  /** The draft's {platform-root}: '' or a path such as '/a2t'; each face lives below it. */
  prefix?: string;
  onInvocation?: (report: InvocationReport) => void;
  /** The callers file in force (read per request); undefined: every request is the anonymous caller of one tenant. */
  callers?: () => CallerDirectory | undefined;
  /** Per-tenant quotas from the callers file, counted per invocation. */
  quotas?: QuotaCheck;
  /** The server's shedding, rate limit and concurrency cap; every invocation passes it first. */
  admit?: InvocationGate;
}

/**
 * A face's handler whose errors, thrown anywhere in it, are answered by `refuse` in the face's
 * wire form. Faces catch their errors this way rather than with `app.onError`: Hono wraps every
 * route of a mounted app that has its own error handler in one more compose per request, which
 * allocated ≈ 1.3 KiB per invocation on the bench (docs/PERFORMANCE.md, "Round four").
 */
export function answering(
  handler: (c: Context) => Promise<Response | undefined>,
  refuse: (c: Context, error: SculptorError) => Response,
): (c: Context) => Promise<Response> {
  return async (c) => {
    try {
      return (await handler(c)) ?? refuse(c, new SculptorError('internal', 'An internal error occurred.'));
    } catch (err) {
      return refuse(c, toSculptorError(err));
    }
  };
}
