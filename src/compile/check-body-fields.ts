/**
 * What can be known at load about a body whose fields are exactly its schema's (a SOAP message):
 * where `body` is an object constructor with literal keys, every key must be a field, every
 * required field must be there, and a constant must fit its field (type, enumeration) — nested
 * constructors too. Each problem says how to fix it (the close field names, the allowed values)
 * and points at the key it is about.
 */
import type { ErrorCode } from '../errors/sculptor-error.ts';
import { closeMatches } from '../openapi/find-operation.ts';
import { scalarFit } from '../xml/json-to-xml.ts';
import { flatten, isArraySchema, scalarKind, type XmlSchema } from '../xml/xml-schema.ts';
import { type AstNode, literalObjectPairs } from './compile-expression.ts';

export interface BodyProblem {
  code: Extract<ErrorCode, 'compile.unknown_param' | 'compile.missing_param' | 'compile.invalid_value'>;
  message: string;
  /** Offset in the expression of what it is about, when known. */
  offset?: number;
}

export function bodyFieldProblems(schema: object | undefined, ast: AstNode, call: string): BodyProblem[] {
  const problems: BodyProblem[] = [];
  check(flatten(schema as XmlSchema | undefined), ast, '', call, problems, 0);
  return problems;
}

const INIT_PLACEHOLDER = 'REPLACE_ME';

/** Nested constructors are followed this deep; a sculpt's body is never deeper. */
const MAX_DEPTH = 16;

function check(
  schema: XmlSchema | undefined,
  ast: AstNode,
  path: string,
  call: string,
  problems: BodyProblem[],
  depth: number,
): void {
  if (!schema?.properties || depth > MAX_DEPTH) return;
  const pairs = literalObjectPairs(ast);
  if (!pairs) return; // computed: checked when the envelope is built
  const fields = Object.keys(schema.properties);
  const where = path === '' ? 'its body' : `body field '${path}'`;
  const keyNodes = keyPositions(ast);
  for (const [key, value] of pairs) {
    const field = schema.properties[key];
    const at = keyNodes.get(key);
    const name = path === '' ? key : `${path}.${key}`;
    if (!field) {
      if (schema.additionalProperties !== false) continue;
      const close = closeMatches(key, fields);
      problems.push({
        code: 'compile.unknown_param',
        message: `${call} has no field '${key}' in ${where}${close.length > 0 ? ` (did you mean ${close.map((c) => `'${c}'`).join(', ')}?)` : ''}; its fields: ${fields.join(', ') || 'none'}.`,
        ...(at !== undefined ? { offset: at } : {}),
      });
      continue;
    }
    const f = flatten(field);
    if (isArraySchema(f)) continue;
    const constant = literal(value);
    // `sculptor init`'s placeholder is reported as such (lint.placeholder), not as a wrong value.
    if (constant !== undefined && constant.value !== INIT_PLACEHOLDER) {
      const reason = misfit(constant.value, f);
      if (reason) {
        problems.push({
          code: 'compile.invalid_value',
          message: `${call}: body field '${name}' ${reason}; it is ${JSON.stringify(constant.value)}.`,
          offset: startOf(value),
        });
      }
    }
    check(f, value, name, call, problems, depth + 1);
  }
  for (const key of schema.required ?? []) {
    if (pairs.has(key)) continue;
    const f = flatten(schema.properties[key]);
    const allowed = Array.isArray(f?.enum) ? ` (one of ${f!.enum.map(String).join(', ')})` : '';
    problems.push({
      code: 'compile.missing_param',
      message: `${call} requires field '${path === '' ? key : `${path}.${key}`}'${allowed} in ${where === 'its body' ? 'its body' : `'${path}'`}, never supplied: add it (null, where the schema allows it, leaves it out).`,
    });
  }
}

/** Where each literal key of an object constructor starts (jsonata gives the offset after a token). */
function keyPositions(ast: AstNode): Map<string, number> {
  const positions = new Map<string, number>();
  const node =
    ast.type === 'block' && Array.isArray(ast.expressions) ? (ast.expressions.at(-1) as AstNode) : ast;
  if (node?.type !== 'unary' || !Array.isArray(node.lhs)) return positions;
  for (const [key] of node.lhs as unknown as Array<[AstNode, AstNode]>) {
    if (key?.type === 'string' && typeof key.position === 'number') {
      positions.set(String(key.value), Math.max(0, key.position - String(key.value).length - 2));
    }
  }
  return positions;
}

/** Where a literal starts: jsonata gives the offset after it (a string's closing quote included). */
function startOf(node: AstNode): number {
  const end = typeof node.position === 'number' ? node.position : 0;
  const length = node.type === 'string' ? String(node.value).length + 2 : String(node.value).length;
  return Math.max(0, end - length);
}

/** A constant written in the expression: a string, number, boolean or null literal. */
function literal(node: AstNode): { value: unknown } | undefined {
  if (node.type === 'string' || node.type === 'number' || node.type === 'value') return { value: node.value };
  return undefined;
}

function misfit(value: unknown, field: XmlSchema | undefined): string | undefined {
  if (!field || value === null) return undefined;
  if (scalarKind(field) === undefined && field.properties)
    return typeof value === 'object' ? undefined : 'must be an object';
  const fits = scalarFit(value, field);
  return 'reason' in fits ? fits.reason : undefined;
}
