/**
 * The shape of an Arazzo 1.0 description once it has passed the specification's own JSON Schema
 * (`arazzo.schema.json`). Only what Sculptor reads is typed; `x-` extensions pass untouched.
 */

export interface ArazzoDocument {
  arazzo: string;
  info: { title: string; version: string; summary?: string; description?: string };
  sourceDescriptions: SourceDescription[];
  workflows: Workflow[];
  components?: Components;
}

export interface SourceDescription {
  name: string;
  url: string;
  type?: 'openapi' | 'arazzo';
}

export interface Workflow {
  workflowId: string;
  summary?: string;
  description?: string;
  /** A JSON Schema 2020-12 object. */
  inputs?: Record<string, unknown>;
  dependsOn?: string[];
  steps: Step[];
  successActions?: Array<SuccessAction | Reusable>;
  failureActions?: Array<FailureAction | Reusable>;
  outputs?: Record<string, string>;
  parameters?: Array<Parameter | Reusable>;
}

export interface Step {
  stepId: string;
  description?: string;
  operationId?: string;
  operationPath?: string;
  workflowId?: string;
  parameters?: Array<Parameter | Reusable>;
  requestBody?: RequestBody;
  successCriteria?: Criterion[];
  onSuccess?: Array<SuccessAction | Reusable>;
  onFailure?: Array<FailureAction | Reusable>;
  outputs?: Record<string, string>;
}

export interface Parameter {
  name: string;
  in?: 'path' | 'query' | 'header' | 'cookie';
  value: unknown;
}

export interface Reusable {
  reference: string;
  value?: unknown;
}

export interface SuccessAction {
  name: string;
  type: 'end' | 'goto';
  workflowId?: string;
  stepId?: string;
  criteria?: Criterion[];
}

export interface FailureAction {
  name: string;
  type: 'end' | 'goto' | 'retry';
  workflowId?: string;
  stepId?: string;
  retryAfter?: number;
  retryLimit?: number;
  criteria?: Criterion[];
}

export interface Criterion {
  context?: string;
  condition: string;
  type?: 'simple' | 'regex' | 'jsonpath' | 'xpath' | { type: 'jsonpath' | 'xpath'; version: string };
}

export interface RequestBody {
  contentType?: string;
  payload?: unknown;
  replacements?: Array<{ target: string; value: unknown }>;
}

export interface Components {
  inputs?: Record<string, Record<string, unknown>>;
  parameters?: Record<string, Parameter>;
  successActions?: Record<string, SuccessAction>;
  failureActions?: Record<string, FailureAction>;
}

export function isReusable(value: object): value is Reusable {
  return Object.hasOwn(value, 'reference');
}
