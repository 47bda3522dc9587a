import type { CompiledTool } from '../compile/compile-tool.ts';
import { MAX_OUTPUT_BYTES } from '../compile/tool-schema.ts';
import type { OutputParameter } from '../compile/tool-signature.ts';
import { SculptorError } from '../errors/sculptor-error.ts';

export interface OutputValue {
  name: string;
  value: unknown;
}

/**
 * Turns the output projection's object into A2T output parameters: only the
 * declared outputs (anything else a backend adds is dropped, RELIABILITY H8),
 * each checked against its type, in signature order.
 */
export function checkOutput(tool: CompiledTool, projected: unknown): OutputValue[] {
  if (typeof projected !== 'object' || projected === null || Array.isArray(projected)) {
    throw new SculptorError('projection.invalid_output', 'The output projection did not yield an object.');
  }
  const record = projected as Record<string, unknown>;
  const outputs: OutputValue[] = [];
  for (const param of tool.signature.output_parameters) {
    const value = Object.hasOwn(record, param.name) ? record[param.name] : undefined;
    if (value === undefined || value === null) {
      if (tool.optionalOutputs.has(param.name)) continue;
      throw new SculptorError(
        'projection.invalid_output',
        `Output '${param.name}' is missing from the result.`,
      );
    }
    outputs.push({ name: param.name, value: checkValue(param, value) });
  }
  // Serialized only when the bound cannot vouch for it: the face serializes the outputs again.
  if (sizeBound(outputs) > MAX_OUTPUT_BYTES) {
    const size = Buffer.byteLength(JSON.stringify(outputs));
    if (size > MAX_OUTPUT_BYTES) {
      throw new SculptorError(
        'projection.too_large',
        `The tool output is ${size} bytes, over ${MAX_OUTPUT_BYTES}.`,
      );
    }
  }
  return outputs;
}

/**
 * Bytes the outputs' JSON (`[{"name":…,"value":…},…]`, UTF-8) can take at most, without
 * serializing them: a UTF-16 unit of a string is at most 6 bytes (`\u001f`, a lone surrogate), a
 * finite number at most 25 characters, `true`/`false` 5; a value of type json that is an object
 * or an array is bounded only by serializing it.
 */
function sizeBound(outputs: readonly OutputValue[]): number {
  let bound = 2;
  for (const { name, value } of outputs) {
    bound += 21 + 6 * name.length; // {"name":"…","value":…},
    if (typeof value === 'string') bound += 2 + 6 * value.length;
    else if (typeof value === 'number' || typeof value === 'boolean') bound += 32;
    else return Infinity;
  }
  return bound;
}

function checkValue(param: OutputParameter, value: unknown): unknown {
  const wrong = (expected: string) =>
    new SculptorError('projection.invalid_output', `Output '${param.name}' must be ${expected}.`);
  switch (param.type) {
    case 'string':
      if (typeof value !== 'string') throw wrong('a string');
      return inert(value);
    case 'int':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw wrong('an integer');
      return value;
    case 'enum': {
      const allowed = (param['allowed-values'] ?? []).map((v) => v.name);
      if (typeof value !== 'string' || !allowed.includes(value)) throw wrong(`one of ${allowed.join(', ')}`);
      return value;
    }
    case 'json':
      return inertJson(value);
  }
}

/**
 * Backend text reaches the LLM as data (RELIABILITY B10): terminal escapes
 * and control characters other than tab and newline are removed.
 */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
/** The same class, not global: a test that finds none stays in compiled code (a replace calls the runtime). */
const HAS_CONTROL = new RegExp(CONTROL.source);

function inert(text: string): string {
  return HAS_CONTROL.test(text) ? text.replace(CONTROL, '') : text;
}

function inertJson(value: unknown): unknown {
  if (typeof value === 'string') return inert(value);
  if (Array.isArray(value)) return value.map(inertJson);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [inert(k), inertJson(v)]));
  }
  return value;
}
