/**
 * Every face the gateway composes answers its own errors (`answering`, faces/common/face.ts): a
 * face app with an error handler of its own makes Hono wrap each of its routes in one more
 * compose on every request once mounted. Checked over the composed faces, so a new face is held
 * to it too.
 */
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/catalog/catalog.ts';
import { pageCursors } from '../../src/catalog/page-cursor.ts';
import { createCallService } from '../../src/invoke/call-service.ts';
import { composeFaces } from '../../src/server/compose-faces.ts';
import { createCore } from '../../src/server/create-core.ts';

const core = createCore();
afterAll(() => core.close());

/** Hono keeps the handler `onError` sets in a field its types call private. */
const errorHandlerOf = (app: Hono): unknown => (app as unknown as { errorHandler: unknown }).errorHandler;

describe('composeFaces', () => {
  it('composes faces that leave Hono its default error handler', () => {
    const catalog = new Catalog([]);
    const { faces } = composeFaces(
      { catalog: () => catalog, calls: createCallService({ catalog: () => catalog, engine: core.engine }) },
      {
        cursors: pageCursors('x'.repeat(32)),
        maxStreams: 8,
        traceCall: (_call, run) => run(() => {}),
        onMcpError: () => {},
      },
    );
    expect(faces.map((face) => face.name)).toEqual(expect.arrayContaining(['a2t', 'mcp']));
    const hono = errorHandlerOf(new Hono());
    for (const face of faces)
      expect({ face: face.name, default: errorHandlerOf(face.app) === hono }).toEqual({
        face: face.name,
        default: true,
      });
  });
});
