import type { PageCursors } from '../catalog/page-cursor.ts';
import { createA2tFace } from '../faces/a2t/a2t-face.ts';
import { createA2tLiteFace } from '../faces/a2t-lite/lite-face.ts';
import { createMcpFace } from '../faces/mcp/mcp-face.ts';
import type { McpCallTracer } from '../faces/mcp/mcp-server.ts';
import { createOpenApiFace } from '../faces/openapi/openapi-face.ts';
import type { Face, FaceOptions } from '../faces/common/face.ts';

export interface ComposedFaces {
  /** In the order their paths are tried. */
  faces: readonly Face[];
  /** The face a raw path belongs to, and its route template (for the span name); the first face answers paths no face owns. */
  routed(path: string): { face: Face; route: string | undefined };
}

/**
 * The faces a gateway serves, each given the same options (the catalog in force, the call
 * service, the callers) and what only it takes. A2T comes first: it is also the server's own
 * voice (problem+json) for paths no face owns.
 */
export function composeFaces(
  given: FaceOptions,
  extra: {
    cursors: PageCursors;
    maxStreams: number;
    traceCall: McpCallTracer;
    onMcpError: (err: Error) => void;
  },
): ComposedFaces {
  const faces: Face[] = [
    createA2tFace({ ...given, cursors: extra.cursors }),
    // a2t-lite under {platform-root}/lite (its GET /tools has another shape than A2T's), and
    // the gateway's own OpenAPI document, docs page and typed operations.
    createA2tLiteFace(given),
    createOpenApiFace({ ...given, contributions: () => faces.flatMap((face) => face.openApi ?? []) }),
    createMcpFace({
      ...given,
      cursors: extra.cursors,
      maxStreams: extra.maxStreams,
      traceCall: extra.traceCall,
      onError: extra.onMcpError,
    }),
  ];
  const primary = faces[0]!;
  return {
    faces,
    routed(path) {
      for (const face of faces) {
        const route = face.routeOf(path);
        if (route !== undefined) return { face, route };
      }
      return { face: primary, route: undefined };
    },
  };
}
