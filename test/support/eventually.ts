/**
 * Waits for a condition: calls `assertion` every `intervalMs` until it neither throws nor returns false, and
 * returns what it returned. After `timeoutMs` it fails with the last error (or `what`). For waiting until something
 * has happened; to prove that something did not happen, wait for the app's `idle()` and then assert.
 */
export async function eventually<T>(
  assertion: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number; what?: string | (() => string) } = {},
): Promise<Exclude<T, false>> {
  const { timeoutMs = 10_000, intervalMs = 20 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let failure: unknown;
    try {
      const result = await assertion();
      if (result !== false) return result as Exclude<T, false>;
    } catch (error) {
      failure = error;
    }
    if (Date.now() > deadline) {
      if (failure) throw failure;
      const what = typeof options.what === 'function' ? options.what() : (options.what ?? 'the condition');
      throw new Error(`${what} still false after ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
