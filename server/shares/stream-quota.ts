import "server-only";

/** How many share streams are open on the other consoles: of `client`, or all of them. */
export type OtherStreams = (client?: string) => number;

/**
 * How many public share streams may be open at once (docs/security.md, "Share links"): at most
 * `perClient` from one client address, and `total` over all of them, so one anonymous client
 * holding idle connections cannot turn every other share viewer away. Counts both kinds of share
 * stream (a share page's live stream, a share's own SSE).
 */
export class StreamQuota {
  private byClient = new Map<string, number>();
  private open = 0;

  constructor(
    readonly perClient: number,
    readonly total: number,
    /** The streams open on the other consoles (replica mode), of a client or all; none for one console. */
    private readonly elsewhere: OtherStreams = () => 0,
  ) {}

  /** Takes a slot for `client`: the release (call it once, when the stream ends), or why not. */
  acquire(client: string): { ok: true; release: () => void } | { ok: false; scope: "client" | "total" } {
    if (this.open + this.elsewhere() >= this.total) return { ok: false, scope: "total" };
    const mine = this.byClient.get(client) ?? 0;
    if (mine + this.elsewhere(client) >= this.perClient) return { ok: false, scope: "client" };
    this.byClient.set(client, mine + 1);
    this.open++;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.open--;
        const n = (this.byClient.get(client) ?? 1) - 1;
        if (n <= 0) this.byClient.delete(client);
        else this.byClient.set(client, n);
      },
    };
  }

  /** This process's open streams per client address, and `*`: all of them (for the other replicas). */
  counts(): Record<string, number> {
    return { ...Object.fromEntries(this.byClient), ...(this.open ? { "*": this.open } : {}) };
  }

  /** Streams open now, of one client or all. */
  count(client?: string): number {
    return client === undefined ? this.open : (this.byClient.get(client) ?? 0);
  }
}

/** Public share streams open at once over all clients. */
export const SHARE_STREAMS_TOTAL = 1000;

function intEnv(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

/**
 * The quota of public share streams, one per console (built by server/app.ts):
 * `SWITCHBOARD_SHARE_STREAMS_PER_CLIENT` per address (20), 1,000 in all.
 */
export function shareStreamQuota(elsewhere?: OtherStreams): StreamQuota {
  return new StreamQuota(intEnv("SWITCHBOARD_SHARE_STREAMS_PER_CLIENT", 20), SHARE_STREAMS_TOTAL, elsewhere);
}
