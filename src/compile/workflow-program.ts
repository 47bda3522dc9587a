import type { ExpressionScope, Getter } from '../arazzo/bind-expression.ts';
import type { Condition } from '../arazzo/criterion.ts';
import type { InputProblem } from '../errors/sculptor-error.ts';
import type { CompiledExpression } from './compile-expression.ts';
import type { CompiledStep } from './compile-tool.ts';

/**
 * An Arazzo workflow compiled for the engine: its steps in order, each an operation call (a
 * chain step like any sculpt's, with the same request building, cache, limits, egress and
 * telemetry) or a call of another workflow, with the control flow the chain model lacks
 * (success criteria, `end` / `goto` / `retry` actions) as data the engine's bounded runner reads.
 */
export interface WorkflowProgram {
  workflowId: string;
  /** Where the description declares it, for errors across workflows. */
  file: string;
  steps: WorkflowStep[];
  /** The workflow's outputs, by the names the description gives them. */
  outputs: Array<[string, Getter]>;
  /** The workflow's inputs checked against its JSON Schema: every problem, none when they fit. */
  checkInputs(inputs: Record<string, unknown>): InputProblem[];
  /** Inputs every run needs: sent as they are into a required parameter of a step that always runs. */
  requiredInputs: ReadonlySet<string>;
  /** Inputs only credential parameters read, which the backend's own credentials replace: no caller gives them. */
  credentialInputs: ReadonlySet<string>;
  /** Workflows that must have run first (`dependsOn`), given the same inputs. */
  dependsOn: Array<() => WorkflowProgram>;
}

export interface WorkflowStep {
  id: string;
  /** An operation call. */
  call?: {
    step: CompiledStep;
    /** Parameter values by the request builder's keys. */
    params: Array<[string, Getter]>;
    body?: Getter;
  };
  /** A call of another workflow of the document, with its inputs. */
  workflow?: { program: () => WorkflowProgram; inputs: Getter };
  /** All must hold; none: an operation step succeeds on a 2xx answer, a workflow step when it ends well. */
  successCriteria: Condition[];
  /** The step's own actions first, then the workflow's (a step's action of the same name replaces it). */
  onSuccess: WorkflowAction[];
  onFailure: WorkflowAction[];
  outputs: Array<[string, Getter]>;
}

export interface WorkflowAction {
  name: string;
  type: 'end' | 'goto' | 'retry';
  /** goto, or a retry that runs a step first: the index of that step in the workflow. */
  stepIndex?: number;
  /** retry: seconds to wait, unless the answer's Retry-After says otherwise. */
  retryAfterMs: number;
  /** retry: attempts after the first. */
  retryLimit: number;
  criteria: Condition[];
}

/** How a sculpted tool runs a workflow: its arguments built from the tool's inputs, then the program. */
export interface ToolWorkflow {
  program: WorkflowProgram;
  /** The workflow's inputs from the tool's (`$inputs`): a JSONata expression, like every projection. */
  arguments: CompiledExpression;
  /** Whether the tool is the workflow as written (its inputs are the caller's) or a sculpt wrapping it. */
  wrapped: boolean;
  /** The workflow as written: each workflow input's tool input name, to name problems as the caller knows them. */
  inputNames?: ReadonlyMap<string, string>;
}

export type { ExpressionScope };
