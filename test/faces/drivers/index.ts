import { a2tDriver } from './a2t-driver.ts';
import { a2tLiteDriver } from './a2t-lite-driver.ts';
import type { FaceDriver } from './face-driver.ts';
import { mcpDriver } from './mcp-driver.ts';
import { openApiDriver } from './openapi-driver.ts';

export type { DriverCall, DriverOutcome, FaceDriver } from './face-driver.ts';

/** Every face the matrix runs through. */
export const FACE_DRIVERS: readonly FaceDriver[] = [a2tDriver, a2tLiteDriver, mcpDriver, openApiDriver];
