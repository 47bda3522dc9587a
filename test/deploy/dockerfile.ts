import { readFileSync } from 'node:fs';

/** One Dockerfile instruction, continuation lines joined, comments dropped. */
export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

export interface Stage {
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

export interface Dockerfile {
  /** ARG defaults declared before the first FROM. */
  globalArgs: Record<string, string>;
  stages: Stage[];
}

/** A small Dockerfile reader: enough for the test to replay the file's own steps. */
export function readDockerfile(path: string): Dockerfile {
  const lines = readFileSync(path, 'utf8').split('\n');
  const instructions: Instruction[] = [];
  let pending = '';
  let start = 0;
  lines.forEach((raw, i) => {
    const line = raw.trimEnd();
    if (pending === '' && (line.trim() === '' || line.trimStart().startsWith('#'))) return;
    if (pending !== '' && line.trimStart().startsWith('#')) return;
    if (pending === '') start = i + 1;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const text = (pending + line).trim();
    pending = '';
    const m = /^(\S+)\s+([\s\S]*)$/.exec(text);
    if (m)
      instructions.push({
        keyword: m[1]!.toUpperCase(),
        args: m[2]!.replace(/\s+/g, ' ').trim(),
        line: start,
      });
  });
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args)!;
      const image = m[1]!.replace(
        /\$\{(\w+)\}|\$(\w+)/g,
        (_s, a: string, b: string) => globalArgs[a ?? b] ?? '',
      );
      stages.push({ image, name: m[2], instructions: [] });
    } else if (stages.length === 0) {
      if (ins.keyword === 'ARG') {
        const [name, value = ''] = ins.args.split('=');
        globalArgs[name!] = value;
      }
    } else {
      stages.at(-1)!.instructions.push(ins);
    }
  }
  return { globalArgs, stages };
}

/** Exec-form arguments (`["a", "b"]`) of CMD, ENTRYPOINT or a HEALTHCHECK's CMD. */
export function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  const parsed = JSON.parse(json) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string')) {
    throw new Error(`not an exec-form array: ${args}`);
  }
  return parsed;
}

/** `ENV A=1 B="two"` → { A: '1', B: 'two' }. */
export function envOf(args: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of args.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S+)/g)) {
    out[m[1]!] = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!;
  }
  return out;
}

export interface CopyStep {
  from: string | undefined;
  sources: string[];
  dest: string;
}

export function copyOf(args: string): CopyStep {
  const words = args.split(' ');
  let from: string | undefined;
  const rest: string[] = [];
  for (const w of words) {
    if (w.startsWith('--from=')) from = w.slice('--from='.length);
    else if (!w.startsWith('--')) rest.push(w);
  }
  return { from, sources: rest.slice(0, -1), dest: rest.at(-1)! };
}

/** A .dockerignore matcher for the pattern forms used here: `name`, `dir`, `**\/name`, `*.ext`, `.env.*`. */
export function dockerignore(path: string): (relative: string) => boolean {
  const patterns = readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const regexes = patterns.map((p) => {
    const body = p
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*\*\//g, '\u0000')
      .replace(/\*/g, '[^/]*')
      .replace(/\u0000/g, '(?:.*/)?');
    return new RegExp(`^${body}(?:/.*)?$`);
  });
  return (relative) => regexes.some((r) => r.test(relative));
}
