/**
 * The schemas of the model, read lazily: a view of a schema looks like the
 * schema with every `$ref` inlined (a consumer walks `properties`, `items`,
 * `allOf`… as plain JSON), but each part is materialized, and each reference
 * followed, only when it is first read, and once.
 *
 * - Recursion is represented, not expanded: a view reached again through a
 *   reference is the same object, so `account.properties.owner.anyOf[1]` may be
 *   `account` itself. Walkers bound their own depth (the scaffold's do).
 * - Serialized, a part that a reference names is `{ "$ref": "#/…" }` (the
 *   reference that first named it), so `JSON.stringify` of the model stays
 *   the size of the document, whatever its recursion and fan-out. Stripe's
 *   "expandable" fields inline to billions of JSON values; their views cost
 *   what the sculpt's reads touch.
 * - Limits count what is materialized (openapi-limits.ts) and name the
 *   operation whose schema was being read and the setting to raise.
 *
 * Works the same over a parsed document whose `$ref`s `deref` follows, and over
 * one swagger-parser dereferenced (object cycles, `refNames` from its
 * `onDereference`).
 */
import { SculptorError } from '../errors/sculptor-error.ts';
import { isRecord } from './is-record.ts';
import { type OpenApiLimits, raiseHint } from './openapi-limits.ts';

/** A schema of the model as its consumers receive it (a lazy view, read like plain JSON). */
export type SchemaCopier = (schema: unknown) => object | undefined;

/**
 * Follows a JSON reference: the value a `{ "$ref": … }` object stands for, any
 * other value itself. The identity for a document that is already dereferenced.
 */
export type Deref = (value: unknown) => unknown;

export interface SchemaViews {
  /** The copier for the schemas of one operation (`GET /v1/account`), named in errors. */
  forOperation(where: string): SchemaCopier;
  /** Schema nodes materialized so far (the work the limit counts). */
  readonly materialized: number;
}

const same: Deref = (value) => value;

/**
 * One set of views per document, so parts shared between operations are
 * materialized once. `refNames` maps each referenced object to the `$ref` that
 * first named it; `deref` fills it as it follows references.
 */
export function schemaViews(options: {
  file: string;
  limits: OpenApiLimits;
  refNames: ReadonlyMap<object, string>;
  deref?: Deref;
}): SchemaViews {
  const { file, limits, refNames } = options;
  const deref = options.deref ?? same;
  const views = new Map<object, object>();
  let materialized = 0;

  const follow = (raw: unknown): unknown => {
    try {
      return deref(raw);
    } catch {
      // A reference that does not resolve is an open schema, as an unknown keyword would be.
      return { 'x-unresolved-ref': (raw as { $ref: string }).$ref };
    }
  };

  const viewOf = (raw: unknown, depth: number, where: string): unknown => {
    const node = follow(raw);
    if (typeof node !== 'object' || node === null) return node;
    const known = views.get(node);
    if (known !== undefined) return known;
    // Depth is nesting between references: a named part starts again at 0.
    const level = refNames.has(node) ? 0 : depth;
    if (level > limits.maxDepth) {
      throw limitError(`its schemas nest deeper than ${limits.maxDepth} levels`, 'maxDepth', where);
    }
    if (++materialized > limits.maxSchemaNodes) {
      throw limitError(
        `reading its schemas took more than ${limits.maxSchemaNodes} schema nodes`,
        'maxSchemaNodes',
        where,
      );
    }
    const source = node as Record<string, unknown>;
    const view = (Array.isArray(node) ? new Array<unknown>(node.length) : {}) as Record<string, unknown>;
    views.set(node, view);
    for (const key of Object.keys(source)) {
      // A `$ref` still here was not followed (a dereferenced document's broken one): it means nothing here.
      const name = key === '$ref' && typeof source[key] === 'string' ? 'x-unresolved-ref' : key;
      Object.defineProperty(view, name, {
        enumerable: true,
        configurable: true,
        get() {
          const value = viewOf(source[key], level + 1, where);
          Object.defineProperty(view, name, {
            value,
            enumerable: true,
            configurable: false,
            writable: false,
          });
          return value;
        },
      });
    }
    Object.defineProperty(view, 'toJSON', {
      enumerable: false,
      value() {
        const ref = refNames.get(node);
        return ref === undefined ? this : { $ref: ref };
      },
    });
    return view;
  };

  const limitError = (what: string, key: keyof OpenApiLimits, where: string) =>
    new SculptorError(
      'load.openapi',
      `OpenAPI document ${file}, ${where}: ${what}; ${raiseHint(key, limits)}.`,
    );

  return {
    forOperation: (where) => (raw) => {
      const view = viewOf(raw, 0, where);
      return isRecord(view) ? view : undefined;
    },
    get materialized() {
      return materialized;
    },
  };
}
