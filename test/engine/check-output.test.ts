/**
 * The output check's size cap (MAX_OUTPUT_BYTES, the serialized outputs in UTF-8): outputs the
 * cheap bound vouches for pass unserialized, and every output over the cap is refused
 * projection.too_large whatever makes it large — plain text, escapes, a json value.
 */
import { describe, expect, it } from 'vitest';
import type { CompiledTool } from '../../src/compile/compile-tool.ts';
import { MAX_OUTPUT_BYTES } from '../../src/compile/tool-schema.ts';
import type { OutputParameter } from '../../src/compile/tool-signature.ts';
import { checkOutput } from '../../src/engine/check-output.ts';
import { SculptorError } from '../../src/errors/sculptor-error.ts';

/** What checkOutput reads of a tool: its declared outputs, none of them optional. */
function toolWith(outputs: Array<Pick<OutputParameter, 'name' | 'type'>>): CompiledTool {
  return {
    signature: { output_parameters: outputs.map((o) => ({ ...o, id: o.name, description: o.name })) },
    optionalOutputs: new Set<string>(),
  } as unknown as CompiledTool;
}

const text = toolWith([
  { name: 'count', type: 'int' },
  { name: 'text', type: 'string' },
]);
const json = toolWith([{ name: 'body', type: 'json' }]);

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    return err instanceof SculptorError ? err.code : 'not a SculptorError';
  }
}

const serializedSize = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('the output size cap', () => {
  it('passes small outputs as they are', () => {
    expect(checkOutput(text, { count: 3, text: 'Sunny' })).toEqual([
      { name: 'count', value: 3 },
      { name: 'text', value: 'Sunny' },
    ]);
  });

  it('passes text just under the cap, where only serializing tells', () => {
    const outputs = checkOutput(text, { count: 1, text: 'a'.repeat(MAX_OUTPUT_BYTES - 100) });
    expect(serializedSize(outputs)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
  });

  it('refuses plain text over the cap', () => {
    expect(codeOf(() => checkOutput(text, { count: 1, text: 'a'.repeat(MAX_OUTPUT_BYTES) }))).toBe(
      'projection.too_large',
    );
  });

  it('refuses text that only its escapes take over the cap', () => {
    // A lone surrogate is written as \udXXX: 6 bytes for one character.
    const escaped = '\ud800'.repeat(Math.ceil(MAX_OUTPUT_BYTES / 6));
    expect(escaped.length).toBeLessThan(MAX_OUTPUT_BYTES);
    expect(serializedSize(escaped)).toBeGreaterThan(MAX_OUTPUT_BYTES);
    expect(codeOf(() => checkOutput(text, { count: 1, text: escaped }))).toBe('projection.too_large');
    // Multi-byte characters count in UTF-8 bytes: 3 each.
    const euros = '€'.repeat(Math.ceil(MAX_OUTPUT_BYTES / 3));
    expect(codeOf(() => checkOutput(text, { count: 1, text: euros }))).toBe('projection.too_large');
  });

  it('refuses a json value over the cap and passes one under it', () => {
    const big = { rows: Array.from({ length: 2000 }, (_, i) => ({ i, name: `row ${i}` })) };
    expect(serializedSize(big)).toBeGreaterThan(MAX_OUTPUT_BYTES);
    expect(codeOf(() => checkOutput(json, { body: big }))).toBe('projection.too_large');
    const small = { rows: big.rows.slice(0, 10) };
    expect(checkOutput(json, { body: small })).toEqual([{ name: 'body', value: small }]);
  });
});
