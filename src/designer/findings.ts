import path from 'node:path';
import type { SculptorError } from '../errors/sculptor-error.ts';

/**
 * What `sculptor check` reports: a SculptorError (stable code, file:line:col)
 * with a severity. Load and compile errors are always errors; lint findings
 * are warnings, except the lock checks, which are errors.
 */
export interface Finding {
  severity: 'error' | 'warning';
  error: SculptorError;
}

export function warning(error: SculptorError): Finding {
  return { severity: 'warning', error };
}

export function error(error: SculptorError): Finding {
  return { severity: 'error', error };
}

/**
 * `file:line:col code message`, the file relative to `cwd` when it is below
 * it (shorter, and still a link in editors' terminals). Warnings read
 * `file:line:col code warning: message`.
 */
export function formatFinding(finding: Finding, cwd = process.cwd()): string {
  const e = finding.error;
  const file = e.at ? displayPath(e.at.file, cwd) : undefined;
  const where = e.at ? `${file}:${e.at.line}:${e.at.column} ` : '';
  const severity = finding.severity === 'warning' ? 'warning: ' : '';
  return `${where}${e.code} ${severity}${e.message}`;
}

export function displayPath(file: string, cwd = process.cwd()): string {
  const relative = path.relative(cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** Findings in file, line, column order (stable output for people and tests). */
export function sortFindings(findings: Finding[]): Finding[] {
  const key = (f: Finding) => f.error.at ?? { file: '', line: 0, column: 0 };
  return [...findings].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return x.file.localeCompare(y.file) || x.line - y.line || x.column - y.column;
  });
}
