/**
 * The one place the browser turns a session's wire events into reducer batches: events at or below
 * the last applied `seq` are dropped (a replay after a reconnect or a tab handover may repeat some),
 * the rest are queued and handed over once per animation frame (every 50 ms in a hidden tab, where
 * animation frames do not run), with adjacent deltas to one block merged (lib/timeline/coalesce.ts).
 * Used by the session and share stores.
 */
import type { TimelineEvent, WireEvent } from "../model";
import { coalesceDeltas } from "../timeline/coalesce";

export class SeqBatcher {
  private pending: TimelineEvent[] = [];
  private scheduled = false;

  constructor(
    /** The seq of the state the store holds (from its snapshot, then from every event accepted). */
    public seq: number,
    private readonly flush: (batch: TimelineEvent[]) => void,
  ) {}

  /** Starts over from a fresh snapshot: queued events belong to the old state and are dropped. */
  reset(seq: number): void {
    this.seq = seq;
    this.pending = [];
  }

  /** Queues an event; false when it was already applied (or carries no seq). */
  accept(ev: WireEvent): boolean {
    if (typeof ev.seq !== "number" || ev.seq <= this.seq) return false;
    this.seq = ev.seq;
    const { seq: _seq, ...event } = ev;
    this.pending.push(event as TimelineEvent);
    this.schedule();
    return true;
  }

  private schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    const run = () => {
      this.scheduled = false;
      if (!this.pending.length) return;
      const batch = this.pending;
      this.pending = [];
      this.flush(coalesceDeltas(batch));
    };
    if (typeof document !== "undefined" && !document.hidden && typeof requestAnimationFrame === "function")
      requestAnimationFrame(run);
    else setTimeout(run, 50);
  }
}
