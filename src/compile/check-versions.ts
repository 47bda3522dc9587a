import { SculptorError } from '../errors/sculptor-error.ts';
import type { CompiledTool } from './compile-tool.ts';
import type { InputParameter } from './tool-signature.ts';

/**
 * A2T §5.4: a new version may only add optional inputs and add outputs.
 * Compares each version with the one before it; descriptions may improve,
 * but what a caller sends and reads may not change.
 */
export function checkVersions(versions: CompiledTool[]): SculptorError[] {
  const errors: SculptorError[] = [];
  const sorted = [...versions].sort((a, b) => a.signature.version - b.signature.version);
  for (let i = 1; i < sorted.length; i++) {
    const before = sorted[i - 1]!;
    const after = sorted[i]!;
    const fail = (message: string) =>
      errors.push(
        new SculptorError(
          'compile.version_break',
          `Version ${after.signature.version} of ${after.signature.name} breaks A2T §5.4 against version ${before.signature.version} (${before.file}): ${message} Add optional inputs or new outputs only.`,
          { at: after.versionAt },
        ),
      );
    const oldInputs = new Map(before.signature.input_parameters.map((p) => [p.id, p]));
    const newInputs = new Map(after.signature.input_parameters.map((p) => [p.id, p]));
    for (const [id, old] of oldInputs) {
      const now = newInputs.get(id);
      if (!now) fail(`input '${old.name}' was removed.`);
      else {
        const change = inputChange(old, now);
        if (change) fail(`input '${old.name}' ${change}.`);
      }
    }
    for (const [id, now] of newInputs) {
      if (!oldInputs.has(id) && now.required) fail(`new input '${now.name}' is required.`);
    }
    const newOutputs = new Map(after.signature.output_parameters.map((p) => [p.id, p]));
    for (const old of before.signature.output_parameters) {
      const now = newOutputs.get(old.id);
      if (!now) fail(`output '${old.name}' was removed.`);
      else if (now.name !== old.name) fail(`output '${old.name}' was renamed to '${now.name}'.`);
      else if (now.type !== old.type)
        fail(`output '${old.name}' changed type from ${old.type} to ${now.type}.`);
      else if (enumNames(old) !== enumNames(now)) fail(`output '${old.name}' changed its allowed values.`);
    }
  }
  return errors;
}

function inputChange(old: InputParameter, now: InputParameter): string | undefined {
  if (now.name !== old.name) return `was renamed to '${now.name}'`;
  if (now.type !== old.type) return `changed type from ${old.type} to ${now.type}`;
  if (now.required !== old.required) return 'changed whether it is required';
  if (now.maxLength !== old.maxLength) return 'changed its maxLength';
  if (now.min !== old.min || now.max !== old.max) return 'changed its bounds';
  if (enumNames(now) !== enumNames(old)) return 'changed its allowed values';
  return undefined;
}

function enumNames(p: { 'allowed-values'?: Array<{ name: string }> }): string {
  return (p['allowed-values'] ?? []).map((v) => v.name).join('|');
}
