/**
 * A bench child that loads one OpenAPI description in a fresh process and
 * reads, for every operation, what `init` and a sculpt's output reads of it:
 * the fields of its success answer, one level down (schema views are lazy,
 * so reading is part of the cost). Its ready message carries the time and
 * memory that took (without IPC, it prints them).
 *
 *   node --expose-gc bench/load-description.ts <file>
 */
import { loadOpenApi } from '../src/openapi/load-openapi.ts';
import { failStart, type ReadyMessage, serveUntilStopped } from './child.ts';

export interface DescriptionLoad extends ReadyMessage {
  operations: number;
  /** loadOpenApi: read, parse, normalize every operation. */
  loadMs: number;
  /** Then reading every operation's success answer, fields one level down. */
  readMs: number;
  /** Fields read that way, over all operations. */
  fieldsRead: number;
  /** After a full GC, with the model still referenced. */
  rssBytes: number;
  heapUsedBytes: number;
  maxRssBytes: number;
}

type Schema = Record<string, unknown>;
const isRecord = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Properties of a schema, its allOf/anyOf/oneOf parts and array items included (what the scaffold looks through). */
function fieldsOf(schema: unknown): Schema[] {
  if (!isRecord(schema)) return [];
  const parts = [
    schema,
    ...['allOf', 'anyOf', 'oneOf'].flatMap((k) => (Array.isArray(schema[k]) ? schema[k] : [])),
  ];
  if (isRecord(schema.items)) parts.push(schema.items);
  return parts
    .filter(isRecord)
    .flatMap((p) => (isRecord(p.properties) ? Object.values(p.properties).filter(isRecord) : []));
}

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node bench/load-description.ts <file>');
  const t0 = performance.now();
  const document = await loadOpenApi(file);
  const loadMs = performance.now() - t0;
  const t1 = performance.now();
  let fieldsRead = 0;
  for (const operation of document.operations) {
    for (const [status, response] of Object.entries(operation.responses)) {
      if (!status.startsWith('2')) continue;
      for (const field of fieldsOf(response.schema)) {
        fieldsRead++;
        for (const inner of fieldsOf(field)) void inner.type;
      }
    }
  }
  const readMs = performance.now() - t1;
  (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  const ready: Omit<DescriptionLoad, 'type'> = {
    operations: document.operations.length,
    loadMs,
    readMs,
    fieldsRead,
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  };
  if (process.send) serveUntilStopped(ready, async () => {});
  else console.log(JSON.stringify(ready));
}

main().catch(failStart);
