/**
 * Runs once when the server boots: makes sure the console token exists (generating and storing one
 * on first start), prints the login URL — after a loud warning when `next start` listens beyond
 * loopback — and starts the console's backends before the first request.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { announceLogin } = await import("./server/auth/announce");
    announceLogin();
    const { getApp } = await import("./server/app");
    await getApp().ready;
  }
}
