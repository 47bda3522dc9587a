/** Header names whose values are credentials (same rule as the backends loader). */
const SENSITIVE_HEADER = /(authorization|cookie|api[-_]?key|token|secret|password|credential)/i;

/** The secret values a backend configuration holds: credentials and sensitive static headers. */
export function backendSecrets(backend: {
  auth: ReadonlyArray<{ value: string }>;
  headers: Readonly<Record<string, string>>;
  oauth?:
    | { client?: { auth: { method: string; secret?: string; privateKeyPem?: string } } | undefined }
    | undefined;
}): string[] {
  const values = backend.auth.map((a) => a.value);
  const client = backend.oauth?.client?.auth;
  if (client?.secret) values.push(client.secret);
  if (client?.privateKeyPem) values.push(client.privateKeyPem);
  for (const [name, value] of Object.entries(backend.headers)) {
    if (SENSITIVE_HEADER.test(name)) values.push(value);
  }
  // "Bearer xyz": the token alone may also show up somewhere.
  for (const value of [...values]) {
    const token = /^\S+\s+(\S{6,})$/.exec(value)?.[1];
    if (token) values.push(token);
  }
  return values;
}
