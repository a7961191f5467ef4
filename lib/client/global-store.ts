/**
 * Cross-session state: backends, live session statuses, pending interrupts. Starts from
 * `GET /api/events/hello`, then follows the global channel after its seq on the tab-shared live
 * stream (lib/client/live-link.ts). Drives sidebar badges, the connection indicator, the "needs you"
 * inbox and notifications.
 */
import type { GlobalHello } from "../api";
import type { Backend, GlobalEvent, Interrupt, Session, SessionStatus } from "../model";
import { apiGet } from "./api-client";
import { liveLink } from "./live-link";
import { LiveStore } from "./live-store";
import { frameSeq } from "./live-protocol";
import type { ConnectionState } from "./sse-client";

export interface GlobalView {
  connection: ConnectionState;
  backends: Backend[];
  statuses: Record<string, { status: SessionStatus; detail?: string }>;
  interrupts: (Interrupt & { backendId: string })[];
  /** Sessions created or changed since load, keyed `backendId/sessionId`. */
  sessions: Record<string, Session>;
  removed: Record<string, true>;
}

export const sessionKey = (backendId: string, sessionId: string) => `${backendId}/${sessionId}`;

export class GlobalStore extends LiveStore<GlobalView> {
  /** Called once per newly arrived interrupt (browser notifications). */
  private arrivals = new Set<(it: Interrupt & { backendId: string }) => void>();

  onArrival(fn: (it: Interrupt & { backendId: string }) => void) {
    this.arrivals.add(fn);
    return () => {
      this.arrivals.delete(fn);
    };
  }
  private cursor: number | undefined;
  private running = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super({ connection: "connecting", backends: [], statuses: {}, interrupts: [], sessions: {}, removed: {} });
  }

  start() {
    if (this.running) return;
    this.running = true;
    const link = liveLink();
    this.unwatchState = link.onState(() => this.set({ connection: link.getState() }));
    void this.load();
  }

  stop() {
    this.running = false;
    this.stopLive();
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  /** Reads the whole state, then follows the global channel from it. */
  private async load() {
    this.closeLive();
    try {
      const hello = await apiGet<GlobalHello>("/api/events/hello");
      if (!this.running) return;
      this.cursor = hello.seq;
      this.apply({ type: "hello", backends: hello.backends, interrupts: hello.interrupts });
      const link = liveLink();
      this.live = link.subscribe(
        { type: "global" },
        {
          cursor: () => this.cursor,
          frame: (data, id) => {
            const seq = frameSeq(id);
            if (seq !== undefined) {
              if (this.cursor !== undefined && seq <= this.cursor) return; // already applied
              this.cursor = seq;
            }
            try {
              this.apply(JSON.parse(data) as GlobalEvent);
            } catch {
              // ignore a malformed frame
            }
          },
          reset: () => void this.load(),
          closed: () => void this.load(),
          error: () => this.retry(),
        },
      );
      this.set({ connection: link.getState() });
    } catch {
      this.retry();
    }
  }

  private retry() {
    if (!this.running) return;
    this.set({ connection: "reconnecting" });
    this.retryTimer = setTimeout(() => void this.load(), 2000);
  }

  private apply(e: GlobalEvent) {
    const v = this.view;
    switch (e.type) {
      case "hello":
        this.set({ backends: e.backends, interrupts: e.interrupts });
        break;
      case "backend.updated": {
        const i = v.backends.findIndex((b) => b.id === e.backend.id);
        const backends = i < 0 ? [...v.backends, e.backend] : v.backends.map((b, j) => (j === i ? e.backend : b));
        this.set({ backends });
        break;
      }
      case "backend.removed":
        this.set({ backends: v.backends.filter((b) => b.id !== e.backendId) });
        break;
      case "session.updated": {
        const k = sessionKey(e.session.backendId, e.session.id);
        const { [k]: _gone, ...removed } = v.removed;
        this.set({ sessions: { ...v.sessions, [k]: e.session }, removed });
        break;
      }
      case "session.removed": {
        const k = sessionKey(e.backendId, e.sessionId);
        this.set({
          removed: { ...v.removed, [k]: true },
          interrupts: v.interrupts.filter((i) => !(i.backendId === e.backendId && i.sessionId === e.sessionId)),
        });
        break;
      }
      case "session.status":
        this.set({
          statuses: {
            ...v.statuses,
            [sessionKey(e.backendId, e.sessionId)]: { status: e.status, ...(e.detail ? { detail: e.detail } : {}) },
          },
        });
        break;
      case "interrupt.requested": {
        const fresh = !v.interrupts.some((i) => i.id === e.interrupt.id);
        this.set({
          interrupts: [
            ...v.interrupts.filter((i) => i.id !== e.interrupt.id),
            { ...e.interrupt, backendId: e.backendId },
          ],
        });
        if (fresh) for (const l of this.arrivals) l({ ...e.interrupt, backendId: e.backendId });
        break;
      }
      case "interrupt.resolved":
        this.set({ interrupts: v.interrupts.filter((i) => i.id !== e.interruptId) });
        break;
    }
  }
}
