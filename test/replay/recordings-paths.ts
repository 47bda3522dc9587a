import { fileURLToPath } from 'node:url';

/** The shared recordings every replay test uses (see SOURCES.md there). */
export const RECORDINGS = '/work/shared/recordings';
export const CASSETTES = `${RECORDINGS}/cassettes`;
export const BODIES = `${RECORDINGS}/bodies`;
export const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));
