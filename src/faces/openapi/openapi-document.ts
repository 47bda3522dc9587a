import type { Catalog, CatalogTool, ToolAudience } from '../../catalog/catalog.ts';
import { toolSchema } from '../../compile/tool-schema.ts';
import { CODES } from '../../errors/sculptor-error.ts';
import { PROBLEM_CONTENT_TYPE } from '../shared/problem-details.ts';
import { codesByStatus } from './openapi-errors.ts';

/**
 * The gateway's own OpenAPI 3.1 document (A2T §7.1, issue #16): the A2T and a2t-lite endpoints,
 * and one typed operation per tool the caller may call — `POST /call/{name}`, whose request body
 * is the tool's input schema and whose answer is its output schema (both from
 * compile/tool-schema.ts, the one generator), errors as problem details. Paths are relative to
 * the server, `{platform-root}`.
 */
export interface DocumentOptions {
  prefix: string;
  /** A callers file is in force: every operation but the capabilities file takes a bearer token. */
  secured: boolean;
}

const JSON_TYPE = 'application/json';
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const response = (status: number) => ({ $ref: `#/components/responses/Problem${status}` });

/** Error answers an operation declares, by the statuses its codes can have. */
const LOOKUP = [400, 404];
const LISTING = [400, 404, 429, 503];
const INVOCATION = [400, 403, 404, 413, 415, 422, 429, 499, 500, 502, 503, 504];

const documents = new WeakMap<Catalog, WeakMap<ToolAudience, string>>();

/** The document for one caller, serialized; kept per catalog and audience. */
export function openApiDocument(catalog: Catalog, audience: ToolAudience, options: DocumentOptions): string {
  let byAudience = documents.get(catalog);
  if (!byAudience) documents.set(catalog, (byAudience = new WeakMap()));
  let text = byAudience.get(audience);
  if (text === undefined) {
    text = JSON.stringify(buildDocument(catalog, catalog.list({ audience }), options));
    byAudience.set(audience, text);
  }
  return text;
}

function buildDocument(catalog: Catalog, tools: CatalogTool[], { prefix, secured }: DocumentOptions) {
  const problemStatuses = new Set(codesByStatus().keys());
  /** The problem answers of an operation: 401 and 403 only where there are callers to refuse. */
  const errors = (statuses: number[]) => {
    const declared = statuses.filter((s) => problemStatuses.has(s) && (secured || (s !== 401 && s !== 403)));
    if (secured) declared.push(401);
    return Object.fromEntries(
      [...new Set(declared)].sort((a, b) => a - b).map((s) => [String(s), response(s)]),
    );
  };
  const groupTags = new Map<string, number>();
  const paths: Record<string, unknown> = { ...a2tPaths(errors), ...litePaths(errors) };
  for (const tool of tools) {
    const schema = toolSchema(tool.current);
    const group = catalog.groupOf(tool) ?? 'tools';
    groupTags.set(group, (groupTags.get(group) ?? 0) + 1);
    paths[`/call/${tool.name}`] = {
      post: {
        operationId: tool.name,
        summary: schema.title,
        description: schema.description,
        tags: [group],
        requestBody: {
          required: true,
          description: "The tool's inputs, by name.",
          content: { [JSON_TYPE]: { schema: schema.inputSchema } },
        },
        responses: {
          '200': {
            description: "The tool's outputs, by name.",
            content: { [JSON_TYPE]: { schema: schema.outputSchema } },
          },
          ...errors(INVOCATION),
        },
        'x-sculptor-tool': {
          toolId: tool.toolId,
          version: tool.current.signature.version,
          annotations: schema.annotations,
        },
      },
    };
  }
  const tags = [
    ...[...groupTags].map(([name, count]) => ({
      name,
      description:
        name === 'tools'
          ? `${count} tool(s) at the sculpts' root: POST /call/{name}, inputs and outputs as JSON objects.`
          : `${count} tool(s) from the ${name} sculpts: POST /call/{name}, inputs and outputs as JSON objects.`,
    })),
    { name: 'A2T', description: 'The A2T draft endpoints (draft-rosenberg-aiproto-a2t-00).' },
    { name: 'a2t-lite', description: 'The a2t-lite protocol, at {platform-root}/lite.' },
  ];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sculptor gateway',
      version: '1',
      description:
        'Sculpted tools for AI agents. Each tool is one typed operation, `POST /call/{name}`: the request body holds its inputs by name, the answer its outputs; errors are RFC 9457 problem details with a stable `code`. The same tools are served over A2T (`/tools`) and a2t-lite (`/lite`).' +
        (secured
          ? ' Every request takes `Authorization: Bearer <token>`; this document lists the tools of its tenant.'
          : ''),
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: prefix || '/', description: 'This gateway ({platform-root})' }],
    tags,
    paths,
    components: {
      schemas: SCHEMAS,
      responses: Object.fromEntries(
        [...codesByStatus()].map(([status, codes]) => [
          `Problem${status}`,
          {
            description: `${codes.map((c) => CODES[c].title).join('; ')} (codes: ${codes.join(', ')}).`,
            content: { [PROBLEM_CONTENT_TYPE]: { schema: ref('Problem') } },
          },
        ]),
      ),
      ...(secured
        ? {
            securitySchemes: {
              bearer: {
                type: 'http',
                scheme: 'bearer',
                description: 'A token from the callers file, or an access token of its identity provider.',
              },
            },
          }
        : {}),
    },
    ...(secured ? { security: [{ bearer: [] }] } : {}),
  };
}

type Errors = (statuses: number[]) => Record<string, unknown>;

const query = (name: string, description: string, schema: Record<string, unknown>) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
const path = (name: string, description: string, schema: Record<string, unknown> = { type: 'string' }) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
});
const TOOL_ID = path('toolId', 'The tool id (a UUID derived from its name).', {
  type: 'string',
  format: 'uuid',
});
const VERSION = path('version', 'A version number.', { type: 'integer', minimum: 1 });
const ok = (description: string, schema: string) => ({
  '200': { description, content: { [JSON_TYPE]: { schema: ref(schema) } } },
});

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

const SCHEMAS = {
  Problem: {
    type: 'object',
    description: 'RFC 9457 problem details.',
    required: ['type', 'title', 'status', 'detail', 'code', 'retryable'],
    properties: {
      type: { type: 'string', description: '`urn:sculptor:error:<code>`.' },
      title: { type: 'string' },
      status: { type: 'integer' },
      detail: { type: 'string', description: 'What happened, written for the LLM.' },
      instance: { type: 'string' },
      code: { type: 'string', description: 'The stable error code.' },
      retryable: { type: 'boolean' },
      problems: { type: 'array', items: ref('InputProblem') },
    },
  },
  InputProblem: {
    type: 'object',
    required: ['parameter', 'reason'],
    properties: { parameter: { type: 'string' }, reason: { type: 'string' } },
  },
  A2tSignature: {
    type: 'object',
    description: 'An A2T tool signature (draft §5).',
    required: ['toolId', 'name', 'description', 'version', 'input_parameters', 'output_parameters'],
    properties: {
      toolId: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      description: { type: 'string' },
      version: { type: 'integer' },
      currentVersion: { type: 'integer' },
      tags: { type: 'array', items: { type: 'string' } },
      input_parameters: { type: 'array', items: { type: 'object' } },
      output_parameters: { type: 'array', items: { type: 'object' } },
    },
  },
  A2tListing: {
    type: 'object',
    required: ['items', 'paging'],
    properties: {
      items: { type: 'array', items: ref('A2tSignature') },
      paging: {
        type: 'object',
        required: ['pageLimit', 'next'],
        properties: { pageLimit: { type: 'integer' }, next: { type: ['string', 'null'] } },
      },
    },
  },
  A2tInvocation: {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', description: 'The tool name.' },
      input_parameters: { type: 'array', items: ref('A2tValue') },
    },
  },
  A2tInvocationAnswer: {
    type: 'object',
    required: ['output_parameters'],
    properties: { output_parameters: { type: 'array', items: ref('A2tValue') } },
  },
  A2tValue: {
    type: 'object',
    required: ['name', 'value'],
    additionalProperties: false,
    properties: { name: { type: 'string' }, value: {} },
  },
  LiteCapabilities: {
    type: 'object',
    required: ['version', 'features', 'endpoints', 'limits'],
    properties: {
      version: { type: 'string' },
      features: { type: 'object', additionalProperties: { type: 'boolean' } },
      endpoints: { type: 'object', additionalProperties: { type: 'string' } },
      limits: { type: 'object', additionalProperties: { type: 'integer' } },
    },
  },
  LiteTool: {
    type: 'object',
    required: ['name', 'description', 'input_schema', 'group_id'],
    properties: {
      name: { type: 'string' },
      description: { type: 'string' },
      input_schema: { type: 'object', description: 'JSON Schema of the inputs (the LLM providers’ shape).' },
      group_id: { type: ['string', 'null'] },
    },
  },
  LiteToolList: {
    type: 'object',
    required: ['tools', 'total', 'offset', 'limit'],
    properties: {
      tools: { type: 'array', items: ref('LiteTool') },
      total: { type: 'integer' },
      offset: { type: 'integer' },
      limit: { type: 'integer' },
    },
  },
  LiteGroup: {
    type: 'object',
    required: ['id', 'name', 'description', 'tool_count', 'parent_id'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      tool_count: { type: 'integer' },
      parent_id: { type: ['string', 'null'] },
    },
  },
  LiteGroupList: {
    type: 'object',
    required: ['groups', 'total', 'offset', 'limit'],
    properties: {
      groups: { type: 'array', items: ref('LiteGroup') },
      total: { type: 'integer' },
      offset: { type: 'integer' },
      limit: { type: 'integer' },
    },
  },
  LiteCallAnswer: {
    type: 'object',
    required: ['result'],
    properties: {
      result: { type: 'object', description: "The tool's outputs by name." },
      meta: {
        type: 'object',
        required: ['type', 'group_ids'],
        properties: {
          type: { const: 'group_refresh' },
          group_ids: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
  LiteError: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string' },
          message: { type: 'string' },
          retryable: { type: 'boolean' },
          problems: { type: 'array', items: ref('InputProblem') },
        },
      },
    },
  },
};
