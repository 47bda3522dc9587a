import { CODES, type ErrorCode, phaseOf } from '../../errors/sculptor-error.ts';

/**
 * The codes a request can be answered with, by HTTP status: what the document declares for the
 * typed operations. Codes of the load, compile and CLI phases never answer a request (errors/).
 */
export function codesByStatus(): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(CODES) as ErrorCode[]) {
    if (phaseOf(code) !== 'request') continue;
    const status = CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}
