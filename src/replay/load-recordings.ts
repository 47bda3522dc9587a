import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { isSculptorError } from '../errors/sculptor-error.ts';
import { parseHar } from './parse-har.ts';
import { parseVcrCassette } from './parse-vcr-cassette.ts';
import type { BodyEncoding } from './recorded-body.ts';
import type { RecordedHeaders } from './recorded-headers.ts';
import { malformedRecording, unreadableRecording } from './recording-error.ts';

/** One recorded request and the answer the backend gave to it. */
export interface RecordedExchange {
  /** File and `#index` of the interaction/entry in it, so a designer can find the recording. */
  source: string;
  request: {
    method: string;
    /** Absolute, as recorded; the host is kept but replay ignores it. */
    url: string;
    /** Lower-cased names; see recorded-headers.ts. */
    headers: RecordedHeaders;
    body?: string;
    bodyEncoding?: BodyEncoding;
  };
  response: {
    status: number;
    headers: RecordedHeaders;
    /** Decoded content (no Content-Encoding applies); base64 when `bodyEncoding` says so. */
    body: string;
    bodyEncoding?: BodyEncoding;
  };
}

const YAML_EXTENSIONS = new Set(['.yaml', '.yml']);
const RECORDING_EXTENSIONS = new Set([...YAML_EXTENSIONS, '.har', '.json']);

interface Candidate {
  file: string;
  /** Named on the command line rather than found by walking a folder. */
  explicit: boolean;
}

/**
 * Loads vcrpy cassettes (*.yaml, *.yml with `interactions:`) and HAR 1.2 files
 * (*.har, or *.json with a `log.entries` array) from files and folders.
 * Folders are walked recursively in name order, so the order of exchanges —
 * which decides which duplicate answers first — is the same on every machine.
 * Other files are ignored; a malformed recording is an error naming its file.
 */
export async function loadRecordings(paths: string[]): Promise<RecordedExchange[]> {
  const exchanges: RecordedExchange[] = [];
  for (const candidate of await collectCandidates(paths)) {
    exchanges.push(...(await loadFile(candidate)));
  }
  return exchanges;
}

async function loadFile({ file, explicit }: Candidate): Promise<RecordedExchange[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw unreadableRecording(file, cause);
  }
  const extension = extname(file).toLowerCase();
  try {
    if (YAML_EXTENSIONS.has(extension)) return parseVcrCassette(text, file) ?? [];
    const har = parseHar(text, file);
    if (har !== undefined) return har;
    if (extension === '.har') throw malformedRecording(file, 'not a HAR file: log.entries must be an array');
    return [];
  } catch (error) {
    // A file that does not even parse cannot be told apart from a non-recording.
    // Complain when it was named explicitly or looks like a recording; otherwise
    // it is some other YAML/JSON file sitting in a walked folder.
    const unparseable = isSculptorError(error) && error.code === 'load.yaml';
    if (unparseable && !explicit && extension !== '.har' && !looksLikeRecording(text)) return [];
    throw error;
  }
}

function looksLikeRecording(text: string): boolean {
  return /^interactions\s*:/m.test(text) || /"entries"\s*:/.test(text);
}

async function collectCandidates(paths: string[]): Promise<Candidate[]> {
  const candidates: Candidate[] = [];
  // Real paths already taken: the same file named twice, or named and also
  // inside a named folder, or reached through a symlink loop, loads once.
  const seen = new Set<string>();

  const add = async (file: string, explicit: boolean): Promise<void> => {
    const real = await realpath(file);
    if (seen.has(real)) return;
    seen.add(real);
    candidates.push({ file, explicit });
  };

  const walk = async (dir: string): Promise<void> => {
    const real = await realpath(dir);
    if (seen.has(real)) return;
    seen.add(real);
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      // Hidden folders (.git) and node_modules hold no recordings and can be huge.
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const full = join(dir, entry.name);
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        const target = await stat(full).catch(() => undefined); // a dangling link is not a recording
        isDirectory = target?.isDirectory() ?? false;
        isFile = target?.isFile() ?? false;
      }
      if (isDirectory) await walk(full);
      else if (isFile && RECORDING_EXTENSIONS.has(extname(entry.name).toLowerCase())) await add(full, false);
    }
  };

  for (const path of paths) {
    try {
      const info = await stat(path);
      if (info.isDirectory()) await walk(path);
      else if (RECORDING_EXTENSIONS.has(extname(path).toLowerCase())) await add(path, true);
    } catch (cause) {
      if (isSculptorError(cause)) throw cause;
      throw unreadableRecording(path, cause);
    }
  }
  return candidates;
}
