/**
 * What one XML document may hold before it is refused. The answer's byte size is already
 * capped by the backend client (5 MiB decoded); these bound what a small document can make a
 * parser do: nesting (stack), element and attribute counts (the tree built), names and texts.
 */
export interface XmlLimits {
  /** Characters of the whole document. */
  maxBytes: number;
  /** Nesting of elements; the root is depth 1. */
  maxDepth: number;
  /** Elements in the whole document. */
  maxElements: number;
  /** Attributes on one element (namespace declarations included while parsing). */
  maxAttributes: number;
  /** Characters of one element or attribute name. */
  maxNameLength: number;
  /** Characters of one text (CDATA included) or attribute value. */
  maxTextLength: number;
}

export const XML_LIMITS: Readonly<XmlLimits> = {
  maxBytes: 32 * 1024 * 1024,
  maxDepth: 64,
  maxElements: 200_000,
  maxAttributes: 256,
  maxNameLength: 1024,
  maxTextLength: 8 * 1024 * 1024,
};
