import type { CatalogTool, ScopedCatalog, ToolAudience } from '../../catalog/catalog.ts';
import { toolSchema } from '../../compile/tool-schema.ts';
import { CODES } from '../../errors/sculptor-error.ts';
import {
  INVOCATION,
  JSON_TYPE,
  type OpenApiContribution,
  ref,
  response,
} from '../common/openapi-fragments.ts';
import { PROBLEM_CONTENT_TYPE } from '../common/problem-details.ts';
import { codesByStatus } from './openapi-errors.ts';

/**
 * The gateway's own OpenAPI 3.1 document (A2T §7.1): the other faces' endpoints, as each describes them,
 * and one typed operation per tool the caller may call — `POST /call/{name}`, whose request body
 * is the tool's input schema and whose answer is its output schema (both from
 * compile/tool-schema.ts, the one generator), errors as problem details. Paths are relative to
 * the server, `{platform-root}`.
 */
export interface DocumentOptions {
  prefix: string;
  /** A callers file is in force: every operation but the capabilities file takes a bearer token. */
  secured: boolean;
  /** The other faces' endpoints (A2T, a2t-lite), each described by its face. */
  contributions: readonly OpenApiContribution[];
}

const documents = new WeakMap<ScopedCatalog, WeakMap<ToolAudience, string>>();

/** The document for one caller, serialized; kept per catalog and audience. */
export function openApiDocument(
  catalog: ScopedCatalog,
  audience: ToolAudience,
  options: DocumentOptions,
): string {
  let byAudience = documents.get(catalog);
  if (!byAudience) documents.set(catalog, (byAudience = new WeakMap()));
  let text = byAudience.get(audience);
  if (text === undefined) {
    text = JSON.stringify(buildDocument(catalog, catalog.list({ audience }), options));
    byAudience.set(audience, text);
  }
  return text;
}

function buildDocument(
  catalog: ScopedCatalog,
  tools: CatalogTool[],
  { prefix, secured, contributions }: DocumentOptions,
) {
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
  const paths: Record<string, unknown> = Object.assign({}, ...contributions.map((c) => c.paths(errors)));
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
    ...contributions.map((c) => c.tag),
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
