import {
  type Errors,
  INVOCATION,
  JSON_TYPE,
  LISTING,
  LOOKUP,
  ok,
  type OpenApiContribution,
  path,
  query,
  ref,
} from '../common/openapi-fragments.ts';

const TOOL_ID = path('toolId', 'The tool id (a UUID derived from its name).', {
  type: 'string',
  format: 'uuid',
});
const VERSION = path('version', 'A version number.', { type: 'integer', minimum: 1 });

/** The A2T endpoints, as the gateway's OpenAPI document shows them. */
export const A2T_OPENAPI: OpenApiContribution = {
  tag: { name: 'A2T', description: 'The A2T draft endpoints (draft-rosenberg-aiproto-a2t-00).' },
  paths: a2tPaths,
};

function a2tPaths(errors: Errors): Record<string, unknown> {
  const invoke = (operationId: string, summary: string, parameters: unknown[]) => ({
    post: {
      operationId,
      summary,
      tags: ['A2T'],
      parameters,
      requestBody: { required: true, content: { [JSON_TYPE]: { schema: ref('A2tInvocation') } } },
      responses: { ...ok('The outputs.', 'A2tInvocationAnswer'), ...errors(INVOCATION) },
    },
  });
  return {
    '/tools': {
      get: {
        operationId: 'a2t.listTools',
        summary: 'List tools (latest version of each, by name)',
        tags: ['A2T'],
        parameters: [
          query('pageLimit', 'Tools per page, 1 to 100 (default 20).', { type: 'integer' }),
          query('pageCursor', "The previous page's `paging.next`.", { type: 'string' }),
          {
            ...query('tag', 'Only tools with every one of these tags.', {
              type: 'array',
              items: { type: 'string' },
            }),
            style: 'form',
            explode: true,
          },
          query('version', 'Only tools whose current version is this.', { type: 'integer', minimum: 1 }),
          query('q', 'Search (an extension): the tools most relevant to these words first.', {
            type: 'string',
            maxLength: 200,
          }),
        ],
        responses: { ...ok('A page of signatures.', 'A2tListing'), ...errors(LISTING) },
      },
    },
    '/tools/{toolId}': {
      get: {
        operationId: 'a2t.getTool',
        summary: "A tool's current signature",
        tags: ['A2T'],
        parameters: [TOOL_ID],
        responses: { ...ok('The signature.', 'A2tSignature'), ...errors(LOOKUP) },
      },
    },
    '/tools/{toolId}/versions': {
      get: {
        operationId: 'a2t.listVersions',
        summary: "A tool's versions, most recent first",
        tags: ['A2T'],
        parameters: [
          TOOL_ID,
          query('pageLimit', 'Versions per page, 1 to 100 (default 20).', { type: 'integer' }),
          query('pageCursor', "The previous page's `paging.next`.", { type: 'string' }),
        ],
        responses: { ...ok('A page of signatures.', 'A2tListing'), ...errors(LOOKUP) },
      },
    },
    '/tools/{toolId}/versions/{version}': {
      get: {
        operationId: 'a2t.getVersion',
        summary: "One version's signature",
        tags: ['A2T'],
        parameters: [TOOL_ID, VERSION],
        responses: { ...ok('The signature.', 'A2tSignature'), ...errors(LOOKUP) },
      },
    },
    '/tools/{toolId}:invoke': invoke('a2t.invoke', 'Invoke the current version', [TOOL_ID]),
    '/tools/{toolId}/versions/{version}:invoke': invoke('a2t.invokeVersion', 'Invoke a pinned version', [
      TOOL_ID,
      VERSION,
    ]),
  };
}
