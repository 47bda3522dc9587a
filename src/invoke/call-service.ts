import type { Caller } from '../callers/load-callers.ts';
import type { QuotaCheck } from '../callers/quotas.ts';
import type { Catalog, CatalogTool } from '../catalog/catalog.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import type { OutputValue } from '../engine/check-output.ts';
import type { Engine, InvocationArguments, InvocationReport } from '../engine/invoke-tool.ts';
import { checkGrant } from './check-grant.ts';
import { engineCaller } from './engine-caller.ts';
import { audienceOf } from './tool-audience.ts';

/**
 * Who makes a call, as the face established it: the authenticated caller, and what admission
 * keys it by (its `Authorization` value with a callers file, else its address), and the
 * per-user credentials a pass-through may read. `address` and `presented` are called as the
 * party's methods (`party.address?.()`): a face may implement them on a class.
 */
export interface CallParty {
  caller: Caller;
  /** The `Authorization` header as sent (hashed, never kept): the caller's key with a callers file. */
  authorization?: string | undefined;
  /** The peer's address, read only when admission needs it. */
  address?: () => string | undefined;
  /** A request header by name, for an explicit pass-through; none on stdio. */
  presented?: (header: string) => string | undefined;
}

/**
 * Admission of one call (RELIABILITY A7, C10): throws (or rejects with) `gateway.overloaded`,
 * `request.rate_limited` or `request.too_many_in_flight`, else gives the function that gives the
 * caller's slot back once the call has answered — at once, or as a promise when admission waits
 * (a rate limit shared through Redis). The host composes it (server/invocation-gate.ts).
 */
export type Admission = (party: CallParty) => (() => void) | Promise<() => void>;

/** Admission of one long-lived stream: throws `request.too_many_streams`, else returns its release. */
export type StreamAdmission = (party: CallParty) => () => void;

/** One call, in no protocol's terms: the faces decode their wire form into this. */
export interface ToolCall {
  /** The face it came through (`a2t`, `mcp`…), for metrics and logs. */
  face: string;
  /** The tool by its name (MCP, a2t-lite, `/call`) or by its id (A2T). */
  tool: { name: string } | { id: string };
  /** A pinned version; the current one when absent. */
  version?: number | undefined;
  /**
   * The arguments, read once the tool is known and the call admitted (a body is read only for a
   * call that will run; its problems are reported with the tool's own, see InvocationArguments).
   */
  arguments: (tool: CompiledTool) => InvocationArguments | Promise<InvocationArguments>;
  party: CallParty;
  /** The caller going away (a closed request, MCP cancellation). */
  signal?: AbortSignal;
  /** Steps finished so far, of the tool's steps (MCP progress). */
  onProgress?: (done: number, total: number) => void;
}

export interface CallOutcome {
  /** The version that ran, and the catalog entry it was found under (a2t-lite's group check reads it). */
  tool: CompiledTool;
  entry: CatalogTool;
  /** The catalog the call was resolved in (one reload may swap it while the call runs). */
  catalog: Catalog;
  /** The declared outputs, in signature order. */
  outputs: OutputValue[];
}

/** The one way any face calls a tool. */
export interface CallService {
  call(call: ToolCall): Promise<CallOutcome>;
}

export interface CallServiceOptions {
  /** The catalog in force; read per call, so a reload swaps it atomically. */
  catalog: () => Catalog;
  engine: Engine;
  /** Shedding, rate and the caller's in-flight cap; none: every call is admitted (a one-caller host). */
  admit?: Admission | undefined;
  /** Per-tenant quotas from the callers file. */
  quotas?: QuotaCheck | undefined;
  /** Each invocation's report (metrics, logs, tests). */
  onReport?: ((report: InvocationReport) => void) | undefined;
}

const NOTHING_HELD = () => {};

/**
 * The call pipeline, composed once by the host: admission → the tool, looked up by name or id as
 * the caller's audience sees it (a tool outside it answers exactly like a missing one) → the
 * token's scopes and the tenant's quota → the engine (validation, deadline, cache, steps, output
 * checks, telemetry) → the report → the outputs. The Host/Origin rule comes before it, in the
 * HTTP server, since it guards listings and pages as well as calls.
 */
export function createCallService(options: CallServiceOptions): CallService {
  const { engine, admit, quotas, onReport } = options;
  return {
    async call(call) {
      const admitted = admit ? admit(call.party) : NOTHING_HELD;
      const release = typeof admitted === 'function' ? admitted : await admitted;
      try {
        const catalog = options.catalog();
        const audience = audienceOf(call.party.caller);
        const entry =
          'name' in call.tool
            ? catalog.findNamed(audience, call.tool.name)
            : catalog.find(audience, call.tool.id);
        const tool =
          call.version === undefined
            ? entry.current
            : catalog.findVersion(audience, entry.toolId, call.version);
        const quota = checkGrant(call.party.caller, tool, quotas);
        if (quota) await quota;
        const args = await call.arguments(tool);
        // One object literal of one shape, absent options undefined: no spread per call.
        const { outputs } = await engine.invoke(tool, args, {
          face: call.face,
          caller: engineCaller(call.party),
          signal: call.signal,
          onProgress: call.onProgress,
          onReport,
        });
        return { tool, entry, catalog, outputs };
      } finally {
        release();
      }
    },
  };
}

/** The outputs as one object, the form MCP's `structuredContent`, a2t-lite and `/call` answer. */
export function outputRecord(outputs: readonly OutputValue[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const output of outputs) record[output.name] = output.value;
  return record;
}
