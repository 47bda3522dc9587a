import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { SculptorError, type SourcePosition } from '../errors/sculptor-error.ts';
import { BACKENDS_FILE, SCULPT_SUFFIX } from '../sculpt/load-sculpts.ts';
import { readYamlSource } from '../sculpt/yaml-source.ts';
import testSchema from './sculpt-test.schema.json' with { type: 'json' };

/** Sculpt test files end in this; `runSculptTests` finds them in folders. */
export const TEST_SUFFIX = '.test.yaml';

export type InputValue = unknown;

/** What a case expects: every output exactly, or an error code (and part of its message). */
export type CaseExpectation = { outputs: Record<string, unknown> } | { error: string; message?: string };

export interface SculptTestCase {
  name: string;
  /** Where the case starts in its file. */
  at: SourcePosition;
  version?: number;
  inputs: Record<string, InputValue>;
  expect: CaseExpectation;
  /** Exactly these backend calls, in any order ("GET /path?query"); undefined: not checked. */
  calls?: string[];
}

/** A `*.test.yaml` file, paths resolved. */
export interface SculptTestFile {
  /** Absolute path of the test file. */
  file: string;
  tool: string;
  version?: number;
  /** Absolute path of the sculpt folder the file names, if it names one. */
  sculpts?: string;
  /** Absolute paths of recordings (files or folders). */
  recordings: string[];
  cases: SculptTestCase[];
}

interface RawTestFile {
  tool: string;
  version?: number;
  sculpts?: string;
  recordings: string[];
  cases: Array<{
    name: string;
    version?: number;
    inputs?: Record<string, InputValue>;
    expect: CaseExpectation;
    calls?: string[];
  }>;
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(testSchema);

/**
 * Reads one sculpt test file: strict YAML, then its JSON Schema. Returns the
 * file, or every problem found, each with file:line:col (load.* codes).
 */
export async function loadSculptTestFile(
  file: string,
): Promise<{ test?: SculptTestFile; errors: SculptorError[] }> {
  const absolute = path.resolve(file);
  const parsed = await readYamlSource(absolute);
  if (!parsed.source) return { errors: parsed.errors };
  const source = parsed.source;
  if (!validate(source.value)) {
    const errors = schemaErrors(validate.errors ?? []).map(
      ({ at, key, message }) =>
        // An unknown property is shown at its key, anything else at its value.
        new SculptorError('load.schema', message, { at: key ? source.keyAt([...at, key]) : source.at(at) }),
    );
    return { errors: errors.sort((a, b) => a.at!.line - b.at!.line || a.at!.column - b.at!.column) };
  }
  const raw = source.value as unknown as RawTestFile;
  const dir = path.dirname(absolute);
  return {
    test: {
      file: absolute,
      tool: raw.tool,
      ...(raw.version !== undefined ? { version: raw.version } : {}),
      ...(raw.sculpts !== undefined ? { sculpts: path.resolve(dir, raw.sculpts) } : {}),
      recordings: raw.recordings.map((r) => path.resolve(dir, r)),
      cases: raw.cases.map((c, i) => ({
        name: c.name,
        at: source.at(['cases', i]),
        ...(c.version !== undefined ? { version: c.version } : {}),
        inputs: c.inputs ?? {},
        expect: c.expect,
        ...(c.calls !== undefined ? { calls: c.calls } : {}),
      })),
    },
    errors: [],
  };
}

/** ajv errors a test author can act on: one per place, no `oneOf` branch noise. */
interface SchemaProblem {
  at: Array<string | number>;
  /** The offending property name, for problems about a key. */
  key?: string;
  message: string;
}

function schemaErrors(errors: ErrorObject[]): SchemaProblem[] {
  const seen = new Set<string>();
  const out: SchemaProblem[] = [];
  for (const e of errors) {
    const at = e.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    const where = at.length > 0 ? `'${at.join('.')}'` : 'the file';
    let message: string;
    let key: string | undefined;
    if (e.keyword === 'oneOf' || e.keyword === 'not') {
      if (!e.instancePath.endsWith('/expect')) continue;
      message = `${where} must have either outputs, or error (and optionally message).`;
    } else if (e.keyword === 'required') {
      if (e.instancePath.endsWith('/expect')) continue; // reported by the oneOf message
      message = `Missing property '${String(e.params.missingProperty)}' in ${where}.`;
    } else if (e.keyword === 'additionalProperties') {
      key = String(e.params.additionalProperty);
      message = `Unknown property '${key}' in ${where}.`;
    } else {
      message = `${where} ${e.message ?? 'is invalid'}.`;
    }
    const id = `${e.instancePath}|${message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ at, ...(key !== undefined ? { key } : {}), message });
  }
  return out;
}

/** Test files named directly, or found below folders (name order, so runs are repeatable). */
export function findSculptTestFiles(paths: string[]): Promise<string[]> {
  return findFilesBySuffix(paths, TEST_SUFFIX);
}

/** Files named directly, or those below folders whose name ends in `suffix`, in name order. */
export async function findFilesBySuffix(paths: readonly string[], suffix: string): Promise<string[]> {
  const found: string[] = [];
  for (const p of paths) {
    const absolute = path.resolve(p);
    const info = await stat(absolute);
    if (!info.isDirectory()) {
      found.push(absolute);
      continue;
    }
    const entries = await readdir(absolute, { withFileTypes: true, recursive: true });
    found.push(
      ...entries
        .filter((e) => e.isFile() && e.name.endsWith(suffix))
        .map((e) => path.join(e.parentPath, e.name))
        .filter((f) => !f.split(path.sep).includes('node_modules'))
        .sort(),
    );
  }
  return [...new Set(found)];
}

/**
 * The sculpt folder of a test file that names none: the nearest folder at or
 * above it holding a backends file or a sculpt file. Undefined when none does.
 */
export async function findSculptsFolder(testFile: string): Promise<string | undefined> {
  let dir = path.dirname(path.resolve(testFile));
  for (;;) {
    let names: string[] = [];
    try {
      names = await readdir(dir);
    } catch {
      // unreadable: keep climbing
    }
    if (names.some((n) => n === BACKENDS_FILE || n.endsWith(SCULPT_SUFFIX))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
