import path from 'node:path';
import { loadOpenApi } from '../openapi/load-openapi.ts';
import { initSculpt, type InitResult } from './init-sculpt.ts';
import { readOpenApiExtras } from './openapi-extras.ts';
import { toolNameFor } from './scaffold-names.ts';

export interface InitAllResult {
  written: InitResult[];
  /** Operations that could not be scaffolded, with why. */
  failed: Array<{ operation: string; message: string }>;
}

/**
 * `sculptor init --all`: one scaffold per operation of a document, the API as an agent would get
 * it converted one tool per operation — the baseline a sculpted folder is compared with
 * (`sculptor eval --against`). Each tool is exactly what `init --operation` writes for it; two
 * operations whose names collide get a numbered suffix, so every operation has its tool.
 */
export async function initAll(options: {
  openapi: string;
  out: string;
  backend?: string;
  force?: boolean;
}): Promise<InitAllResult> {
  const openapi = path.resolve(options.openapi);
  const document = await loadOpenApi(openapi);
  const extras = await readOpenApiExtras(openapi);
  const taken = new Set<string>();
  const result: InitAllResult = { written: [], failed: [] };
  for (const operation of document.operations) {
    const route = `${operation.method} ${operation.path}`;
    const unique =
      operation.operationId !== undefined &&
      document.operations.filter((op) => op.operationId === operation.operationId).length === 1;
    const base = toolNameFor(operation);
    let name = base;
    for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
    try {
      const written = await initSculpt({
        openapi,
        operation: unique ? operation.operationId! : route,
        out: options.out,
        ...(options.backend !== undefined ? { backend: options.backend } : {}),
        ...(name !== base ? { name } : {}),
        force: options.force === true,
        loaded: { document, extras },
      });
      taken.add(written.toolName);
      result.written.push(written);
    } catch (err) {
      result.failed.push({ operation: route, message: (err as Error).message });
    }
  }
  return result;
}
