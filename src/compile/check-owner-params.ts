import { parametersByKey } from '../openapi/build-request.ts';
import type { Operation } from '../openapi/load-openapi.ts';
import { type AstNode, type CompiledExpression, literalObjectPairs } from './compile-expression.ts';

/**
 * RELIABILITY D2: parameters that name an owner (an account, an organisation,
 * a user — the backend's `ownerParams`) are bound from the caller's context,
 * never from what the LLM supplies: their value must be exactly `$caller.<name>`.
 * Otherwise a prompt-injected agent could ask for another tenant's account.
 * Returns one message per problem.
 */
export function ownerParamProblems(
  ownerParams: readonly string[],
  operation: Operation,
  params: CompiledExpression | undefined,
): string[] {
  if (ownerParams.length === 0) return [];
  const owned = [...parametersByKey(operation)].filter(([, p]) => ownerParams.includes(p.name));
  if (owned.length === 0 || !params) return [];
  const pairs = literalObjectPairs(params.ast);
  if (!pairs) {
    return [
      `params sets owner parameter(s) ${owned.map(([k]) => k).join(', ')} of this backend: write params as an object with literal keys so the binding can be checked.`,
    ];
  }
  return owned
    .filter(([key]) => pairs.has(key) && !isCallerPath(pairs.get(key)!))
    .map(
      ([key]) =>
        `Parameter '${key}' names an owner (ownerParams of the backend): bind it from the caller, e.g. "${key}": $caller.${key}, never from inputs.`,
    );
}

/** `$caller.a.b` with plain names only: no predicates, functions or other variables. */
function isCallerPath(node: AstNode): boolean {
  if (node.type !== 'path' || !Array.isArray(node.steps)) return false;
  const [head, ...rest] = node.steps as AstNode[];
  const plain = (n: AstNode) =>
    Object.keys(n).every((k) => k === 'type' || k === 'value' || k === 'position');
  return (
    head?.type === 'variable' &&
    head.value === 'caller' &&
    plain(head) &&
    rest.length > 0 &&
    rest.every((n) => n.type === 'name' && plain(n))
  );
}
