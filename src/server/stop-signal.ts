/**
 * The first SIGTERM or SIGINT, for every long-running command (serve, serve --watch, studio,
 * mcp). Call it before writing the line that says the process serves: a supervisor, script or
 * test may signal as soon as it reads that line, and a process descheduled right after the write
 * would otherwise meet the signal with no listener — its default action kills it undrained.
 */
export function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
}
