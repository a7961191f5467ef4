/** Starts the console's backends as soon as the server boots, not on the first request. */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { getApp } = await import("./server/app");
    await getApp().ready;
  }
}
