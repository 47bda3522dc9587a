import {
  type Errors,
  INVOCATION,
  JSON_TYPE,
  LISTING,
  ok,
  type OpenApiContribution,
  path,
  query,
  ref,
} from '../common/openapi-fragments.ts';

/** The a2t-lite endpoints, as the gateway's OpenAPI document shows them. */
export const LITE_OPENAPI: OpenApiContribution = {
  tag: { name: 'a2t-lite', description: 'The a2t-lite protocol, at {platform-root}/lite.' },
  paths: litePaths,
};

function litePaths(errors: Errors): Record<string, unknown> {
  const paging = (max: number) => [
    query('q', 'Search: the most relevant first.', { type: 'string', maxLength: 200 }),
    query('limit', `How many, 1 to ${max} (default ${max}).`, { type: 'integer' }),
    query('offset', 'How many to skip (default 0).', { type: 'integer', minimum: 0 }),
  ];
  const liteErrors = (statuses: number[]) =>
    Object.fromEntries(
      Object.keys(errors(statuses)).map((s) => [
        s,
        { description: 'An error', content: { [JSON_TYPE]: { schema: ref('LiteError') } } },
      ]),
    );
  const call = (operationId: string, summary: string, parameters: unknown[]) => ({
    post: {
      operationId,
      summary,
      tags: ['a2t-lite'],
      parameters,
      requestBody: {
        required: true,
        description: "The tool's inputs by name (its `input_schema`).",
        content: { [JSON_TYPE]: { schema: { type: 'object', additionalProperties: true } } },
      },
      responses: {
        ...ok('The outputs, and a meta response where there is one.', 'LiteCallAnswer'),
        ...liteErrors(INVOCATION),
      },
    },
  });
  const NAME = path('name', 'The tool name.');
  const GROUP = path('id', 'The group id.');
  return {
    '/lite/.well-known/a2t-capabilities.json': {
      get: {
        operationId: 'lite.capabilities',
        summary: 'What the a2t-lite face offers (also at the origin root)',
        tags: ['a2t-lite'],
        security: [],
        responses: ok('The capabilities.', 'LiteCapabilities'),
      },
    },
    '/lite/tools': {
      get: {
        operationId: 'lite.listTools',
        summary: 'Every tool, by name; with q, the most relevant first',
        tags: ['a2t-lite'],
        parameters: paging(100),
        responses: { ...ok('A page of tools.', 'LiteToolList'), ...liteErrors(LISTING) },
      },
    },
    '/lite/tools/{name}': call('lite.call', 'Call a tool', [NAME]),
    '/lite/groups': {
      get: {
        operationId: 'lite.listGroups',
        summary: 'Groups (the sculpts’ folders), by id',
        tags: ['a2t-lite'],
        parameters: [
          ...paging(50),
          query('parent_id', "Only this group's direct subgroups; empty: only the top-level groups.", {
            type: 'string',
          }),
        ],
        responses: { ...ok('A page of groups.', 'LiteGroupList'), ...liteErrors(LISTING) },
      },
    },
    '/lite/groups/{id}/tools': {
      get: {
        operationId: 'lite.listGroupTools',
        summary: 'The tools of a group and its subgroups',
        tags: ['a2t-lite'],
        parameters: [GROUP, ...paging(100)],
        responses: { ...ok('A page of tools.', 'LiteToolList'), ...liteErrors(LISTING) },
      },
    },
    '/lite/groups/{id}/tools/{name}': call('lite.groupCall', 'Call a tool of a group', [GROUP, NAME]),
  };
}
