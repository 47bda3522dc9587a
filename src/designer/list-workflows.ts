import type { Step, Workflow } from '../arazzo/arazzo-document.ts';
import { type ArazzoSource, loadArazzo } from '../arazzo/load-arazzo.ts';
import { resolveInputsSchema } from '../compile/compile-workflow.ts';
import { SculptLoadError } from '../errors/sculptor-error.ts';

/** One workflow of an Arazzo description, as `sculptor operations --arazzo` lists it. */
export interface WorkflowSummary {
  workflowId: string;
  summary: string;
  /** Input names; those the workflow requires end in `*`. */
  inputs: string[];
  outputs: string[];
  /** What each step calls: an operationId, an operationPath's `METHOD /path`, or `workflow <id>`. */
  steps: string[];
}

/** Reads an Arazzo description or throws every problem with its `file:line:col`. */
export async function readArazzo(file: string): Promise<ArazzoSource> {
  const { arazzo, errors } = await loadArazzo(file);
  if (!arazzo) throw new SculptLoadError(errors);
  return arazzo;
}

export function stepTarget(step: Step): string {
  if (step.workflowId !== undefined) return `workflow ${step.workflowId}`;
  if (step.operationId !== undefined) return step.operationId.replace(/^\$sourceDescriptions\.[^.]+\./, '');
  const pointer = /#\/paths\/([^/]+)\/([a-z]+)$/.exec(step.operationPath ?? '');
  if (!pointer) return step.operationPath ?? '?';
  return `${pointer[2]!.toUpperCase()} ${pointer[1]!.replace(/~1/g, '/').replace(/~0/g, '~')}`;
}

export function summarizeWorkflow(arazzo: ArazzoSource, workflow: Workflow): WorkflowSummary {
  const schema = resolveInputsSchema(workflow.inputs, arazzo.doc.components);
  const properties = typeof schema === 'string' ? {} : ((schema.properties ?? {}) as object);
  const required = new Set(
    typeof schema !== 'string' && Array.isArray(schema.required) ? (schema.required as string[]) : [],
  );
  return {
    workflowId: workflow.workflowId,
    summary: (workflow.summary ?? workflow.description ?? '').replace(/\s+/g, ' ').trim(),
    inputs: Object.keys(properties).map((n) => (required.has(n) ? `${n}*` : n)),
    outputs: Object.keys(workflow.outputs ?? {}),
    steps: workflow.steps.map(stepTarget),
  };
}

/** The workflows whose id, summary or steps hold every word of `filter`, in the description's order. */
export async function listWorkflows(
  file: string,
  filter?: string,
): Promise<{ total: number; workflows: WorkflowSummary[] }> {
  const arazzo = await readArazzo(file);
  const all = arazzo.doc.workflows.map((w) => summarizeWorkflow(arazzo, w));
  const words = (filter ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const workflows = all.filter((w) => {
    const text = [w.workflowId, w.summary, ...w.steps].join(' ').toLowerCase();
    return words.every((word) => text.includes(word));
  });
  return { total: all.length, workflows };
}

export function formatWorkflows(workflows: WorkflowSummary[]): string[] {
  const lines: string[] = [];
  for (const w of workflows) {
    lines.push(
      `${w.workflowId}${w.summary ? `  ${w.summary.length > 100 ? `${w.summary.slice(0, 99)}…` : w.summary}` : ''}`,
    );
    lines.push(`    inputs: ${w.inputs.join(', ') || 'none'}   (* required)`);
    lines.push(`    steps: ${w.steps.join(' → ')}`);
    lines.push(`    outputs: ${w.outputs.join(', ') || 'none'}`);
  }
  return lines;
}
