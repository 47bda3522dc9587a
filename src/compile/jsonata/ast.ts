/** A JSONata AST node; the published types miss some node kinds (`path`, `bind`). */
export interface AstNode {
  type: string;
  value?: unknown;
  position?: number;
  [field: string]: unknown;
}

/** Visits every node of a JSONata AST (its shape varies by node type, so walk every field). */
export function walkAst(node: unknown, visit: (node: AstNode) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) walkAst(child, visit);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  if (typeof (node as AstNode).type === 'string') visit(node as AstNode);
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'position' && value !== null && typeof value === 'object') walkAst(value, visit);
  }
}

/**
 * A binary operator node's operator (`..`, `&`…), also once the cost model has rewritten it into
 * a call of a bounded function (`bounded-functions.ts`), or undefined.
 */
export function operatorOf(node: AstNode): string | undefined {
  if (typeof node.operator === 'string') return node.operator;
  return node.type === 'binary' && typeof node.value === 'string' ? node.value : undefined;
}
