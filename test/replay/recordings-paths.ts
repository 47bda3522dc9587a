import { fileURLToPath } from 'node:url';

/** The recorded exchanges every replay test uses (test/fixtures/recordings, provenance in its SOURCES.md). */
export const RECORDINGS = fileURLToPath(new URL('../fixtures/recordings', import.meta.url));
export const CASSETTES = `${RECORDINGS}/cassettes`;
export const BODIES = `${RECORDINGS}/bodies`;
export const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));
