import type { SculptDocument } from '../sculpt/parse-sculpt.ts';

/**
 * What invoking a tool does to the world (ATIP §3.6 effects), for agents and
 * provider exports. Not part of the A2T signature. `reversible` is undefined
 * when nothing says (a POST may or may not be undoable).
 */
export interface ToolEffects {
  readOnly: boolean;
  idempotent: boolean;
  destructive: boolean;
  reversible: boolean | undefined;
  billable: boolean;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** HTTP methods idempotent by definition (RFC 9110 §9.2.2). */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);

/**
 * Effects derived from the steps' HTTP methods, then the sculpt's `effects`
 * block on top: all GET/HEAD is read-only and idempotent; any DELETE is
 * destructive and not reversible; a step declared `idempotent` counts as such.
 */
export function toolEffects(
  steps: ReadonlyArray<{ method: string; idempotent?: boolean }>,
  declared: SculptDocument['effects'] = {},
): ToolEffects {
  const readOnly = steps.every((s) => READ_METHODS.has(s.method));
  const destructive = steps.some((s) => s.method === 'DELETE');
  const derived: ToolEffects = {
    readOnly,
    idempotent: steps.every((s) => IDEMPOTENT_METHODS.has(s.method) || s.idempotent === true),
    destructive,
    reversible: readOnly ? true : destructive ? false : undefined,
    billable: false,
  };
  return {
    readOnly: declared.readOnly ?? derived.readOnly,
    idempotent: declared.idempotent ?? derived.idempotent,
    destructive: declared.destructive ?? derived.destructive,
    reversible: declared.reversible ?? derived.reversible,
    billable: declared.billable ?? derived.billable,
  };
}
