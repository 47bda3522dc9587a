/**
 * Stripe-sized OpenAPI descriptions, generated: a committed
 * generator rather than a 4 MB file. The shape is Stripe's where it hurts a
 * loader:
 *
 * - "expandable" fields: an id that `anyOf`s into the object it names
 *   (`x-expansionResources` too), whose own expandable fields name others, so
 *   the schema graph is one big cycle; inlined, one answer never ends;
 * - deep `allOf` / `oneOf`: details objects built on a base, with variants
 *   that again hold expandable fields; nullable fields as `anyOf` of one `$ref`;
 * - form-encoded request bodies, `expand[]` and `created[gte]` deepObject
 *   query parameters, list objects `{object: list, data, has_more, url}`, an
 *   error schema that references resources;
 * - about 4 MB of pretty-printed JSON and 600 operations by default.
 *
 * Deterministic: the same options give the same bytes.
 */
import { writeFile } from 'node:fs/promises';

export interface StripeLikeOptions {
  /** Resources; each has 5 operations (list, create, retrieve, update, delete). */
  resources?: number;
  /** Expandable fields per resource, each naming another resource. */
  expandable?: number;
  /** Nesting of the allOf chain of each resource's details object. */
  allOfDepth?: number;
  seed?: number;
}

const NOUNS = [
  'account',
  'application',
  'balance',
  'charge',
  'coupon',
  'customer',
  'dispute',
  'event',
  'file',
  'invoice',
  'mandate',
  'payout',
  'plan',
  'price',
  'product',
  'quote',
  'refund',
  'review',
  'session',
  'source',
  'subscription',
  'tax_rate',
  'token',
  'topup',
  'transfer',
  'card',
  'cardholder',
  'authorization',
  'transaction',
  'reader',
  'location',
  'report',
  'schedule',
  'order',
  'discount',
  'credit_note',
  'meter',
  'alert',
  'form',
  'rule',
];
const NAMESPACES = ['', 'issuing', 'terminal', 'treasury', 'billing', 'radar', 'tax', 'climate'];

const WORDS = (
  'the object this field describes is returned when the request asks for it and is otherwise ' +
  'an identifier only; see the guide for how to expand responses and which values are allowed ' +
  'in live mode or test mode for this account and its connected accounts'
).split(' ');

/** A small deterministic generator (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Resource {
  /** Schema name, e.g. `issuing.card`. */
  name: string;
  /** Collection path, e.g. `/v1/issuing/cards`. */
  path: string;
  /** Path parameter of one item, e.g. `card`. */
  param: string;
}

export function stripeLikeDocument(options: StripeLikeOptions = {}): Record<string, unknown> {
  const count = options.resources ?? 120;
  const expandableCount = options.expandable ?? 6;
  const allOfDepth = options.allOfDepth ?? 4;
  const rnd = random(options.seed ?? 14);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const sentence = (words: number) => {
    const text = Array.from({ length: words }, () => pick(WORDS)).join(' ');
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
  };
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

  const resources: Resource[] = [];
  for (let i = 0; resources.length < count; i++) {
    const noun = NOUNS[i % NOUNS.length]!;
    const ns = NAMESPACES[Math.floor(i / NOUNS.length) % NAMESPACES.length]!;
    const round = Math.floor(i / (NOUNS.length * NAMESPACES.length));
    const base = round === 0 ? noun : `${noun}_${round}`;
    resources.push({
      name: ns ? `${ns}.${base}` : base,
      path: `/v1/${ns ? `${ns}/` : ''}${base}s`,
      param: base,
    });
  }

  const schemas: Record<string, unknown> = {};
  const expandableField = (target: string) => ({
    anyOf: [{ maxLength: 5000, type: 'string' }, ref(target)],
    description: `ID of the ${target.replace(/[._]/g, ' ')} this object belongs to. ${sentence(14)}`,
    nullable: true,
    'x-expansionResources': { oneOf: [ref(target)] },
  });

  for (const [index, r] of resources.entries()) {
    const others = Array.from(
      { length: expandableCount },
      (_, k) => resources[(index + 1 + k * 7 + Math.floor(rnd() * 5)) % resources.length]!.name,
    );
    const properties: Record<string, unknown> = {
      id: { description: 'Unique identifier for the object.', maxLength: 5000, type: 'string' },
      object: {
        description: "String representing the object's type.",
        enum: [r.name],
        type: 'string',
      },
      created: { description: sentence(10), format: 'unix-time', type: 'integer' },
      livemode: { description: sentence(18), type: 'boolean' },
      metadata: {
        additionalProperties: { maxLength: 500, type: 'string' },
        description: sentence(30),
        nullable: true,
        type: 'object',
      },
      status: {
        description: sentence(20),
        enum: ['active', 'canceled', 'pending', 'failed', 'succeeded'],
        type: 'string',
        'x-stripeBypassValidation': true,
      },
      amount: { description: sentence(24), type: 'integer' },
      currency: { description: sentence(16), format: 'currency', type: 'string' },
      description: { description: sentence(12), maxLength: 5000, nullable: true, type: 'string' },
      details: {
        anyOf: [ref(`${r.name}_details`)],
        description: sentence(12),
        nullable: true,
      },
      lines: {
        description: sentence(10),
        properties: {
          data: { description: 'Details about each object.', items: ref(others[0]!), type: 'array' },
          has_more: { description: sentence(10), type: 'boolean' },
          object: { enum: ['list'], type: 'string' },
          url: { description: 'The URL where this list can be accessed.', maxLength: 5000, type: 'string' },
        },
        required: ['data', 'has_more', 'object', 'url'],
        title: `${r.name}_list`,
        type: 'object',
        'x-expandableFields': ['data'],
      },
    };
    for (let k = 0; k < 6; k++) {
      properties[`field_${k}`] = {
        description: sentence(22),
        maxLength: 5000,
        nullable: k % 2 === 0,
        type: k % 3 === 0 ? 'integer' : 'string',
      };
    }
    for (const other of others) properties[other.replace(/\./g, '_')] = expandableField(other);
    schemas[r.name] = {
      description: sentence(40),
      properties,
      required: ['id', 'object', 'created', 'livemode'],
      title: r.name,
      type: 'object',
      'x-expandableFields': others.map((o) => o.replace(/\./g, '_')),
      'x-resourceId': r.name,
    };

    // details: allOf chain of `allOfDepth` levels, the innermost a oneOf of variants that expand again.
    let details: Record<string, unknown> = {
      oneOf: others.slice(0, 3).map((other, v) => ({
        properties: {
          type: { enum: [`variant_${v}`], type: 'string' },
          source: expandableField(other),
          note: { description: sentence(12), maxLength: 5000, type: 'string' },
        },
        required: ['type'],
        title: `${r.name}_variant_${v}`,
        type: 'object',
      })),
    };
    for (let level = 0; level < allOfDepth; level++) {
      details = {
        allOf: [
          details,
          {
            properties: {
              [`level_${level}`]: { description: sentence(12), nullable: true, type: 'string' },
              [`owner_${level}`]: expandableField(others[level % others.length]!),
            },
            type: 'object',
          },
        ],
      };
    }
    schemas[`${r.name}_details`] = { ...details, description: sentence(20), title: `${r.name}_details` };
    schemas[`deleted_${r.name}`] = {
      properties: {
        deleted: { description: 'Always true for a deleted object', enum: [true], type: 'boolean' },
        id: { description: 'Unique identifier for the object.', maxLength: 5000, type: 'string' },
        object: { enum: [r.name], type: 'string' },
      },
      required: ['deleted', 'id', 'object'],
      title: `deleted_${r.name}`,
      type: 'object',
    };
  }
  schemas.error = {
    properties: {
      error: {
        properties: {
          code: { maxLength: 5000, type: 'string' },
          message: { maxLength: 40000, type: 'string' },
          payment_intent: expandableField(resources[0]!.name),
          source: { anyOf: resources.slice(1, 6).map((r) => ref(r.name)), nullable: true },
          type: {
            enum: ['api_error', 'card_error', 'idempotency_error', 'invalid_request_error'],
            type: 'string',
          },
        },
        required: ['type'],
        type: 'object',
      },
    },
    required: ['error'],
    title: 'error',
    type: 'object',
  };

  const json = (schema: unknown) => ({ 'application/json': { schema } });
  const responses = (schema: unknown) => ({
    '200': { content: json(schema), description: 'Successful response.' },
    default: { content: json(ref('error')), description: 'Error response.' },
  });
  const expand = {
    description: 'Specifies which fields in the response should be expanded.',
    explode: true,
    in: 'query',
    name: 'expand',
    required: false,
    schema: { items: { maxLength: 5000, type: 'string' }, type: 'array' },
    style: 'deepObject',
  };
  const formBody = (r: Resource, required: boolean) => ({
    content: {
      'application/x-www-form-urlencoded': {
        encoding: {
          expand: { explode: true, style: 'deepObject' },
          metadata: { explode: true, style: 'deepObject' },
        },
        schema: {
          additionalProperties: false,
          properties: {
            amount: { description: sentence(12), type: 'integer' },
            currency: { description: sentence(8), format: 'currency', type: 'string' },
            description: { description: sentence(10), maxLength: 5000, type: 'string' },
            expand: {
              description: expand.description,
              items: { maxLength: 5000, type: 'string' },
              type: 'array',
            },
            metadata: {
              anyOf: [
                { additionalProperties: { type: 'string' }, type: 'object' },
                { enum: [''], type: 'string' },
              ],
              description: sentence(20),
            },
            settings: {
              description: sentence(10),
              properties: {
                mode: { enum: ['automatic', 'manual'], type: 'string' },
                owner: { maxLength: 5000, type: 'string' },
              },
              title: `${r.param}_settings_params`,
              type: 'object',
            },
          },
          ...(required ? { required: ['currency'] } : {}),
          type: 'object',
        },
      },
    },
    required,
  });
  const idParam = (r: Resource) => ({
    in: 'path',
    name: r.param,
    required: true,
    schema: { maxLength: 5000, type: 'string' },
    style: 'simple',
  });
  const opName = (verb: string, r: Resource) =>
    `${verb}${r.path
      .slice(4)
      .split(/[/_]/)
      .map((w) => `${w[0]!.toUpperCase()}${w.slice(1)}`)
      .join('')}`;

  const paths: Record<string, unknown> = {};
  for (const r of resources) {
    const label = r.name.replace(/[._]/g, ' ');
    paths[r.path] = {
      get: {
        description: `<p>Returns a list of ${label}s. ${sentence(16)}</p>`,
        operationId: opName('Get', r),
        parameters: [
          {
            description: 'Only return objects that were created during the given date interval.',
            explode: true,
            in: 'query',
            name: 'created',
            required: false,
            schema: {
              anyOf: [
                {
                  properties: { gt: { type: 'integer' }, gte: { type: 'integer' }, lt: { type: 'integer' } },
                  title: 'range_query_specs',
                  type: 'object',
                },
                { type: 'integer' },
              ],
            },
            style: 'deepObject',
          },
          {
            description: 'A cursor for use in pagination.',
            in: 'query',
            name: 'ending_before',
            required: false,
            schema: { maxLength: 5000, type: 'string' },
            style: 'form',
          },
          expand,
          {
            description: 'A limit on the number of objects to be returned, between 1 and 100.',
            in: 'query',
            name: 'limit',
            required: false,
            schema: { type: 'integer' },
            style: 'form',
          },
          {
            description: 'A cursor for use in pagination.',
            in: 'query',
            name: 'starting_after',
            required: false,
            schema: { maxLength: 5000, type: 'string' },
            style: 'form',
          },
        ],
        requestBody: {
          content: {
            'application/x-www-form-urlencoded': {
              encoding: {},
              schema: { additionalProperties: false, properties: {}, type: 'object' },
            },
          },
          required: false,
        },
        responses: responses({
          description: '',
          properties: {
            data: { items: ref(r.name), type: 'array' },
            has_more: {
              description: 'True if this list has another page of items after this one.',
              type: 'boolean',
            },
            object: { enum: ['list'], type: 'string' },
            url: { maxLength: 5000, pattern: `^${r.path}`, type: 'string' },
          },
          required: ['data', 'has_more', 'object', 'url'],
          title: `${r.name}List`,
          type: 'object',
          'x-expandableFields': ['data'],
        }),
        summary: `List all ${label}s`,
      },
      post: {
        description: `<p>Creates a new ${label} object.</p>`,
        operationId: opName('Post', r),
        requestBody: formBody(r, true),
        responses: responses(ref(r.name)),
        summary: `Create a ${label}`,
      },
    };
    paths[`${r.path}/{${r.param}}`] = {
      delete: {
        description: `<p>Deletes a ${label}. ${sentence(10)}</p>`,
        operationId: opName('Delete', r),
        parameters: [idParam(r)],
        responses: responses(ref(`deleted_${r.name}`)),
        summary: `Delete a ${label}`,
      },
      get: {
        description: `<p>Retrieves a ${label} object.</p>`,
        operationId: opName('Get', r) + 'Id',
        parameters: [expand, idParam(r)],
        responses: responses(ref(r.name)),
        summary: `Retrieve a ${label}`,
      },
      post: {
        description: `<p>Updates a ${label} object. ${sentence(12)}</p>`,
        operationId: opName('Post', r) + 'Id',
        parameters: [idParam(r)],
        requestBody: formBody(r, false),
        responses: responses(ref(r.name)),
        summary: `Update a ${label}`,
      },
    };
  }

  return {
    components: {
      schemas,
      securitySchemes: {
        basicAuth: { description: 'Basic HTTP authentication.', scheme: 'basic', type: 'http' },
        bearerAuth: {
          bearerFormat: 'auth-scheme',
          description: 'Bearer HTTP authentication.',
          scheme: 'bearer',
          type: 'http',
        },
      },
    },
    info: {
      description: 'A generated description shaped like a large payments API.',
      title: 'Stripe-like API',
      version: '2024-04-10',
    },
    openapi: '3.0.0',
    paths,
    security: [{ basicAuth: [] }, { bearerAuth: [] }],
    servers: [{ url: 'https://api.stripe-like.example' }],
  };
}

/** Writes the description pretty-printed, as vendors ship theirs; returns its size in bytes. */
export async function writeStripeLike(file: string, options: StripeLikeOptions = {}): Promise<number> {
  const text = `${JSON.stringify(stripeLikeDocument(options), null, 2)}\n`;
  await writeFile(file, text);
  return Buffer.byteLength(text);
}
