/**
 * The engine's protocol-neutral argument check: named arguments, every problem at
 * once, the same wording whatever face the arguments came through.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import type { CompiledTool } from '../../src/compile/compile-tool.ts';
import { checkArguments, validateArguments } from '../../src/engine/validate-arguments.ts';
import { SculptorError } from '../../src/errors/sculptor-error.ts';

let findPets: CompiledTool;

beforeAll(async () => {
  const tools = await compileSculpts('sculpts', {});
  findPets = tools.find((t) => t.signature.name === 'find_pets_by_status' && t.signature.version === 2)!;
});

const problemsOf = (args: unknown) => {
  try {
    validateArguments(findPets, args);
  } catch (err) {
    expect(err).toBeInstanceOf(SculptorError);
    expect((err as SculptorError).code).toBe('input.invalid');
    return (err as SculptorError).problems;
  }
  return undefined;
};

describe('validateArguments', () => {
  it('returns the inputs by name with defaults applied', () => {
    const inputs = validateArguments(findPets, { status: 'AVAILABLE' });
    expect(inputs.status).toBe('AVAILABLE');
    for (const [name, value] of Object.entries(findPets.defaults)) expect(inputs[name]).toBe(value);
  });

  it('treats null like an absent argument (OpenAI strict mode sends null for optional inputs)', () => {
    const optional = findPets.signature.input_parameters.find((p) => !p.required)!;
    expect(validateArguments(findPets, { status: 'SOLD', [optional.name]: null })).toEqual(
      validateArguments(findPets, { status: 'SOLD' }),
    );
  });

  it('reports unknown names first, then each declared input, all at once', () => {
    expect(problemsOf({ bogus: 1, status: 'available' })).toEqual([
      { parameter: 'bogus', reason: expect.stringMatching(/^is not an input of this tool \(inputs: /) },
      { parameter: 'status', reason: expect.stringMatching(/^must be one of /) },
    ]);
    expect(problemsOf({})).toEqual([{ parameter: 'status', reason: 'is required' }]);
  });

  it('refuses anything but an object of named arguments', () => {
    for (const args of [null, [], 'status', 3]) {
      expect(problemsOf(args)).toEqual([
        { parameter: '(arguments)', reason: 'must be a JSON object of named inputs' },
      ]);
    }
  });

  it('never reads inherited keys as arguments', () => {
    const args = Object.create({ status: 'AVAILABLE' }) as Record<string, unknown>;
    expect(checkArguments(findPets, args).problems).toEqual([{ parameter: 'status', reason: 'is required' }]);
  });
});
