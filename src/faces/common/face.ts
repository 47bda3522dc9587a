import type { Context, Hono } from 'hono';
import type { CallerDirectory } from '../../callers/load-callers.ts';
import type { ScopedCatalog } from '../../catalog/catalog.ts';
import { SculptorError, toSculptorError } from '../../errors/sculptor-error.ts';
import type { CallService, StreamAdmission } from '../../invoke/call-service.ts';
import type { OpenApiContribution } from './openapi-fragments.ts';

/**
 * What the server needs to know of a face (the contract between `server/` and each face):
 * the server composes the faces, names spans and writes the refusals it decides itself
 * (draining, a path with dot segments, no such path) in the form of the face the request was
 * for. A face calls tools only through the call service: it decodes its wire form into a call
 * and encodes the outcome or the error.
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
  /** The face's endpoints as the gateway's OpenAPI document shows them. */
  openApi?: OpenApiContribution;
}

/** What the server hands every face it composes (a face may take more: A2T its cursors…). */
export interface FaceOptions {
  /** The catalog in force, scoped: every look-up takes the caller's audience. Read per request. */
  catalog: () => ScopedCatalog;
  /** The one way to call a tool: admission, look-up, scopes and quota, engine, report. */
  calls: CallService;
  /** The draft's {platform-root}: '' or a path such as '/a2t'; each face lives below it. */
  prefix?: string;
  /** The callers file in force (read per request); undefined: every request is the anonymous caller of one tenant. */
  callers?: () => CallerDirectory | undefined;
  /** The server's cap on one caller's long-lived streams. */
  admitStream?: StreamAdmission;
}

/**
 * A face's handler whose errors, thrown anywhere in it, are answered by `refuse` in the face's
 * wire form. Faces catch their errors this way rather than with `app.onError`: Hono wraps every
 * route of a mounted app that has its own error handler in one more compose per request, which
 * allocated ≈ 1.3 KiB per invocation on the bench (docs/PERFORMANCE.md).
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
