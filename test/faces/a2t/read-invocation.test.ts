/**
 * The A2T envelope → named arguments: envelope problems and the engine's argument
 * problems reported together, in the order A2T has always reported them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { compileSculpts } from '../../../src/compile/compile-sculpts.ts';
import type { CompiledTool } from '../../../src/compile/compile-tool.ts';
import type { SculptorError } from '../../../src/errors/sculptor-error.ts';
import { readInvocation } from '../../../src/faces/a2t/read-invocation.ts';

let tool: CompiledTool;

beforeAll(async () => {
  const tools = await compileSculpts('sculpts', {});
  tool = tools.find((t) => t.signature.name === 'find_pets_by_status' && t.signature.version === 2)!;
});

const problems = (body: unknown) => {
  try {
    readInvocation(tool, body);
  } catch (err) {
    return (err as SculptorError).problems?.map((p) => `${p.parameter} ${p.reason}`);
  }
  throw new Error('expected input.invalid');
};

describe('readInvocation', () => {
  it('returns the named arguments of a well-formed envelope, unchecked beyond the envelope', () => {
    expect(
      readInvocation(tool, { name: tool.signature.name, input_parameters: [{ name: 'status', value: 7 }] }),
    ).toEqual({ status: 7 });
  });

  it('envelope problems, then items in their order, then the declared inputs', () => {
    expect(
      problems({
        name: 'other',
        extra: true,
        input_parameters: [
          { name: 'nope', value: 1 },
          { name: 'status', value: 'AVAILABLE', more: 1 },
          { name: 'status', value: 'available' },
          { name: 'status', value: 'SOLD' },
        ],
      }),
    ).toEqual([
      'extra is not part of an A2T invocation',
      `name must be "${tool.signature.name}", the tool being invoked`,
      expect.stringMatching(/^nope is not an input of this tool/),
      'input_parameters[1] must be an object {name, value}',
      'status is given more than once',
      expect.stringMatching(/^status must be one of /),
    ]);
  });

  it('a body that is not an envelope, and input_parameters that is not an array', () => {
    expect(problems([])).toEqual(['(body) must be a JSON object {name, input_parameters}']);
    expect(problems({ name: tool.signature.name, input_parameters: {} })).toEqual([
      'input_parameters must be an array',
    ]);
  });
});
