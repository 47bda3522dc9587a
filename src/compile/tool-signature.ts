import { createHash } from 'node:crypto';
import type { InputDeclaration, OutputDeclaration, SculptDocument } from '../sculpt/parse-sculpt.ts';

/** A2T defaults (draft §6.1) and Sculptor's own where A2T sets none. */
export const DEFAULT_INT_MAX = 65_535;
export const DEFAULT_STRING_MAX_LENGTH = 1024;

export interface AllowedValue {
  name: string;
  description: string;
}

/** An input parameter exactly as A2T shows it (draft Figures 2 and 3). */
export interface InputParameter {
  id: string;
  name: string;
  type: 'string' | 'int' | 'boolean' | 'enum';
  description: string;
  required: boolean;
  maxLength?: number;
  min?: number;
  max?: number;
  'allowed-values'?: AllowedValue[];
}

export interface OutputParameter {
  id: string;
  name: string;
  type: 'string' | 'int' | 'enum' | 'json';
  description: string;
  'allowed-values'?: AllowedValue[];
}

/** The A2T ToolSignature of one version (`currentVersion` is added by the catalog). */
export interface ToolSignature {
  toolId: string;
  name: string;
  description: string;
  version: number;
  tags: string[];
  input_parameters: InputParameter[];
  output_parameters: OutputParameter[];
}

/**
 * A UUID (version 5 layout) derived from the tool name, so the same tool has
 * the same id across restarts, replicas and versions, with no state to keep.
 */
const NAMESPACE = Buffer.from('5c0e1d7a9b3f4e2a8c6d0f1e2a3b4c5d', 'hex');

export function toolIdFor(name: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function buildSignature(doc: SculptDocument): ToolSignature {
  return {
    toolId: toolIdFor(doc.tool),
    name: doc.tool,
    description: doc.description.trim(),
    version: doc.version,
    tags: doc.tags ?? [],
    input_parameters: Object.entries(doc.inputs ?? {}).map(([name, d]) => inputParameter(name, d)),
    output_parameters: Object.entries(doc.outputs).map(([name, d]) => outputParameter(name, d)),
  };
}

function inputParameter(name: string, d: InputDeclaration): InputParameter {
  const p: InputParameter = {
    id: d.id ?? name,
    name,
    type: d.type,
    description: d.description.trim(),
    required: d.required ?? true,
  };
  if (d.type === 'string') p.maxLength = d.maxLength ?? DEFAULT_STRING_MAX_LENGTH;
  if (d.type === 'int') {
    if (d.min !== undefined) p.min = d.min;
    p.max = d.max ?? DEFAULT_INT_MAX;
  }
  if (d.type === 'enum') p['allowed-values'] = allowedValues(d.values);
  return p;
}

function outputParameter(name: string, d: OutputDeclaration): OutputParameter {
  const p: OutputParameter = { id: d.id ?? name, name, type: d.type, description: d.description.trim() };
  if (d.type === 'enum') p['allowed-values'] = allowedValues(d.values);
  return p;
}

function allowedValues(values: Record<string, string> | undefined): AllowedValue[] {
  return Object.entries(values ?? {}).map(([name, description]) => ({
    name,
    description: description.trim(),
  }));
}
