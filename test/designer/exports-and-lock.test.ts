import { describe, expect, it } from 'vitest';
import { toolEffects } from '../../src/compile/tool-effects.ts';
import type { ToolSignature } from '../../src/compile/tool-signature.ts';
import { describe as describeTool, safetySuffix, truncate } from '../../src/compile/tool-schema.ts';
import { signatureHash } from '../../src/designer/signature-lock.ts';

describe('toolEffects', () => {
  it('derives effects from the HTTP methods of the steps', () => {
    expect(toolEffects([{ method: 'GET' }, { method: 'HEAD' }])).toEqual({
      readOnly: true,
      idempotent: true,
      destructive: false,
      reversible: true,
      billable: false,
    });
    expect(toolEffects([{ method: 'GET' }, { method: 'DELETE' }])).toMatchObject({
      readOnly: false,
      idempotent: true,
      destructive: true,
      reversible: false,
    });
    expect(toolEffects([{ method: 'POST' }])).toMatchObject({
      readOnly: false,
      idempotent: false,
      reversible: undefined,
    });
    expect(toolEffects([{ method: 'POST', idempotent: true }]).idempotent).toBe(true);
  });

  it('lets the sculpt override each one', () => {
    expect(
      toolEffects([{ method: 'POST' }], { idempotent: true, reversible: true, billable: true }),
    ).toMatchObject({
      idempotent: true,
      reversible: true,
      billable: true,
    });
    expect(toolEffects([{ method: 'DELETE' }], { destructive: false }).destructive).toBe(false);
  });
});

describe('descriptions for providers (ATIP §8.2 rule 1)', () => {
  const effects = toolEffects([{ method: 'DELETE' }], { billable: true });

  it('appends the safety flags in ATIP order', () => {
    expect(safetySuffix(effects)).toBe('[⚠️ DESTRUCTIVE | ⚠️ NOT REVERSIBLE | 💰 BILLABLE]');
    expect(safetySuffix(toolEffects([{ method: 'POST' }]))).toBe('[⚠️ NOT IDEMPOTENT]');
    expect(safetySuffix(toolEffects([{ method: 'PUT' }]))).toBe('');
    expect(describeTool('Remove it.', effects)).toBe(
      'Remove it. [⚠️ DESTRUCTIVE | ⚠️ NOT REVERSIBLE | 💰 BILLABLE]',
    );
  });

  it('keeps the flags and cuts the text at a sentence when over the limit', () => {
    const text = `${'A sentence of words. '.repeat(60)}`.trim();
    const out = describeTool(text, effects, 1024);
    expect(out.length).toBeLessThanOrEqual(1024);
    expect(out).toMatch(/words\. \[⚠️ DESTRUCTIVE \| ⚠️ NOT REVERSIBLE \| 💰 BILLABLE\]$/);
  });

  it('cuts at a word, with an ellipsis, when no sentence ends late enough', () => {
    const out = truncate(`${'word '.repeat(300)}`.trim(), 100);
    expect(out.length).toBeLessThanOrEqual(100);
    expect(out).toMatch(/word…$/);
    expect(truncate('short', 100)).toBe('short');
  });
});

describe('signatureHash', () => {
  const signature: ToolSignature = {
    toolId: '2d691812-13c4-57f0-8f4a-d31af0430a4e',
    name: 'describe_pet',
    description: 'Describe a pet. Use it when asked.',
    version: 1,
    tags: ['petstore'],
    input_parameters: [{ id: 'n', name: 'n', type: 'int', description: 'N.', required: true, max: 10 }],
    output_parameters: [{ id: 'name', name: 'name', type: 'string', description: 'Name.' }],
  };

  it('is sha256 of canonical JSON: the same whatever the key order, and without currentVersion', () => {
    const reordered = JSON.parse(JSON.stringify({ ...signature, name: undefined, toolId: undefined }));
    Object.assign(reordered, { name: signature.name, toolId: signature.toolId, currentVersion: 7 });
    expect(signatureHash(reordered)).toBe(signatureHash(signature));
    expect(signatureHash(signature)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('changes with any part of the signature, descriptions included', () => {
    const base = signatureHash(signature);
    expect(signatureHash({ ...signature, description: 'Describe a pet. Use it when asked!' })).not.toBe(base);
    expect(
      signatureHash({ ...signature, input_parameters: [{ ...signature.input_parameters[0]!, max: 11 }] }),
    ).not.toBe(base);
    expect(signatureHash({ ...signature, tags: [] })).not.toBe(base);
  });
});
