import { readFile } from 'node:fs/promises';
import {
  type Document,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
} from 'yaml';
import { SculptorError, type SourcePosition } from '../errors/sculptor-error.ts';

/** Sculpt files are small; anything bigger is a mistake or an attack (RELIABILITY H1). */
export const MAX_SCULPT_FILE_BYTES = 256 * 1024;

export type YamlPath = ReadonlyArray<string | number>;

/**
 * A parsed YAML file that still knows where every value came from, so that
 * any later stage can report `file:line:col` for a path into the document.
 */
export interface YamlSource {
  file: string;
  value: unknown;
  /** Position of the value at `path` (or of its nearest existing ancestor). */
  at(path: YamlPath): SourcePosition;
  /** Position of the key of the entry at `path` (falls back to the value). */
  keyAt(path: YamlPath): SourcePosition;
  /** Position of a character inside the scalar at `path` (for JSONata errors). */
  inScalar(path: YamlPath, offset: number): SourcePosition;
}

/**
 * Reads one YAML file and parses it as `parseYamlSource` does; a file that cannot be read is
 * `load.io`, naming it as `what` ("the callers file").
 */
export async function readYamlSource(
  file: string,
  what = 'file',
): Promise<{ source?: YamlSource; errors: SculptorError[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    return {
      errors: [
        new SculptorError('load.io', `Cannot read ${what}: ${(err as Error).message}`, {
          at: { file, line: 1, column: 1 },
          cause: err,
        }),
      ],
    };
  }
  return parseYamlSource(file, text);
}

/**
 * Parses YAML strictly: core schema, unique keys, no aliases (no "billion
 * laughs"), and warnings (such as unknown `!!js/function` tags) are errors.
 * Returns every problem it finds; `source` is undefined when there are any.
 */
export function parseYamlSource(
  file: string,
  text: string,
  maxBytes = MAX_SCULPT_FILE_BYTES,
): { source?: YamlSource; errors: SculptorError[] } {
  if (Buffer.byteLength(text) > maxBytes) {
    return {
      errors: [
        new SculptorError('load.yaml', `File is larger than ${maxBytes} bytes.`, {
          at: { file, line: 1, column: 1 },
        }),
      ],
    };
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, schema: 'core', prettyErrors: false });
  const position = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, column: col };
  };
  const problems = [...doc.errors, ...doc.warnings].map(
    (e) => new SculptorError('load.yaml', firstLine(e.message), { at: position(e.pos[0]) }),
  );
  if (problems.length > 0) return { errors: problems };

  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 0 });
  } catch (err) {
    return {
      errors: [
        new SculptorError('load.yaml', firstLine(String((err as Error).message)), { at: position(0) }),
      ],
    };
  }
  return { source: makeSource(file, text, doc, value, position), errors: [] };
}

function makeSource(
  file: string,
  text: string,
  doc: Document,
  value: unknown,
  position: (offset: number) => SourcePosition,
): YamlSource {
  const nodeAt = (path: YamlPath): { node: Node | undefined; keyNode: Node | undefined } => {
    let node: unknown = doc.contents;
    let keyNode: Node | undefined;
    for (const segment of path) {
      if (isMap(node)) {
        const pair = node.items.find(
          (p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment),
        );
        if (!pair) break;
        keyNode = pair.key as Node;
        node = pair.value ?? pair.key;
      } else if (isSeq(node) && typeof segment === 'number' && node.items[segment] !== undefined) {
        keyNode = undefined;
        node = node.items[segment];
      } else {
        break;
      }
    }
    return { node: isNode(node) ? node : undefined, keyNode };
  };
  const start = (node: Node | undefined): number => node?.range?.[0] ?? 0;

  return {
    file,
    value,
    at: (path) => position(start(nodeAt(path).node)),
    keyAt: (path) => {
      const { node, keyNode } = nodeAt(path);
      return position(start(keyNode ?? node));
    },
    inScalar: (path, offset) => {
      const { node } = nodeAt(path);
      if (!node || !isScalar(node) || !node.range) return position(start(node));
      return position(scalarOffset(text, node, offset));
    },
  };
}

/**
 * Maps an offset inside a scalar's value to an offset in the file. Exact for
 * plain scalars and block literals (`|`), the forms expressions are written
 * in; for quoted and folded scalars it lands on the right line or close to it.
 */
function scalarOffset(text: string, node: Node, offset: number): number {
  const begin = node.range![0];
  const value = String((node as { value?: unknown }).value ?? '');
  const before = value.slice(0, Math.max(0, Math.min(offset, value.length)));
  const type = (node as { type?: string }).type;
  if (type === 'QUOTE_DOUBLE' || type === 'QUOTE_SINGLE') return begin + 1 + before.length;
  if (type !== 'BLOCK_LITERAL' && type !== 'BLOCK_FOLDED') return begin + before.length;
  // A block scalar starts with its header (`|`, `|-`, `>`) and continues on
  // indented lines: walk to the value's line, then add the indentation.
  const lines = before.split('\n');
  let lineStart = text.indexOf('\n', begin) + 1;
  const indent = /^ */.exec(text.slice(lineStart))![0].length;
  for (let i = 1; i < lines.length; i++) lineStart = text.indexOf('\n', lineStart) + 1;
  return lineStart + indent + lines[lines.length - 1]!.length;
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}
