import type { CompiledBackend } from '../compile/compile-backends.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import { backendSecrets } from '../sculpt/backend-secrets.ts';
import type { OutputValue } from './check-output.ts';

/**
 * Credentials a backend echoes back must not reach the caller: a debug
 * endpoint that reflects request headers, an error object quoting the API key, a
 * "whoami" answer carrying the token. Each invocation collects the secret values its
 * steps hold or send — the backend's configured credentials and sensitive headers,
 * the tenant's, a pass-through value, a fetched OAuth token — and the output is
 * searched for them before it leaves.
 *
 * Refused, not masked: a masked answer still looks like a success to the agent and
 * to the operator's dashboards, and a mask only hides the forms it knows (a secret
 * split across fields or re-encoded still leaks). A refusal is a distinct code an
 * operator can alert on, and the fix (the sculpt's output projection, or the
 * backend) is theirs to make.
 */
export type EchoWatch = ReadonlyMap<string, string>;

/**
 * An invocation's watch while its steps hold no secret: shared and never written, since
 * watchSecrets gives an invocation a map of its own with its first secret. Most invocations call
 * backends without credentials, and allocate no map.
 */
export const NO_SECRETS: EchoWatch = new Map();

/** Values shorter than this are not searched for: too common to mean anything (as the log redactor). */
const MIN_SECRET_LENGTH = 6;

const ofBackend = new WeakMap<CompiledBackend, readonly string[]>();

/** Adds a step's secrets to the invocation's watch list (`holder.secrets`): the backend's own and those it sends. */
export function watchSecrets(
  holder: { secrets: EchoWatch },
  backend: CompiledBackend,
  sent: ReadonlyArray<{ value: string }>,
): void {
  let own = ofBackend.get(backend);
  if (!own) {
    own = backendSecrets(backend);
    ofBackend.set(backend, own);
  }
  if (own.length === 0 && sent.length === 0) return;
  let watch = holder.secrets as Map<string, string>;
  if (holder.secrets === NO_SECRETS) holder.secrets = watch = new Map();
  for (const value of own) addForms(watch, value, backend.name);
  for (const { value } of sent) addForms(watch, value, backend.name);
}

function addForms(watch: Map<string, string>, value: string, backend: string): void {
  if (value.length < MIN_SECRET_LENGTH || watch.has(value)) return;
  // The value itself, its token after a scheme ("Bearer xyz"), and each as it appears
  // inside the serialized output (JSON escapes) or URL-encoded in a link.
  const token = /^\S+\s+(\S{6,})$/.exec(value)?.[1];
  for (const form of token ? [value, token] : [value]) {
    watch.set(form, backend);
    watch.set(JSON.stringify(form).slice(1, -1), backend);
    watch.set(encodeURIComponent(form), backend);
  }
}

/** Throws `upstream.secret_echoed` when an output holds a watched secret. */
export function refuseEchoedSecrets(outputs: readonly OutputValue[], watch: EchoWatch): void {
  if (watch.size === 0) return;
  const text = JSON.stringify(outputs);
  for (const [form, backend] of watch) {
    if (!text.includes(form)) continue;
    throw new SculptorError(
      'upstream.secret_echoed',
      `Backend '${backend}' echoed a credential the gateway holds for it; the output was withheld. ` +
        'Operators: stop the output projection from returning that field, or fix the backend.',
    );
  }
}
