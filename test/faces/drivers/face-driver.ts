/**
 * One test table, every face: a driver says how one face lists and invokes tools,
 * and answers in neutral terms, so the same cases (the sculpt test files, the tenancy and limit
 * cases) run through each face. A new face adds its driver to FACE_DRIVERS.
 */
import type { ActualOutcome } from '../../../src/testing/index.ts';

export interface DriverCall {
  tool: string;
  /** Pinned version; the current one when absent. */
  version?: number;
  inputs: Record<string, unknown>;
  /** A bearer token, when the gateway has a callers file. */
  token?: string;
}

export interface DriverOutcome {
  actual: ActualOutcome;
  /** The HTTP status, where the face answers an outcome with one (A2T); undefined elsewhere. */
  status?: number;
}

export interface FaceDriver {
  name: string;
  /** The names of the tools this caller is shown (every page). */
  list(gatewayUrl: string, token?: string): Promise<string[]>;
  invoke(gatewayUrl: string, call: DriverCall): Promise<DriverOutcome>;
  /** Why this face cannot make this call (its case is skipped, saying so); undefined: it can. */
  unsupported?(call: DriverCall): string | undefined;
  /** Releases what the driver holds for this gateway (a client session); optional. */
  close?(gatewayUrl: string): Promise<void>;
}
