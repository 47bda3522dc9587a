/**
 * The last line of defence for logs (RELIABILITY I3, I7, G9): every log line
 * is passed through `redact` before it is written, which replaces the values
 * of known secrets (backend credentials, the server secret, the Redis
 * password) and the userinfo of any URL. Code should not log secrets in the
 * first place; this catches the case where an error message quotes one.
 */
export class Redactor {
  readonly #secrets = new Set<string>();
  #pattern: RegExp | undefined;

  /** Registers values never to be written; values shorter than 6 characters are ignored (too common). */
  add(values: Iterable<string>): void {
    for (const value of values) {
      if (typeof value !== 'string' || value.length < 6) continue;
      this.#secrets.add(value);
      // As it appears inside a JSON string, escapes and all.
      this.#secrets.add(JSON.stringify(value).slice(1, -1));
      // As it appears in a URL query or path.
      this.#secrets.add(encodeURIComponent(value));
    }
    const sorted = [...this.#secrets].sort((a, b) => b.length - a.length).map(escapeRegExp);
    this.#pattern = sorted.length > 0 ? new RegExp(sorted.join('|'), 'g') : undefined;
  }

  get size(): number {
    return this.#secrets.size;
  }

  redact(text: string): string {
    // Every log line passes here: skip the regular expressions when a plain
    // substring search shows they cannot match (a URL with userinfo needs
    // "://"; a secret needs to occur). Both searches are far cheaper than a
    // regex scan of the line; with many secrets, one regex scan is cheaper.
    let out = text.includes('://') ? text.replace(USERINFO, '$1REDACTED:REDACTED@') : text;
    if (this.#pattern && (this.#secrets.size > FEW_SECRETS || this.#occursIn(out))) {
      out = out.replace(this.#pattern, '[REDACTED]');
    }
    return out;
  }

  #occursIn(text: string): boolean {
    for (const secret of this.#secrets) if (text.includes(secret)) return true;
    return false;
  }
}

/** Up to this many secret forms, substring searches decide whether the secrets regex runs at all. */
const FEW_SECRETS = 16;

/** `scheme://user:password@` anywhere in a text. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:"]*:[^\s/@"]*@/gi;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
