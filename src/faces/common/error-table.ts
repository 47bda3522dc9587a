import type { ErrorCode } from '../../errors/sculptor-error.ts';

/**
 * How a face answers each error code: one entry per code, so adding a code to CODES fails
 * typecheck until every face's table says how it answers it (A2T problem details, an MCP tool
 * result with `isError` or a JSON-RPC error, a2t-lite's `{error}`…).
 */
export type ErrorTable<Answer> = { readonly [Code in ErrorCode]: Answer };
