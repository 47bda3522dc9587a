/**
 * What a face adds to the gateway's OpenAPI document (faces/openapi): its own paths and tag.
 * Each face describes its own endpoints; the OpenAPI face assembles them with the tools'
 * typed operations and the shared components (schemas by name, problem answers by status).
 */
export interface OpenApiContribution {
  tag: { name: string; description: string };
  /** The face's paths, relative to `{platform-root}`; `errors` gives the problem answers of a set of statuses. */
  paths(errors: Errors): Record<string, unknown>;
}

/** The problem answers an operation declares, by the statuses its codes can have. */
export type Errors = (statuses: number[]) => Record<string, unknown>;

export const JSON_TYPE = 'application/json';
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const response = (status: number) => ({ $ref: `#/components/responses/Problem${status}` });

/** Error answers an operation declares, by the statuses its codes can have. */
export const LOOKUP = [400, 404];
export const LISTING = [400, 404, 429, 503];
export const INVOCATION = [400, 403, 404, 413, 415, 422, 429, 499, 500, 502, 503, 504];

export const query = (name: string, description: string, schema: Record<string, unknown>) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
export const path = (
  name: string,
  description: string,
  schema: Record<string, unknown> = { type: 'string' },
) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
});
export const ok = (description: string, schema: string) => ({
  '200': { description, content: { [JSON_TYPE]: { schema: ref(schema) } } },
});
