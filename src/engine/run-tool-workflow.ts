import { BAIL } from '../compile/compile-expression.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import type { StepContext } from './run-step.ts';
import { MAX_WORKFLOW_STEPS, runWorkflow, type TrackStep } from './run-workflow.ts';
import type { ToolInputs } from './validate-arguments.ts';

/**
 * A tool that runs an Arazzo workflow: the workflow's inputs built from the tool's (`arguments`,
 * a JSONata projection like any other), checked against the workflow's JSON Schema, then the
 * workflow run; its outputs are what the tool's `output` projects (`$outputs`).
 *
 * A tool that is the workflow as written hands the caller's inputs on, so inputs that do not fit
 * the schema are the caller's (`input.invalid`, each problem named); a sculpt that wraps the
 * workflow builds them itself, so there they are the sculpt's (`projection.failed`).
 */
export async function runToolWorkflow(
  tool: CompiledTool,
  inputs: ToolInputs,
  ctx: StepContext,
  track: TrackStep,
  onProgress?: (done: number, total: number) => void,
): Promise<Record<string, unknown>> {
  const { program, arguments: argumentsExpression, wrapped, inputNames } = tool.workflow!;
  const bindings = { inputs, steps: {} };
  let args = argumentsExpression.evaluateSync(inputs, bindings);
  if (args === BAIL) {
    try {
      args = await argumentsExpression.evaluate(inputs, bindings, {
        signal: ctx.signal,
        deadlineAt: ctx.deadlineAt,
      });
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'error';
      throw new SculptorError('projection.failed', `The workflow's arguments failed (JSONata ${code}).`, {
        cause: err,
      });
    }
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new SculptorError('projection.failed', "The workflow's arguments must yield an object.");
  }
  const values = args as Record<string, unknown>;
  const problems = program.checkInputs(values);
  if (problems.length > 0) {
    const named = problems.map((p) => ({ ...p, parameter: inputNames?.get(p.parameter) ?? p.parameter }));
    const list = named.map((p) => `${p.parameter} ${p.reason}`).join('; ');
    if (wrapped) {
      throw new SculptorError(
        'projection.failed',
        `The arguments built for workflow '${program.workflowId}' do not fit its inputs (${list}).`,
      );
    }
    throw new SculptorError('input.invalid', `Invalid tool call: ${list}.`, { problems: named });
  }
  let done = 0;
  onProgress?.(0, program.steps.length);
  const outputs = await runWorkflow(program, values, ctx, {
    stepsLeft: MAX_WORKFLOW_STEPS,
    workflows: {},
    track,
    onStepDone: () => onProgress?.(++done, program.steps.length),
  });
  ctx.debug?.workflowOutputs?.(outputs);
  return outputs;
}
