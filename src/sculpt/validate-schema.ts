import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { SculptorError } from '../errors/sculptor-error.ts';
import backendsSchema from './backends.schema.json' with { type: 'json' };
import callersSchema from './callers.schema.json' with { type: 'json' };
import sculptSchema from './sculpt.schema.json' with { type: 'json' };
import type { YamlPath, YamlSource } from './yaml-source.ts';

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = {
  sculpt: ajv.compile(sculptSchema),
  backends: ajv.compile(backendsSchema),
  callers: ajv.compile(callersSchema),
};

export type SchemaName = keyof typeof validators;

/** Validates a parsed file against its JSON Schema; every violation gets a position. */
export function validateAgainstSchema(name: SchemaName, source: YamlSource): SculptorError[] {
  return schemaErrors(validators[name], source);
}

/** Every violation of a compiled schema, each at the position of the value it concerns. */
export function schemaErrors(validate: ValidateFunction, source: YamlSource): SculptorError[] {
  if (validate(source.value)) return [];
  const all = validate.errors ?? [];
  return simplify(all).map((e) => {
    const path = pointerToPath(e.instancePath);
    const extra =
      e.keyword === 'additionalProperties'
        ? String(e.params.additionalProperty)
        : e.keyword === 'unevaluatedProperties'
          ? String(e.params.unevaluatedProperty)
          : e.keyword === 'propertyNames'
            ? String(e.params.propertyName)
            : undefined;
    if (e.keyword === 'propertyNames') {
      // The reason is on the nested error ajv reports for the same name.
      const why = all.find((n) => n.propertyName === extra && n.instancePath === e.instancePath);
      return new SculptorError(
        'load.schema',
        `Invalid name '${extra}' in '${path.join('.')}': ${why?.message ?? 'not allowed'}.`,
        {
          at: source.keyAt([...path, extra!]),
        },
      );
    }
    const at = extra !== undefined ? source.keyAt([...path, extra]) : source.at(path);
    return new SculptorError('load.schema', describe(e, path, extra), { at });
  });
}

/**
 * ajv reports every branch of a failed `oneOf`/`if` and a parent error for
 * each child; keep the ones a designer can act on, one per place and keyword.
 */
function simplify(errors: ErrorObject[]): ErrorObject[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    if (e.keyword === 'if' || e.keyword === 'oneOf' || e.keyword === 'anyOf') return false;
    if (e.propertyName !== undefined) return false; // folded into its `propertyNames` error
    const key = `${e.instancePath}|${e.keyword}|${JSON.stringify(e.params)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function describe(e: ErrorObject, path: YamlPath, extra: string | undefined): string {
  const where = path.length > 0 ? `'${path.join('.')}'` : 'the file';
  switch (e.keyword) {
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return `Unknown property '${extra}' in ${where}.`;
    case 'required':
      return `Missing property '${String(e.params.missingProperty)}' in ${where}.`;
    case 'enum':
      return `${where} must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}.`;
    default:
      return `${where} ${e.message ?? 'is invalid'}.`;
  }
}

function pointerToPath(pointer: string): Array<string | number> {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}
