/**
 * `${NAME}` and `${NAME:-default}` references to environment variables, the
 * only way backend files name URLs that vary per deployment and secrets.
 */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export interface Interpolated {
  value: string;
  /** Variables referenced that are unset and have no default. */
  missing: string[];
  /** Whether the text referenced at least one variable. */
  referencesEnv: boolean;
}

export function interpolateEnv(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): Interpolated {
  const missing: string[] = [];
  let referencesEnv = false;
  const value = text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    referencesEnv = true;
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return '';
  });
  return { value, missing, referencesEnv };
}

/** The text with every reference removed: what was written literally. */
export function literalPart(text: string): string {
  return text.replace(REFERENCE, '');
}
