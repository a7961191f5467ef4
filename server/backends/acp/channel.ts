import "server-only";
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";

/** What the channel reports of the messages passing through it (read only: nothing is rewritten). */
export interface ChannelWatch {
  /** A message read from the agent, before the seated SDK connection sees it. */
  incoming(m: AnyMessage): void;
  /** A message an SDK connection wrote to the agent. */
  outgoing(m: AnyMessage): void;
  /** The agent closed its stdout (or the framing failed). */
  ended(): void;
}

/**
 * The agent's stdio as one SDK message stream (the SDK's own NDJSON framing, `ndJsonStream`), with a
 * seat for one SDK connection at a time. ACP's version negotiation needs it: the console offers v2
 * on an SDK v2 connection; an agent that answers v1 is then spoken to by an SDK v1 connection on the
 * same process. The v2 connection closes itself when the answer is not v2 (SDK 2.4.0
 * `ClientContext.failInitialization`); closing a seat never closes the process's pipes.
 */
export class AgentChannel {
  private writer: WritableStreamDefaultWriter<AnyMessage>;
  private seat: ReadableStreamDefaultController<AnyMessage> | undefined;
  /** Read while no connection is seated (between a failed v2 initialize and the v1 connection). */
  private backlog: AnyMessage[] = [];
  private over = false;

  constructor(
    raw: Stream,
    private watch: ChannelWatch,
  ) {
    this.writer = raw.writable.getWriter();
    // the SDK writes frames one by one; a write error (the agent exited) is the connection's to see
    void this.writer.closed.catch(() => undefined);
    void this.pump(raw.readable);
  }

  get ended(): boolean {
    return this.over;
  }

  private async pump(readable: ReadableStream<AnyMessage>) {
    const reader = readable.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.watch.incoming(value);
        if (this.seat) this.seat.enqueue(value);
        else this.backlog.push(value);
      }
    } catch {
      // the framing failed or the pipe broke: the same as the agent closing its stdout
    } finally {
      this.over = true;
      this.vacate();
      this.watch.ended();
    }
  }

  /** A stream for a new SDK connection; a connection seated before loses its seat (its readable ends). */
  open(): Stream {
    this.vacate();
    let ctl!: ReadableStreamDefaultController<AnyMessage>;
    const readable = new ReadableStream<AnyMessage>({
      start: (c) => {
        ctl = c;
      },
      cancel: () => {
        if (this.seat === ctl) this.seat = undefined;
      },
    });
    if (this.over) ctl.close();
    else {
      this.seat = ctl;
      for (const m of this.backlog.splice(0)) ctl.enqueue(m);
    }
    const writable = new WritableStream<AnyMessage>({
      write: (m) => {
        this.watch.outgoing(m);
        return this.writer.write(m);
      },
    });
    return { readable, writable };
  }

  private vacate() {
    const s = this.seat;
    this.seat = undefined;
    try {
      s?.close();
    } catch {
      // already closed or cancelled by its connection
    }
  }

  /** The process is gone: the seat ends and the agent's stdin is closed. */
  close(): void {
    this.vacate();
    this.writer.close().catch(() => undefined);
  }
}
