/** Polls `f` until it returns something truthy (and returns that), or throws after `ms`. For tests. */
export async function until<T>(f: () => T | undefined | false | null, what = "a condition", ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
