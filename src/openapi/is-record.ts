/** A non-null, non-array object: the shape every OpenAPI object must have before it is read. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
