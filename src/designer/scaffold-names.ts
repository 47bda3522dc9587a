import type { Operation } from '../openapi/load-openapi.ts';
import { isPlural, pluralWord, singular, singularWord } from './plurals.ts';
import { answersList } from './scaffold-outputs.ts';
import { plainText, snakeCase } from './scaffold-text.ts';

/**
 * What `sculptor init` calls a tool, and what its text says the tool is
 * about, in the words a user would use: a verb that says what the tool does
 * and the thing it does it to, one or many (`get_customer`,
 * `list_customers`, `create_customer`, `confirm_payment_intent`). A
 * deterministic heuristic, documented in docs/DESIGNER.md:
 *
 * 1. the summary, when it is 2 to 6 words ("Retrieve a customer" →
 *    `get_customer`, "List all customers" → `list_customers`);
 * 2. else the operationId, unless it only spells the route out again
 *    (Stripe's `GetCustomersCustomer`: every word is the method or a word of
 *    the path), which the route says better;
 * 3. else the route read as REST: the last segment a parameter → one thing
 *    (GET get, PUT/PATCH/POST update, DELETE delete); a plural last segment →
 *    a collection (GET list, POST create one); an action word last (`search`,
 *    `confirm`, `cancel`…) → that verb on what precedes it; the parent item or
 *    namespace before it qualifies the noun (`list_repo_issues`).
 */

/** What a tool is about: a snake-case noun, one thing or many. */
export interface Subject {
  /** Qualified by its parent or namespace: `customer_source`, `issuing_card`. */
  noun: string;
  /** The noun alone (`source`, `card`): step ids and list names. */
  head: string;
  one: boolean;
}

/** Words a summary starts with that mean "get" to a user. */
const GET_SYNONYMS = new Set(['retrieve', 'fetch', 'return', 'obtain', 'read', 'show']);
/** Verbs a summary's first word may be the third person of ("Lists", "Retrieves"). */
const KNOWN_VERBS = new Set([
  'get',
  'list',
  'create',
  'update',
  'delete',
  'remove',
  'add',
  'search',
  'find',
  'set',
  'check',
  'send',
  'upload',
  'download',
  ...GET_SYNONYMS,
]);
/** A last path segment that is an action on what precedes it (`/invoices/{invoice}/pay`). */
const ACTIONS = new Set([
  'search',
  'delete',
  'remove',
  'find',
  'query',
  'count',
  'cancel',
  'capture',
  'confirm',
  'pay',
  'refund',
  'void',
  'finalize',
  'send',
  'resend',
  'verify',
  'approve',
  'reject',
  'decline',
  'accept',
  'close',
  'reopen',
  'archive',
  'unarchive',
  'restore',
  'attach',
  'detach',
  'expire',
  'pause',
  'resume',
  'start',
  'stop',
  'restart',
  'retry',
  'validate',
  'submit',
  'publish',
  'unpublish',
  'preview',
  'lock',
  'unlock',
  'mark',
  'reverse',
  'apply',
  'activate',
  'deactivate',
  'enable',
  'disable',
  'renew',
  'reset',
  'rotate',
  'revoke',
  'sync',
  'merge',
  'subscribe',
  'unsubscribe',
  'upload',
  'download',
  'import',
  'export',
]);
const METHOD_WORDS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);
/** Path segments that say nothing about the resource: versions, `api`, dates, formats. */
const NOISE_SEGMENT = /^(v\d+([._]\d+)*[a-z]*|api|rest|\d+([._-]\d+)*|json|xml)$/i;

// --- the route read as REST --------------------------------------------------------

interface Segment {
  /** Snake case: a static segment's words, or a parameter's name. */
  word: string;
  param: boolean;
}

function segmentsOf(path: string): Segment[] {
  const out: Segment[] = [];
  for (const raw of path.split('/')) {
    // `Messages{mediaTypeExtension}`, `file.json`: the static words are what the segment names.
    const text = raw.replace(/\{[^}]*\}/g, '').replace(/\.(json|xml|ya?ml)$/i, '');
    if (raw === '') continue;
    if (text.replace(/[^A-Za-z0-9]/g, '') === '') {
      const name = /\{([^}]+)\}/.exec(raw)?.[1];
      if (name) out.push({ word: snakeCase(name), param: true });
      continue;
    }
    if (NOISE_SEGMENT.test(text)) continue;
    out.push({ word: snakeCase(text), param: false });
  }
  return out;
}

/** A noun from parts, dropping a qualifier the noun already starts with (`account` + `account_links`). */
function joinNoun(qualifier: string | undefined, noun: string): string {
  if (!qualifier || noun === qualifier || noun.startsWith(`${qualifier}_`)) return noun;
  return `${qualifier}_${noun}`;
}

/** The item a parameter at `i` names: its collection made singular, qualified by its parent or namespace. */
function itemNoun(segments: Segment[], i: number): { noun: string; head: string } | undefined {
  let j = i - 1;
  while (j >= 0 && segments[j]!.param) j--;
  if (j < 0) return undefined;
  const head = singular(segments[j]!.word);
  return { noun: joinNoun(qualifierBefore(segments, j), head), head };
}

/** What qualifies the static segment at `j`: the item before it (`customer` of `/customers/{customer}/sources`), or a namespace. */
function qualifierBefore(segments: Segment[], j: number): string | undefined {
  const before = segments[j - 1];
  if (!before) return undefined;
  if (!before.param) return before.word;
  let k = j - 2;
  while (k >= 0 && segments[k]!.param) k--;
  return k >= 0 ? singular(segments[k]!.word) : undefined;
}

function subjectFor(noun: string, head: string, one: boolean): Subject {
  return { noun, head, one };
}

/**
 * The verb and subject the route names, as REST reads it. `answersList`: the
 * success answer is a list, so a GET of a segment that is no plural
 * (`/balance/history`, Twilio's `…/Local`) lists too.
 */
export function routeSubject(
  method: string,
  path: string,
  answersList = false,
): { verb: string; subject: Subject } {
  const segments = segmentsOf(path);
  const last = segments.length - 1;
  const m = method.toUpperCase();
  if (last < 0) {
    return { verb: m === 'GET' ? 'get' : m.toLowerCase(), subject: subjectFor('root', 'root', true) };
  }
  const end = segments[last]!;
  if (end.param) {
    const verb = m === 'DELETE' ? 'delete' : m === 'GET' || m === 'HEAD' ? 'get' : 'update';
    const item = itemNoun(segments, last) ?? { noun: 'item', head: 'item' };
    return { verb, subject: subjectFor(item.noun, item.head, true) };
  }
  const action = end.word.split('_')[0]!;
  // An action: a word such as search or confirm, or what a POST names after one item (`/meters/{id}/reactivate`).
  const acts =
    ACTIONS.has(action) ||
    KNOWN_VERBS.has(action) ||
    (m === 'POST' && last > 0 && segments[last - 1]!.param && !isPlural(end.word));
  if (acts && last > 0) {
    const before = segments[last - 1]!;
    const item = before.param
      ? itemNoun(segments, last - 1)
      : { noun: joinNoun(qualifierBefore(segments, last - 1), before.word), head: before.word };
    if (item) {
      const one = before.param || !isPlural(item.head);
      return { verb: end.word, subject: subjectFor(item.noun, item.head, one) };
    }
  }
  if (acts) return { verb: end.word, subject: subjectFor(end.word, end.word, true) };
  const noun = joinNoun(qualifierBefore(segments, last), end.word);
  const many = isPlural(end.word);
  switch (m) {
    case 'GET':
    case 'HEAD':
      return { verb: many || answersList ? 'list' : 'get', subject: subjectFor(noun, end.word, !many) };
    case 'POST':
      return { verb: 'create', subject: subjectFor(singular(noun), singular(end.word), true) };
    case 'DELETE':
      return { verb: 'delete', subject: subjectFor(noun, end.word, !many) };
    default:
      return { verb: 'update', subject: subjectFor(noun, end.word, !many) };
  }
}

/** What the operation is about: one customer, or customers. */
export function subjectOf(operation: Operation): Subject {
  return routeSubject(operation.method, operation.path, answersList(operation)).subject;
}

/** `get_customer`, from the route (and whether the answer is a list). */
export function routeName(method: string, path: string, answersList = false): string {
  const { verb, subject } = routeSubject(method, path, answersList);
  return verb === subject.noun ? verb : `${verb}_${subject.noun}`;
}

// --- the tool name ----------------------------------------------------------------

/** Words a name from a summary (a title) may have; a description is prose, and only its short openings name well. */
const SUMMARY_WORDS = 6;
const DESCRIPTION_WORDS = 4;
/** Words a name does without: articles, possessives, "a single/specific/existing" ("your customers" → customers). */
const FILLERS = new Set([
  'a',
  'an',
  'the',
  'your',
  'my',
  'our',
  'their',
  'its',
  'this',
  'single',
  'specific',
  'specified',
  'given',
  'existing',
  'individual',
]);
/** Nouns that only say "thing" after the real one ("a Customer object", "resource representations"). */
const GENERIC_NOUNS = /^(objects?|resources?|representations?|records?|entit(y|ies)|instances?)$/;

/**
 * The first sentence of a summary or description as a name, in a user's
 * words: fillers dropped, the verb in the base form and retrieve/fetch/return
 * as get ("Retrieves a Customer object" → get_customer), "a list of" and "all"
 * as list, a trailing generic noun dropped (its number kept: "AvailablePhoneNumber
 * resource representations" → available_phone_numbers). A summary gives at
 * most 6 words; a description, not meant as a title, must start with a verb
 * and give at most 4 (longer ones read as sentences: the route names better).
 */
function nameFromWords(text: string | undefined, needsVerb: boolean): string | undefined {
  const first =
    plainText(text)
      .split(/[.!?\n]/)[0]
      ?.trim() ?? '';
  if (!first) return undefined;
  const words = snakeCase(first)
    .split('_')
    .filter((w) => !FILLERS.has(w));
  if (words.length === 0) return undefined;
  const base = words[0]!.replace(/(ch|sh|x|ss)es$/, '$1').replace(/([^s])s$/, '$1');
  if (base !== words[0] && (KNOWN_VERBS.has(base) || ACTIONS.has(base))) words[0] = base;
  if (GET_SYNONYMS.has(words[0]!)) words[0] = 'get';
  if (needsVerb && !KNOWN_VERBS.has(words[0]!) && !ACTIONS.has(words[0]!)) return undefined;
  // "Get a list of pets", "List all pets", "Get all pets" → list_pets; "Create a new pet" → create_pet.
  if (words[0] === 'get' && words[1] === 'list' && words[2] === 'of') words.splice(0, 3, 'list');
  if ((words[0] === 'get' || words[0] === 'list') && words[1] === 'all' && words.length > 2)
    words.splice(0, 2, 'list');
  if (words[0] === 'create' && words[1] === 'new' && words.length > 2) words.splice(1, 1);
  // "Retrieves the details of an account", "Get basic information about a user" → get_account, get_user.
  const about = /^(basic|full|detailed|more)$/.test(words[1] ?? '') ? 2 : 1;
  if (
    /^(details|information|info)$/.test(words[about] ?? '') &&
    /^(of|about|for)$/.test(words[about + 1] ?? '')
  )
    words.splice(1, about + 1);
  while (words.length > 2 && GENERIC_NOUNS.test(words[words.length - 1]!)) {
    const dropped = words.pop()!;
    if (isPlural(dropped)) words[words.length - 1] = pluralWord(words[words.length - 1]!);
  }
  return words.length >= 2 && words.length <= (needsVerb ? DESCRIPTION_WORDS : SUMMARY_WORDS)
    ? words.join('_')
    : undefined;
}

/** Whether an operationId only spells the method and path out again (`GetCustomersCustomer`). */
export function spellsRoute(operationId: string, method: string, path: string): boolean {
  const known = new Set<string>(METHOD_WORDS);
  for (const raw of path.split(/[/{}.,;:-]+/)) {
    for (const word of snakeCase(raw).split('_')) {
      known.add(word);
      known.add(singularWord(word));
      known.add(pluralWord(word));
    }
  }
  known.add(method.toLowerCase());
  known.add('id');
  return snakeCase(operationId)
    .split('_')
    .every((w) => known.has(w));
}

/**
 * The tool name: a short summary, else an operationId that says more than the
 * route, else a short description that starts with a verb, else the route.
 */
export function toolNameFor(operation: Operation): string {
  const id = operation.operationId;
  const name =
    nameFromWords(operation.summary, false) ??
    // A SOAP operation's name is all it has: its path is the name again, its method always POST.
    (id && (operation.codec || !spellsRoute(id, operation.method, operation.path))
      ? snakeCase(id)
      : undefined) ??
    nameFromWords(operation.description, true) ??
    routeName(operation.method, operation.path, answersList(operation));
  return name.slice(0, 64).replace(/_+$/, '');
}

// --- the description ---------------------------------------------------------------

/** "a customer", "an invoice", "customers": the subject as a sentence says it. */
export function spoken(subject: Subject): string {
  const words = subject.noun.replace(/_/g, ' ');
  if (!subject.one) return words;
  return `${/^[aeiou]/.test(words) ? 'an' : 'a'} ${words}`;
}

/**
 * "Use it when the user asks to …" from the summary's first clause, its verb
 * in the base form ("Returns a list of …" → "return a list of …"); about the
 * subject when that clause is long or missing.
 */
export function whenToUse(operation: Operation, subject: Subject): string {
  const first = plainText(operation.summary || operation.description || '')
    .split(/[.!?]\s|[,;:(]/)[0]!
    .replace(/^to\s+/i, '')
    .replace(/[.!?\s]+$/, '')
    .trim();
  const words = first.split(/\s+/).filter(Boolean);
  if (words.length === 0 || words.length > 12) {
    return `Use it when the user asks about ${spoken(subject)}.`;
  }
  const verb = words[0]!.replace(/^([A-Za-z]{3,}[^s])s$/, '$1');
  // "Get an Album" → "get an album"; acronyms (SMS, ISO) stay as they are.
  const rest = words
    .slice(1)
    .map((w) => w.replace(/^([A-Z])([a-z]+)$/, (_m, a: string, b: string) => a.toLowerCase() + b));
  return `Use it when the user asks to ${[verb.toLowerCase(), ...rest].join(' ')}.`;
}
