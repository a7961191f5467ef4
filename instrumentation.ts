/**
 * Runs once when the server boots: moves an old `./.switchboard` to the data directory and makes it
 * private (0700, files 0600), makes sure the console token exists (generating and storing one
 * on first start), prints the login URL — after a loud warning when `next start` listens beyond
 * loopback — starts the console's backends before the first request, and renders the pages once
 * for itself once the server listens.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    // Before the first request: every request carries its socket's peer address, the key of the
    // per-client limits (X-Forwarded-For is the client's to write: server/auth/client-address.ts).
    const { stampPeerAddresses } = await import("./server/auth/client-address");
    stampPeerAddresses();
    // Before anything reads the token or opens the store: an old ./.switchboard moves out of the
    // workspace, and the data folder and its files are made private to their owner (0700/0600).
    const { prepareDataDir } = await import("./server/data-dir");
    prepareDataDir();
    const { announceLogin } = await import("./server/auth/announce");
    announceLogin();
    const { getApp } = await import("./server/app");
    try {
      await getApp().ready;
    } catch (err) {
      // A wrong store or replica setting: say which, in one sentence, and stop (a service manager
      // starts the console again), rather than answer every request with a 500.
      // By name: instrumentation and the routes are separate bundles (see server/errors.ts).
      if (!(err instanceof Error && err.name === "StartError")) throw err;
      console.error(`[switchboard] cannot start: ${err.message}`);
      process.exit(1);
    }
    // The live streams and the event streams are served before Next's request pipeline
    // (server/direct-streams.ts): what the proxy admits and the route would serve, at a fraction of
    // the memory per subscriber. SWITCHBOARD_DIRECT_STREAMS=0 leaves them to Next's routes.
    if (process.env.SWITCHBOARD_DIRECT_STREAMS !== "0") {
      const { installDirectStreams } = await import("./server/direct-streams");
      installDirectStreams();
    }
    // Once the server listens, it renders its pages once for itself: the first person to open one
    // after a start does not wait for its first render (server/warm-up.ts).
    const { warmUp } = await import("./server/warm-up");
    void warmUp();
  }
}
