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
  steps: StepDeclaration[];
  output: string;
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
  return { sculpt: { file: source.file, source, doc: source.value as SculptDocument }, errors };
}
