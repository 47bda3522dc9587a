/**
 * The safety limits of loading an OpenAPI document (RELIABILITY H1, H6), as
 * settings. Each counts work actually done: bytes read, and schema nodes the
 * model materializes (schemas are read lazily, schema-views.ts), never what a
 * document would expand to if every reference were inlined.
 *
 * Read from the environment where the loader uses them, like the JSONata
 * switches; `openApiLimitProblems` lets the settings stage report a bad value
 * with every other setting before anything loads.
 */
type Env = Readonly<Record<string, string | undefined>>;

export interface OpenApiLimits {
  /** Bytes of the document, every file of it together, checked before a byte is parsed. */
  maxBytes: number;
  /** Nesting of a schema between two references (stack safety for whoever walks it). */
  maxDepth: number;
  /** Schema nodes materialized for one document, over all the reads of its model. */
  maxSchemaNodes: number;
}

interface LimitSetting {
  env: string;
  fallback: number;
  min: number;
  max: number;
}

export const OPENAPI_LIMIT_SETTINGS: Readonly<Record<keyof OpenApiLimits, LimitSetting>> = {
  // Large vendor descriptions ship pretty-printed: GitHub's is 13 MB, Stripe's 6 MB.
  // YAML costs ~10× what JSON does to parse (docs/PERFORMANCE.md): 32 MiB keeps the worst
  // under a gigabyte of memory while every known public description fits.
  maxBytes: { env: 'SCULPTOR_OPENAPI_MAX_BYTES', fallback: 32 * 1024 * 1024, min: 1024, max: 1024 ** 3 },
  maxDepth: { env: 'SCULPTOR_OPENAPI_MAX_DEPTH', fallback: 256, min: 8, max: 10_000 },
  maxSchemaNodes: { env: 'SCULPTOR_OPENAPI_MAX_SCHEMA_NODES', fallback: 2_000_000, min: 1_000, max: 1e9 },
};

function read(env: Env): { limits: OpenApiLimits; problems: string[] } {
  const problems: string[] = [];
  const limits = {} as OpenApiLimits;
  for (const [key, s] of Object.entries(OPENAPI_LIMIT_SETTINGS) as [keyof OpenApiLimits, LimitSetting][]) {
    const text = env[s.env];
    const value = text === undefined || text === '' ? s.fallback : Number(text);
    if (!Number.isInteger(value) || value < s.min || value > s.max) {
      problems.push(`${s.env} must be a whole number from ${s.min} to ${s.max} (got '${text}').`);
      limits[key] = s.fallback;
    } else {
      limits[key] = value;
    }
  }
  return { limits, problems };
}

export function openApiLimitProblems(env: Env): string[] {
  return read(env).problems;
}

/** The limits in force: the environment's where valid (bad values are reported by the settings stage), else the defaults. */
export function openApiLimits(env: Env = process.env): OpenApiLimits {
  return read(env).limits;
}

/** "raise SCULPTOR_OPENAPI_MAX_BYTES (now 33554432)": the fix-it of a limit hit. */
export function raiseHint(key: keyof OpenApiLimits, limits: OpenApiLimits): string {
  const s = OPENAPI_LIMIT_SETTINGS[key];
  return `if the document is right, raise ${s.env} (now ${limits[key]}, default ${s.fallback})`;
}
