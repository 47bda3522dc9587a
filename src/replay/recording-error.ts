import { SculptorError, type SourcePosition } from '../errors/sculptor-error.ts';

/**
 * Errors about recording files. They reuse the load codes of the error table
 * (there is no recording-specific code yet): `load.io` when the file cannot be
 * read, `load.yaml` when it is not valid YAML/JSON (JSON is YAML 1.2), and
 * `load.schema` when it parses but is not a well-formed cassette or HAR.
 * Every message starts with the file, so a bare `err.message` names it.
 */

export function unreadableRecording(file: string, cause: unknown): SculptorError {
  const reason = (cause as NodeJS.ErrnoException | undefined)?.code ?? 'read failed';
  return new SculptorError('load.io', `${file}: cannot be read (${reason})`, { cause });
}

export function unparseableRecording(
  file: string,
  detail: string,
  at?: Omit<SourcePosition, 'file'>,
): SculptorError {
  return new SculptorError('load.yaml', `${file}: ${detail}`, at ? { at: { file, ...at } } : {});
}

export function malformedRecording(
  file: string,
  detail: string,
  at?: Omit<SourcePosition, 'file'>,
): SculptorError {
  return new SculptorError('load.schema', `${file}: ${detail}`, at ? { at: { file, ...at } } : {});
}
