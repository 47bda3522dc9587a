import { loadOpenApi } from '../openapi/load-openapi.ts';
import { loadWsdl } from '../soap/load-wsdl.ts';
import { readOpenApiExtras } from './openapi-extras.ts';
import { plainText } from './scaffold-text.ts';

/** One operation of a description, as `sculptor operations` lists it. */
export interface OperationEntry {
  method: string;
  path: string;
  operationId: string | undefined;
  summary: string;
  tags: string[];
  /** What `init --operation` takes for it: the operationId when it names one operation, else `METHOD /path`. */
  ref: string;
}

export interface ListOptions {
  /** Words that must all appear in the method, path, operationId, summary or tags (any case). */
  filter?: string;
  /** Only operations with this tag (any case). */
  tag?: string;
}

/**
 * The operations of an OpenAPI (or Swagger 2.0) description, in the document's order, with what
 * `sculptor init --operation` needs to name each: so a designer finds an operation without
 * reading the document, or guessing an operationId it may not have.
 */
export async function listOperations(
  file: string,
  options: ListOptions = {},
): Promise<{ total: number; operations: OperationEntry[] }> {
  const document = await loadOpenApi(file);
  const extras = await readOpenApiExtras(file);
  const ids = new Map<string, number>();
  for (const op of document.operations) {
    if (op.operationId !== undefined) ids.set(op.operationId, (ids.get(op.operationId) ?? 0) + 1);
  }
  const all = document.operations.map((op) => {
    const route = `${op.method} ${op.path}`;
    const summary = plainText(op.summary || op.description || '');
    return {
      method: op.method,
      path: op.path,
      operationId: op.operationId,
      summary: summary.length > 100 ? `${summary.slice(0, 99)}…` : summary,
      tags: extras.operationTags(op.method, op.path),
      ref: op.operationId !== undefined && ids.get(op.operationId) === 1 ? op.operationId : route,
    };
  });
  const operations = filtered(all, options);
  return { total: all.length, operations };
}

/** Those whose text holds every word of the filter, and the tag when one is asked for. */
function filtered(all: OperationEntry[], options: ListOptions): OperationEntry[] {
  const wanted = (options.filter ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const tag = options.tag?.toLowerCase();
  return all.filter((op) => {
    if (tag !== undefined && !op.tags.some((t) => t.toLowerCase() === tag)) return false;
    const text =
      `${op.method} ${op.path} ${op.operationId ?? ''} ${op.summary} ${op.tags.join(' ')}`.toLowerCase();
    return wanted.every((w) => text.includes(w));
  });
}

/** A WSDL port as `sculptor operations --wsdl` lists it. */
export interface PortEntry {
  /** `service/port`. */
  name: string;
  version: string;
  address: string;
  /** The port whose operations are listed (and that a backend uses by default). */
  used: boolean;
  /** Why it cannot be called, for a port that is not SOAP. */
  refused?: string;
}

/**
 * A WSDL description's operations, listed like an OpenAPI document's (each `POST #Name`, its
 * `ref` the name `init --operation` takes), with its ports and the operations that cannot be
 * called, each with the reason.
 */
export async function listWsdlOperations(
  file: string,
  options: ListOptions & { port?: string } = {},
): Promise<{
  total: number;
  operations: OperationEntry[];
  ports: PortEntry[];
  unsupported: Array<{ name: string; reason: string }>;
}> {
  const doc = await loadWsdl(file, options.port !== undefined ? { port: options.port } : {});
  const all = doc.operations.map((op) => {
    const summary = plainText(op.summary ?? '');
    return {
      method: op.method,
      path: op.path,
      operationId: op.operationId,
      summary: summary.length > 100 ? `${summary.slice(0, 99)}…` : summary,
      tags: [],
      ref: op.operationId!,
    };
  });
  return {
    total: all.length,
    operations: filtered(all, options),
    ports: doc.ports.map((p) => ({
      name: p.service ? `${p.service}/${p.port}` : p.port,
      version: p.version ? `SOAP ${p.version}` : 'not SOAP',
      address: p.address ?? '',
      used: p === doc.port,
      ...(p.version ? {} : { refused: p.unsupported[0]?.reason ?? 'not SOAP' }),
    })),
    unsupported: (doc.unsupported ?? []).map((u) => ({ name: u.operation, reason: u.reason })),
  };
}

/** Ports as lines, the one used marked `*`. */
export function formatPorts(ports: readonly PortEntry[]): string[] {
  return ports.map(
    (p) =>
      `${p.used ? '*' : ' '} ${p.name}  ${p.version}${p.address ? `  ${p.address}` : ''}${p.refused ? `  (${p.refused})` : ''}`,
  );
}

/** The listing as aligned lines: method, path, operationId (or "—"), summary; tags in brackets. */
export function formatOperations(operations: readonly OperationEntry[]): string[] {
  const width = (pick: (op: OperationEntry) => string, max: number) =>
    Math.min(max, Math.max(0, ...operations.map((op) => pick(op).length)));
  const m = width((op) => op.method, 7);
  const p = width((op) => op.path, 48);
  const i = width((op) => op.operationId ?? '—', 36);
  return operations.map((op) => {
    const tags = op.tags.length > 0 ? ` [${op.tags.join(', ')}]` : '';
    return `${op.method.padEnd(m)}  ${op.path.padEnd(p)}  ${(op.operationId ?? '—').padEnd(i)}  ${op.summary}${tags}`.trimEnd();
  });
}
