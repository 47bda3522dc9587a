/**
 * What looks like a secret among a tool's or an operation's parameters: an API key, a token, a
 * password, a licence key, a signature. Such a value belongs to the deployment, never to the
 * LLM: `sculptor init` turns it into a backend credential (an environment reference in
 * backends.yaml) and `sculptor check` flags any tool input that still looks like one.
 *
 * Names are read as snake-case words so that `license` and `x_api_key` match while
 * `license_name`, `secret_name` or `key_id` (which name or point at a secret, and are not one)
 * do not; a description is read only when the name says nothing either way.
 */

/** Words that, anywhere in a name, make it a secret. */
const SECRET_WORDS = new Set([
  'apikey',
  'password',
  'passwd',
  'passphrase',
  'secret',
  'credential',
  'credentials',
  'license',
  'licence',
  'signature',
  'bearer',
  'authorization',
]);
/** Two words that together make one: `api_key`, `access_token`, `client_secret`. */
const SECRET_PAIRS = new Set([
  'api_key',
  'access_key',
  'secret_key',
  'private_key',
  'license_key',
  'app_key',
  'subscription_key',
  'access_token',
  'auth_token',
  'bearer_token',
  'refresh_token',
  'session_token',
  'id_token',
  'oauth_token',
  'api_token',
]);
/** Words that make a name about a secret rather than the secret itself: `secret_name`, `key_id`. */
const ABOUT_A_SECRET = new Set([
  'id',
  'ids',
  'name',
  'names',
  'type',
  'types',
  'count',
  'scope',
  'scopes',
  'visibility',
  'expiry',
  'expires',
  'expiration',
  'created',
  'status',
  'sid',
  // Paging markers: `page_token`, `next_token`.
  'page',
  'next',
  'continuation',
  'cursor',
  'pagination',
  'prefix',
  'hint',
  'length',
  'url',
  'uri',
]);
/**
 * A description that says the value is a credential. Only phrases that name one: "secret" or
 * "password" alone are as often what a call is about (a filter of secrets, a password policy).
 */
const SECRET_DESCRIPTION =
  /\b(api[ -]?keys?|access[ -]?keys?|secret keys?|client secrets?|licen[cs]e[ -]?keys?|authentication tokens?|auth(?:orization)? tokens?|access tokens?|bearer tokens?|private keys?|signing keys?|subscription keys?)\b/i;
/** Words that make a secret in a query, a header or a body, but in a path name what it is about (GitHub's `/licenses/{license}`). */
const NOT_IN_A_PATH = new Set(['license', 'licence', 'signature', 'credential', 'credentials']);
/** A token that is a page marker, not a credential. */
const PAGING_DESCRIPTION = /\b(page|paging|pagination|continuation|cursor|next|previous|offset)\b/i;

export interface SecretContext {
  /** Where the value goes: path, query, header, cookie, body. */
  in?: string;
  /** Its JSON Schema type, when known: a secret is a string. */
  type?: string;
}

/** Why a parameter or input looks like a secret, or undefined. `name` is snake case. */
export function secretReason(
  name: string,
  description = '',
  context: SecretContext = {},
): string | undefined {
  if (context.type !== undefined && context.type !== 'string') return undefined;
  const words = name.toLowerCase().split('_').filter(Boolean);
  if (words.some((w) => ABOUT_A_SECRET.has(w))) return undefined;
  const word = words.find((w) => SECRET_WORDS.has(w) && !(context.in === 'path' && NOT_IN_A_PATH.has(w)));
  if (word) return `its name contains '${word}'`;
  for (let i = 0; i + 1 < words.length; i++) {
    const pair = `${words[i]}_${words[i + 1]}`;
    if (SECRET_PAIRS.has(pair)) return `its name contains '${pair}'`;
  }
  const last = words.at(-1);
  if ((last === 'token' || last === 'key') && !PAGING_DESCRIPTION.test(description)) {
    // A bare `key` is as often a map key or a sort key: the description decides.
    if (last === 'token' || SECRET_DESCRIPTION.test(description)) return `its name ends in '${last}'`;
  }
  const phrase = SECRET_DESCRIPTION.exec(description);
  if (phrase && !PAGING_DESCRIPTION.test(description)) return `its description mentions '${phrase[0]}'`;
  return undefined;
}
