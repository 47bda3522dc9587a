import path from 'node:path';
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
          `Version ${after.signature.version} of ${after.signature.name} breaks A2T §5.4 against version ${before.signature.version} (${besideFile(after.file, before.file)}): ${message} Add optional inputs or new outputs only.`,
          { at: after.versionAt },
        ),
      );
    const oldInputs = new Map(before.signature.input_parameters.map((p) => [p.id, p]));
    const newInputs = new Map(after.signature.input_parameters.map((p) => [p.id, p]));
    for (const [id, old] of oldInputs) {
      const now = newInputs.get(id);
      if (!now) fail(`input '${old.name}' was removed.`);
      else for (const change of inputChanges(old, now)) fail(`input '${old.name}' ${change}.`);
    }
    for (const [id, now] of newInputs) {
      if (!oldInputs.has(id) && now.required) fail(`new input '${now.name}' is required.`);
    }
    const newOutputs = new Map(after.signature.output_parameters.map((p) => [p.id, p]));
    for (const old of before.signature.output_parameters) {
      const now = newOutputs.get(old.id);
      if (!now) {
        fail(`output '${old.name}' was removed.`);
        continue;
      }
      // Every difference, each its own error, as `sculptor diff` lists them.
      if (now.name !== old.name) fail(`output '${old.name}' was renamed to '${now.name}'.`);
      if (now.type !== old.type) fail(`output '${old.name}' changed type from ${old.type} to ${now.type}.`);
      if (enumNames(old) !== enumNames(now)) fail(`output '${old.name}' changed its allowed values.`);
    }
  }
  return errors;
}

function inputChanges(old: InputParameter, now: InputParameter): string[] {
  const changes: string[] = [];
  if (now.name !== old.name) changes.push(`was renamed to '${now.name}'`);
  if (now.type !== old.type) changes.push(`changed type from ${old.type} to ${now.type}`);
  if (now.required !== old.required) changes.push('changed whether it is required');
  if (now.maxLength !== old.maxLength) changes.push('changed its maxLength');
  if (now.min !== old.min || now.max !== old.max) changes.push('changed its bounds');
  if (enumNames(now) !== enumNames(old)) changes.push('changed its allowed values');
  return changes;
}

/** `other` as seen from `file`'s folder: messages name no absolute path (the finding gives `file`). */
export function besideFile(file: string, other: string): string {
  return path.relative(path.dirname(file), other) || path.basename(other);
}

function enumNames(p: { 'allowed-values'?: Array<{ name: string }> }): string {
  return (p['allowed-values'] ?? []).map((v) => v.name).join('|');
}
