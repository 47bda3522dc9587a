import { checkVersions } from '../compile/check-versions.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import type { InputParameter, OutputParameter } from '../compile/tool-signature.ts';

export interface SignatureChange {
  kind: 'added' | 'removed' | 'changed';
  /** What changed: `description`, `tags`, `input 'x'`, `output 'y'`. */
  subject: string;
  /** For inputs and outputs: a one-line summary of the parameter; for fields: the values. */
  before?: string;
  after?: string;
}

export interface SignatureDiff {
  name: string;
  from: { version: number; file: string };
  to: { version: number; file: string };
  changes: SignatureChange[];
  /** Whether `to` only adds optional inputs and outputs to `from` (A2T §5.4). */
  compatible: boolean;
  /** Why it is not, as check-versions reports it. */
  breaks: string[];
}

/**
 * The two versions `sculptor diff` compares (and the Studio's Versions panel): `to` by default the
 * latest, `from` by default the version before `to`. `versions` are the compiled versions of one
 * tool, compiled each on its own (`compileEach`), so a version that breaks A2T §5.4 — and stops
 * the folder from compiling — can still be compared.
 */
export function pickVersions(
  versions: readonly CompiledTool[],
  choice: { from?: number; to?: number } = {},
): { from: CompiledTool; to: CompiledTool } | { problem: string } {
  const sorted = [...versions].sort((a, b) => a.signature.version - b.signature.version);
  const name = sorted[0]?.signature.name ?? 'The tool';
  const numbers = sorted.map((t) => t.signature.version);
  const pick = (n: number) => sorted.find((t) => t.signature.version === n);
  const to = choice.to !== undefined ? pick(choice.to) : sorted.at(-1);
  if (!to) return { problem: `${name} has no version ${String(choice.to)} (it has ${numbers.join(', ')}).` };
  const from =
    choice.from !== undefined
      ? pick(choice.from)
      : sorted.findLast((t) => t.signature.version < to.signature.version);
  if (!from) {
    return {
      problem:
        choice.from !== undefined
          ? `${name} has no version ${choice.from} (it has ${numbers.join(', ')}).`
          : `${name} has only version ${numbers.join(', ')}: nothing to compare version ${to.signature.version} with.`,
    };
  }
  return { from, to };
}

/** The change between two versions of one tool, and whether it keeps A2T §5.4. */
export function diffSignatures(from: CompiledTool, to: CompiledTool): SignatureDiff {
  const a = from.signature;
  const b = to.signature;
  const changes: SignatureChange[] = [];
  if (a.description !== b.description) {
    changes.push({ kind: 'changed', subject: 'description', before: a.description, after: b.description });
  }
  if (a.tags.join(',') !== b.tags.join(',')) {
    changes.push({ kind: 'changed', subject: 'tags', before: a.tags.join(', '), after: b.tags.join(', ') });
  }
  const input = (tool: CompiledTool) => (p: InputParameter) => inputSummary(p, tool);
  const output = (tool: CompiledTool) => (p: OutputParameter) => outputSummary(p, tool);
  changes.push(...diffParameters(a.input_parameters, b.input_parameters, 'input', input(from), input(to)));
  changes.push(
    ...diffParameters(a.output_parameters, b.output_parameters, 'output', output(from), output(to)),
  );
  // Only the later version is checked against the earlier one, whatever order they were given in.
  const [older, newer] = a.version <= b.version ? [from, to] : [to, from];
  const breaks = checkVersions([older, newer]).map((e) => e.message);
  return {
    name: a.name,
    from: { version: a.version, file: from.file },
    to: { version: b.version, file: to.file },
    changes,
    compatible: breaks.length === 0,
    breaks,
  };
}

function diffParameters<P extends InputParameter | OutputParameter>(
  before: P[],
  after: P[],
  what: 'input' | 'output',
  summaryBefore: (p: P) => string,
  summaryAfter: (p: P) => string,
): SignatureChange[] {
  const changes: SignatureChange[] = [];
  const old = new Map(before.map((p) => [p.id, p]));
  const now = new Map(after.map((p) => [p.id, p]));
  for (const [id, p] of old) {
    const q = now.get(id);
    if (!q) changes.push({ kind: 'removed', subject: `${what} '${p.name}'`, before: summaryBefore(p) });
    else {
      const x = summaryBefore(p);
      const y = summaryAfter(q);
      if (x !== y || p.description !== q.description) {
        changes.push({
          kind: 'changed',
          subject: `${what} '${p.name}'`,
          before: p.description !== q.description ? `${x} — ${p.description}` : x,
          after: p.description !== q.description ? `${y} — ${q.description}` : y,
        });
      }
    }
  }
  for (const [id, q] of now) {
    if (!old.has(id)) changes.push({ kind: 'added', subject: `${what} '${q.name}'`, after: summaryAfter(q) });
  }
  return changes;
}

function inputSummary(p: InputParameter, tool: CompiledTool): string {
  const parts: string[] = [p.name === p.id ? p.name : `${p.name} (id ${p.id})`, p.type];
  parts.push(p.required ? 'required' : 'optional');
  if (p.min !== undefined || p.max !== undefined) parts.push(`${p.min ?? '…'}–${p.max ?? '…'}`);
  if (p.maxLength !== undefined) parts.push(`≤ ${p.maxLength} chars`);
  if (p['allowed-values']) parts.push(`{${p['allowed-values'].map((v) => v.name).join(', ')}}`);
  const fallback = tool.defaults[p.name];
  if (fallback !== undefined) parts.push(`default ${JSON.stringify(fallback)}`);
  return parts.join(', ');
}

function outputSummary(p: OutputParameter, tool: CompiledTool): string {
  const parts: string[] = [p.name === p.id ? p.name : `${p.name} (id ${p.id})`, p.type];
  if (tool.optionalOutputs.has(p.name)) parts.push('optional');
  if (p['allowed-values']) parts.push(`{${p['allowed-values'].map((v) => v.name).join(', ')}}`);
  return parts.join(', ');
}

/** The diff for a terminal. */
export function formatDiff(diff: SignatureDiff, show: (file: string) => string = (f) => f): string {
  const lines = [
    `${diff.name}: version ${diff.from.version} → ${diff.to.version}`,
    `  from ${show(diff.from.file)}`,
    `  to   ${show(diff.to.file)}`,
    '',
  ];
  if (diff.changes.length === 0) lines.push('  No change to the signature.');
  for (const c of diff.changes) {
    if (c.kind === 'added') lines.push(`  + ${c.subject}: ${c.after}`);
    else if (c.kind === 'removed') lines.push(`  - ${c.subject}: ${c.before}`);
    else {
      lines.push(`  ~ ${c.subject}`);
      lines.push(`      - ${c.before}`);
      lines.push(`      + ${c.after}`);
    }
  }
  lines.push('');
  if (diff.compatible) {
    lines.push('A2T §5.4: kept — the newer version only adds optional inputs and outputs.');
  } else {
    lines.push('A2T §5.4: BROKEN — agents pinned to the older version would break:');
    for (const b of diff.breaks) lines.push(`  ${b}`);
  }
  return lines.join('\n');
}
