/** Polls `check` every 10 ms until it returns a value, for at most `timeoutMs`; throws naming `what` past it. */
export async function until<T>(what: string, check: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
