import "server-only";
import type { Redis } from "ioredis";
import type { SseSink } from "../hub/sse";
import type { LogEntry, SessionLog } from "./session-log";

const encoder = new TextEncoder();
/** The SSE frame of a log entry: the stored JSON as it is (stored once, never re-encoded per subscriber). */
const frameOf = (e: LogEntry) => encoder.encode(`id: ${e.seq}\ndata: ${e.frame}\n\n`);

interface Subscriber {
  sink: SseSink;
  cursor: number;
  /** Live entries that arrive while the subscriber reads its backlog. */
  queue: LogEntry[] | undefined;
}

/**
 * A session's stream as any replica serves it in replica mode (docs/replicas.md): one follower per
 * session per replica on the session's Redis Stream (XREAD BLOCK on a connection of its own), and
 * each browser resumes from its `Last-Event-ID` by reading the stream from that cursor, then joins
 * the live entries with nothing lost and nothing repeated. A cursor the stream no longer holds gets
 * `stream.reset`, as in one process.
 */
export class LogChannel {
  private subs = new Set<Subscriber>();
  private stopFollowing: (() => void) | undefined;
  /** The newest seq this replica has seen in the stream. */
  private last = 0;

  private constructor(private log: SessionLog) {}

  static async open(log: SessionLog, reader: Redis): Promise<LogChannel> {
    const ch = new LogChannel(log);
    ch.last = (await log.bounds())?.last ?? 0;
    ch.stopFollowing = log.follow(reader, ch.last, (batch) => ch.deliver(batch));
    return ch;
  }

  get subscriberCount(): number {
    return this.subs.size;
  }

  private deliver(batch: LogEntry[]) {
    this.last = Math.max(this.last, batch.at(-1)?.seq ?? 0);
    for (const sub of this.subs) {
      if (sub.queue) sub.queue.push(...batch);
      else this.write(sub, batch);
    }
  }

  private write(sub: Subscriber, entries: LogEntry[]): boolean {
    for (const e of entries) {
      if (e.seq <= sub.cursor) continue;
      if (!sub.sink.write(frameOf(e))) {
        this.subs.delete(sub);
        return false;
      }
      sub.cursor = e.seq;
    }
    return true;
  }

  /** Attaches a browser's stream: the entries after `after` (or only new ones), then live. */
  async subscribe(sink: SseSink, after: number | undefined): Promise<() => void> {
    const sub: Subscriber = { sink, cursor: after ?? this.last, queue: [] };
    this.subs.add(sub);
    const detach = () => {
      this.subs.delete(sub);
    };
    if (after !== undefined && !(await this.log.holds(after))) {
      const reset = { type: "stream.reset", reason: "history no longer held; reload the snapshot", seq: this.last };
      sink.write(encoder.encode(`id: ${this.last}\ndata: ${JSON.stringify(reset)}\n\n`));
      sub.cursor = this.last;
    } else {
      for (;;) {
        const batch = await this.log.after(sub.cursor, 1000);
        if (!this.write(sub, batch)) return detach;
        if (batch.length < 1000) break;
      }
    }
    const queued = sub.queue ?? [];
    sub.queue = undefined;
    this.write(sub, queued);
    return detach;
  }

  close(): void {
    this.stopFollowing?.();
    for (const s of this.subs) s.sink.close();
    this.subs.clear();
  }
}
