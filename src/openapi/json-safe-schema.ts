/**
 * Turns schemas taken from a dereferenced document into plain JSON trees that
 * `JSON.stringify` always accepts, at a bounded cost.
 *
 * - Dereferencing turns recursive schemas into object cycles. Each cycle is
 *   cut where it closes: the schema is kept down to its first recursion, and
 *   the recursion point becomes `{ "x-circular-ref": "#/…" }` (the `$ref` it
 *   came from), an open schema that accepts anything there.
 * - Subtrees shared through `$ref` stay shared (copying a DAG node by node can
 *   blow up exponentially), but what they would expand to when serialized is
 *   counted, so a `$ref` fan-out bomb fails at load instead of in whoever
 *   serializes the model later.
 */
import { isRecord } from './is-record.ts';

/** Nesting deeper than this is refused rather than walked (stack safety). */
const MAX_DEPTH = 256;
/** JSON values all kept schemas of one document may expand to; the 3 MB GitHub description needs ~0.2 M. */
export const MAX_EXPANDED_NODES = 2_000_000;

export type SchemaCopier = (schema: unknown) => object | undefined;

/**
 * Follows a JSON reference: the value a `{ "$ref": … }` object stands for, any
 * other value itself. The identity for a document that is already dereferenced.
 */
export type Deref = (value: unknown) => unknown;

const same: Deref = (value) => value;

interface Copy {
  value: unknown;
  /** Number of JSON values this subtree serializes to. */
  nodes: number;
}

/**
 * One copier per document, so subtrees shared between operations are copied
 * once. `refNames` maps each dereferenced object to the `$ref` that named it.
 * `deref` follows references met while copying, for a document loaded without
 * dereferencing it (load-openapi.ts); it fills `refNames` as it goes.
 */
export function schemaCopier(
  refNames: ReadonlyMap<object, string> = new Map(),
  deref: Deref = same,
): SchemaCopier {
  const copies = new Map<object, Copy>();
  const ancestors = new Set<object>();
  let expanded = 0;

  const copy = (raw: unknown, depth: number): Copy => {
    const value = deref(raw);
    if (typeof value !== 'object' || value === null) return { value, nodes: 1 };
    if (depth > MAX_DEPTH) throw new Error(`a schema is nested deeper than ${MAX_DEPTH} levels`);
    if (ancestors.has(value))
      return { value: { 'x-circular-ref': refNames.get(value) ?? '(cycle)' }, nodes: 2 };
    const done = copies.get(value);
    if (done !== undefined) return done;

    ancestors.add(value);
    let nodes = 1;
    const add = (child: unknown): unknown => {
      const c = copy(child, depth + 1);
      nodes += c.nodes;
      return c.value;
    };
    let result: unknown;
    if (Array.isArray(value)) {
      result = value.map(add);
    } else {
      const entries: [string, unknown][] = [];
      for (const [key, child] of Object.entries(value)) {
        // A `$ref` still here could not be resolved; without the document it means nothing.
        entries.push([key === '$ref' && typeof child === 'string' ? 'x-unresolved-ref' : key, add(child)]);
      }
      // fromEntries defines own properties: a "__proto__" key stays a key.
      result = Object.fromEntries(entries);
    }
    ancestors.delete(value);
    const made = { value: result, nodes };
    copies.set(value, made);
    return made;
  };

  return (raw) => {
    const schema = deref(raw);
    if (!isRecord(schema)) return undefined;
    const made = copy(schema, 0);
    expanded += made.nodes;
    if (expanded > MAX_EXPANDED_NODES) {
      throw new Error(
        `schemas expand to more than ${MAX_EXPANDED_NODES} JSON values once references are inlined`,
      );
    }
    return made.value as object;
  };
}
