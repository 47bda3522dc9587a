import type { Operation } from '../openapi/load-openapi.ts';
import { plural } from './plurals.ts';
import type { Subject } from './scaffold-names.ts';
import { isNullable, isRecord, isScalar, type Json, propertiesOf, typeOf } from './scaffold-schema.ts';
import { field, q, sentences, snakeCase } from './scaffold-text.ts';

/**
 * The outputs `sculptor init` scaffolds from the success answer: a list
 * becomes up to PAGE_SIZE items of a few fields and their count; one object
 * becomes a handful of its top-level scalar fields, each an output of its
 * own, with a `# REVIEW:` naming what was left out. An output is required
 * only when the schema says every answer has it and null is not one of its
 * values (a required-but-nullable field answered as null would otherwise
 * fail `projection.invalid_output`).
 */

/** The items a list output shows, and the page size a scaffold asks a backend for. */
export const PAGE_SIZE = 10;
/** Fields one object's answer is split into. */
const OBJECT_FIELDS = 5;
/** Fields of each item of a list. */
const ITEM_FIELDS = 4;
/** Left-out fields a REVIEW names before "and N more". */
const LEFT_OUT_NAMED = 12;

/** Output fields an LLM rarely needs: plumbing, links, paging, JSON-LD keywords (`@id`). */
const PLUMBING_FIELD =
  /(^@|^id$|_id$|[a-z]Id$|^uuid$|_uuid$|[sS]id$|^sid$|urls?$|Urls?$|URLs?$|uri$|Uri$|^href$|etag|^node_id$|^_|token|cursor|hash$|^sha$|^page|page_?size$|^next|^previous|^first_?page|^last_?page|^start$|^end$|^offset$|^limit$|^api_version$|^account_sid$|^subresource|^livemode$|^has_more$)/;
/** Output fields worth showing first, in this order. */
const PREFERRED_FIELDS = [
  'name',
  'title',
  'full_name',
  'display_name',
  'friendly_name',
  'login',
  'username',
  'summary',
  'description',
  'status',
  'state',
  'phone_number',
  'email',
  'body',
  'text',
  'date',
  'release_date',
  'date_created',
  'created_at',
  'updated_at',
  'total',
  'count',
  'price',
  'amount',
  'currency',
  'score',
  'popularity',
  'followers',
  'stargazers_count',
  'open_issues_count',
  'language',
  'country',
  'city',
  'category',
  'kind',
  'type',
];
function preference(name: string): number {
  const i = PREFERRED_FIELDS.indexOf(snakeCase(name));
  return i < 0 ? PREFERRED_FIELDS.length : i;
}
/** Generic names of the list inside an answer. */
const LIST_PROPERTY = /^(items|data|results|records|entries|values|list|elements|hits)$/i;

export interface OutputPlan {
  yaml: string[];
  /** JSONata members `"name": expr`. */
  members: string[];
  /** What a designer must decide, each a `# REVIEW:` above `output`. */
  comments: string[];
}

function successResponse(operation: Operation): { status: string; schema?: Json } | undefined {
  const statuses = Object.keys(operation.responses).filter((s) => /^2/.test(s) || s === '2XX');
  statuses.sort();
  for (const status of statuses) {
    const schema = operation.responses[status]?.schema;
    if (isRecord(schema)) return { status, schema };
  }
  return statuses[0] ? { status: statuses[0] } : undefined;
}

/**
 * A field worth an output of its own: a scalar, not an expandable id (a
 * `oneOf`/`anyOf` of a string and the object it names) and not a constant
 * (Stripe's `object: enum [customer]` says nothing).
 */
function isUsefulScalar(schema: Json): boolean {
  if (!isScalar(schema) || isRecord(schema['x-expansionResources'])) return false;
  if (Array.isArray(schema.enum) && schema.enum.filter((v) => v !== null).length <= 1) return false;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (!Array.isArray(options)) continue;
    const types = new Set(options.map(typeOf).filter((t) => t !== undefined && t !== 'null'));
    if (types.size > 1) return false;
  }
  return true;
}

interface Picked {
  prop: string;
  schema: Json;
  /** Every answer has it, and not as null. */
  required: boolean;
  /** A map (`{USD: 1.08, …}`) or a list of plain values (`["red", "blue"]`), kept whole. */
  collection?: 'map' | 'list';
}

/** Maps and lists of plain values one answer keeps at most: often the point of it (exchange rates by currency). */
const COLLECTIONS = 2;

/** A map of arbitrary keys to values, or a list of plain values; undefined for anything else. */
function collectionOf(schema: Json): Picked['collection'] {
  const t = typeOf(schema);
  if (t === 'array') return isScalar(schema.items) ? 'list' : undefined;
  if (t !== 'object' || Object.keys(propertiesOf(schema).properties).length > 0) return undefined;
  return isRecord(schema.additionalProperties) ? 'map' : undefined;
}

/**
 * Fields worth showing, preferred names first, plumbing left out; and every other field's name.
 * Scalars, and given the operation's `subject` words, up to two maps or lists of plain values
 * that are the point of the answer before them.
 */
function pickFields(
  schema: unknown,
  count: number,
  options: { subject?: ReadonlySet<string> } = {},
): { picked: Picked[]; leftOut: string[] } {
  const { properties, required } = propertiesOf(schema);
  const usable = Object.entries(properties).filter(([k]) => !PLUMBING_FIELD.test(k));
  // A map or list is the point of an answer when the operation names it ("Get the latest exchange
  // rates" and its `rates`), or when the answer has no field a user would ask about by name.
  const named = usable.some(([k, s]) => isUsefulScalar(s) && preference(k) < PREFERRED_FIELDS.length);
  const isPoint = (prop: string) =>
    !named ||
    snakeCase(prop)
      .split('_')
      .some((w) => options.subject?.has(w) || options.subject?.has(plural(w)));
  const collections = options.subject
    ? usable
        .filter(([k, s]) => collectionOf(s) !== undefined && isPoint(k))
        .slice(0, Math.min(COLLECTIONS, count))
        .map(([prop, s]) => ({
          prop,
          schema: s,
          required: required.has(prop) && !isNullable(s),
          collection: collectionOf(s),
        }))
    : [];
  // Stable sort: preferred names in their order, then the rest in document order.
  const scalars = usable
    .filter(([, s]) => isUsefulScalar(s))
    .sort(([a], [b]) => preference(a) - preference(b))
    .slice(0, count - collections.length)
    .map(([prop, s]) => ({ prop, schema: s, required: required.has(prop) && !isNullable(s) }));
  const picked: Picked[] = [...collections, ...scalars];
  const chosen = new Set(picked.map((p) => p.prop));
  return { picked, leftOut: Object.keys(properties).filter((k) => !chosen.has(k)) };
}

/** Whether the operation's success answer is a list, or holds the list it is about. */
export function answersList(operation: Operation): boolean {
  const schema = successResponse(operation)?.schema;
  return schema !== undefined && findList(schema) !== undefined;
}

/** The list an answer is about: the answer itself, a property holding an array of objects, or one level down. */
function findList(schema: Json): { path: string[]; items: Json } | undefined {
  if (typeOf(schema) === 'array')
    return isRecord(schema.items) ? { path: [], items: schema.items as Json } : undefined;
  const { properties } = propertiesOf(schema);
  const arrays = Object.entries(properties).filter(
    ([, s]) => typeOf(s) === 'array' && isRecord(s.items) && typeOf(s.items) === 'object',
  );
  const named = arrays.find(([k]) => LIST_PROPERTY.test(k));
  if (named) return { path: [named[0]], items: named[1].items as Json };
  // An object with fields of its own is one thing, whatever list it holds (a pet and its tags).
  if (pickFields(schema, 2).picked.length >= 2) return undefined;
  if (arrays.length === 1) return { path: [arrays[0]![0]], items: arrays[0]![1].items as Json };
  for (const [k, s] of Object.entries(properties)) {
    if (typeOf(s) !== 'object') continue;
    const inner = propertiesOf(s).properties;
    const list = Object.entries(inner).find(
      ([ik, is]) =>
        LIST_PROPERTY.test(ik) &&
        typeOf(is) === 'array' &&
        isRecord(is.items) &&
        typeOf(is.items) === 'object',
    );
    if (list) return { path: [k, list[0]], items: list[1].items as Json };
  }
  return undefined;
}

function outputType(schema: Json): 'string' | 'int' | 'json' {
  const t = typeOf(schema);
  return t === 'string' ? 'string' : t === 'integer' ? 'int' : 'json';
}

function fieldDescription(prop: string, schema: Json, of: string): string {
  const d = sentences(typeof schema.description === 'string' ? schema.description : '', 300);
  return (
    d ||
    `The ${prop
      .replace(/[_-]+/g, ' ')
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase()} of the ${of}.`
  );
}

/** "a, b and 3 more" for a REVIEW note. */
function listNames(names: string[]): string {
  const shown = names.slice(0, LEFT_OUT_NAMED).join(', ');
  return names.length > LEFT_OUT_NAMED ? `${shown} and ${names.length - LEFT_OUT_NAMED} more` : shown;
}

export function planOutputs(operation: Operation, stepId: string, subject: Subject): OutputPlan {
  const response = successResponse(operation);
  const step = `$steps.${stepId}`;
  if (!response?.schema) {
    return {
      yaml: ['  result:', '    type: string', `    description: ${q('Says that the call succeeded.')}`],
      members: [`"result": "done"`],
      comments: [
        `the ${response?.status ?? 'success'} answer has no JSON body: the tool only reports success.`,
      ],
    };
  }
  const list = findList(response.schema);
  if (list) return listOutputs(list, step, subject);
  const one = subject.noun.replace(/_/g, ' ');
  // The answer's own fields, else those of the wrapper it keeps them in (`{data: {…}}`, GeoJSON `properties`).
  let object = response.schema;
  let at = step;
  const words = `${operation.summary ?? ''} ${operation.operationId ?? ''}`.replace(
    /([a-z])([A-Z])/g,
    '$1 $2',
  );
  const fields = {
    subject: new Set(
      words
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter(Boolean),
    ),
  };
  let { picked, leftOut } = pickFields(object, OBJECT_FIELDS, fields);
  const wrapper = picked.length === 0 ? unwrap(object) : undefined;
  if (wrapper) {
    const outer = Object.keys(propertiesOf(object).properties).filter((k) => k !== wrapper.prop);
    object = wrapper.schema;
    at = `${step}.${field(wrapper.prop)}`;
    ({ picked, leftOut } = pickFields(object, OBJECT_FIELDS, fields));
    picked = picked.map((p) => ({ ...p, required: p.required && wrapper.required }));
    leftOut = [...leftOut.map((k) => `${wrapper.prop}.${k}`), ...outer];
  }
  if (picked.length === 0 && operation.method === 'DELETE') {
    // Stripe's `{id, object, deleted: true}`: nothing a user needs but that it worked.
    return {
      yaml: ['  result:', '    type: string', `    description: ${q(`Says that the ${one} was deleted.`)}`],
      members: [`"result": "done"`],
      comments: ['the answer holds nothing a user needs: the tool only reports success.'],
    };
  }
  if (picked.length === 0) {
    return {
      yaml: [
        '  result:',
        '    type: json',
        `    description: ${q(`The ${one}, as the backend answered it.`)}`,
      ],
      members: [`"result": ${step}`],
      comments: [
        'the answer has no scalar fields the scaffold could pick: project the few fields the LLM needs.',
      ],
    };
  }
  const yaml: string[] = [];
  const members: string[] = [];
  const names = new Set<string>();
  const comments: string[] = [];
  for (const f of picked) {
    let n = snakeCase(f.prop).slice(0, 64).replace(/_+$/, '');
    for (let i = 2; names.has(n); i++) n = `${snakeCase(f.prop).slice(0, 60)}_${i}`;
    names.add(n);
    yaml.push(`  ${n}:`, `    type: ${outputType(f.schema)}`);
    if (!f.required) yaml.push('    required: false');
    yaml.push(`    description: ${q(fieldDescription(f.prop, f.schema, one))}`);
    members.push(`${q(n)}: ${at}.${field(f.prop)}`);
    if (f.collection) comments.push(collectionNote(n, f, at));
  }
  if (leftOut.length > 0) {
    comments.push(
      `the answer's other fields are left out: ${listNames(leftOut)}. Add the ones users ask about${nestedExample(object, leftOut, at)}.`,
    );
  }
  return { yaml, members, comments };
}

/** What to weigh about a map or list kept whole: its size is the backend's to choose. */
function collectionNote(output: string, f: Picked, at: string): string {
  if (f.collection === 'map') {
    return `${output} is a map kept whole (one entry per key the backend has): it may be large, and every entry costs context. Keep it if it is what users ask about, or project the entries they need (e.g. "${output}": $sift(${at}.${field(f.prop)}, function($v, $k) { $k in ["…"] })).`;
  }
  const bound =
    typeof f.schema.maxItems === 'number'
      ? ` (at most ${f.schema.maxItems})`
      : ', as long as the backend makes it';
  return `${output} is a list kept whole${bound}: keep it if users ask about it, or cut it (e.g. ${at}.${field(f.prop)}[[0..9]]).`;
}

/**
 * The object property an answer with no scalar fields of its own keeps them
 * in (`{meta, data: {…}}`, GeoJSON's `properties`): the one with the most
 * fields worth showing.
 */
function unwrap(schema: Json): { prop: string; schema: Json; required: boolean } | undefined {
  const { properties, required } = propertiesOf(schema);
  let best: { prop: string; schema: Json; required: boolean; fields: number } | undefined;
  for (const [prop, s] of Object.entries(properties)) {
    if (PLUMBING_FIELD.test(prop) || typeOf(s) !== 'object') continue;
    const fields = pickFields(s, OBJECT_FIELDS).picked.length;
    if (fields > (best?.fields ?? 0)) {
      best = { prop, schema: s, required: required.has(prop) && !isNullable(s), fields };
    }
  }
  return best;
}

/** `, e.g. "address_city": $steps.customer.address.city`: how to reach into a left-out object, when there is one. */
function nestedExample(schema: Json, leftOut: string[], step: string): string {
  const { properties } = propertiesOf(schema);
  for (const prop of leftOut.filter((k) => Object.hasOwn(properties, k))) {
    if (PLUMBING_FIELD.test(prop) || typeOf(properties[prop]) !== 'object') continue;
    const inner = pickFields(properties[prop], 1).picked[0];
    if (inner) {
      const name = snakeCase(`${prop}_${inner.prop}`);
      return `, a nested one projected (e.g. "${name}": ${step}.${field(prop)}.${field(inner.prop)})`;
    }
  }
  return '';
}

function listOutputs(list: { path: string[]; items: Json }, step: string, subject: Subject): OutputPlan {
  const { picked } = pickFields(list.items, ITEM_FIELDS);
  const named = [...list.path].reverse().find((p) => !LIST_PROPERTY.test(p));
  const listName = snakeCase(named ?? plural(subject.head));
  const at = `${step}${list.path.map((p) => `.${field(p)}`).join('')}`;
  const names = new Set<string>();
  const members = picked.map((f) => {
    let n = snakeCase(f.prop);
    for (let i = 2; names.has(n); i++) n = `${snakeCase(f.prop)}_${i}`;
    names.add(n);
    return `${q(n)}: ${field(f.prop)}`;
  });
  const described =
    picked.length > 0 ? `, each with its ${[...names].join(', ').replace(/, ([^,]*)$/, ' and $1')}` : '';
  const listOutput = listName === 'count' ? 'items' : listName;
  return {
    yaml: [
      `  ${listOutput}:`,
      '    type: json',
      `    description: ${q(`Up to ${PAGE_SIZE} ${listOutput.replace(/_/g, ' ')}${described}.`)}`,
      '  count:',
      '    type: int',
      `    description: ${q(`How many ${listOutput.replace(/_/g, ' ')} the answer held.`)}`,
    ],
    members: [
      `${q(listOutput)}: [${at}[[0..${PAGE_SIZE - 1}]]${picked.length > 0 ? `.{ ${members.join(', ')} }` : ''}]`,
      `"count": $count(${at})`,
    ],
    comments:
      picked.length === 0
        ? ['the items have no scalar fields the scaffold could pick: project what the LLM needs.']
        : [],
  };
}
