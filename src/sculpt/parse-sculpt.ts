import type { SculptorError } from '../errors/sculptor-error.ts';
import { validateAgainstSchema } from './validate-schema.ts';
import type { YamlSource } from './yaml-source.ts';

/** The shape of a sculpt file once it has passed its JSON Schema (see sculpt.schema.json). */
export interface SculptDocument {
  tool: string;
  version: number;
  description: string;
  tags?: string[];
  timeout?: string;
  inputs?: Record<string, InputDeclaration>;
  outputs: Record<string, OutputDeclaration>;
  /** Empty when the tool runs a workflow. */
  steps: StepDeclaration[];
  output: string;
  /** Instead of steps: an Arazzo workflow, `<arazzo name>#<workflowId>`. */
  workflow?: string;
  /** With workflow: JSONata building the workflow's inputs from `$inputs`. */
  arguments?: string;
  /** With workflow: cache of its steps, by stepId (`workflowId/stepId` for a workflow it calls). */
  cache?: Record<string, { ttl: string; scope?: 'shared' | 'caller' }>;
  /** Overrides of the effects derived from the steps' HTTP methods (see compile/tool-effects.ts). */
  effects?: {
    readOnly?: boolean;
    idempotent?: boolean;
    destructive?: boolean;
    reversible?: boolean;
    billable?: boolean;
  };
}

export interface InputDeclaration {
  id?: string;
  type: 'string' | 'int' | 'boolean' | 'enum';
  description: string;
  required?: boolean;
  default?: string | number | boolean;
  maxLength?: number;
  min?: number;
  max?: number;
  values?: Record<string, string>;
}

export interface OutputDeclaration {
  id?: string;
  type: 'string' | 'int' | 'enum' | 'json';
  description: string;
  required?: boolean;
  values?: Record<string, string>;
}

export interface StepDeclaration {
  id: string;
  call: string;
  params?: string;
  body?: string;
  when?: string;
  result?: string;
  idempotent?: boolean;
  cache?: { ttl: string; scope?: 'shared' | 'caller' };
  on?: Record<string, { error: string }>;
}

/** A sculpt file that passed its schema, with the source kept for positions. */
export interface SculptSpec {
  file: string;
  source: YamlSource;
  doc: SculptDocument;
}

export function parseSculpt(source: YamlSource): { sculpt?: SculptSpec; errors: SculptorError[] } {
  const errors = validateAgainstSchema('sculpt', source);
  if (errors.length > 0) return { errors };
  const doc = source.value as SculptDocument;
  // A tool that runs a workflow has no steps of its own: every reader of `steps` sees none.
  if (doc.workflow !== undefined && doc.steps === undefined) doc.steps = [];
  return { sculpt: { file: source.file, source, doc }, errors };
}
