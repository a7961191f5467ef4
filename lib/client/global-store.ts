/**
 * Cross-session state from `GET /api/events`: backends, live session statuses, pending interrupts.
 * Drives sidebar badges, the connection indicator and (later) the "needs you" inbox.
 */
import type { Backend, GlobalEvent, Interrupt, Session, SessionStatus } from "../model";
import { onUnauthorized } from "./api-client";
import { connectSse, type ConnectionState, type SseClient } from "./sse-client";

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

export class GlobalStore {
  private view: GlobalView = { connection: "connecting", backends: [], statuses: {}, interrupts: [], sessions: {}, removed: {} };
  private listeners = new Set<() => void>();
  /** Called once per newly arrived interrupt (browser notifications). */
  private arrivals = new Set<(it: Interrupt & { backendId: string }) => void>();

  onArrival(fn: (it: Interrupt & { backendId: string }) => void) {
    this.arrivals.add(fn);
    return () => {
      this.arrivals.delete(fn);
    };
  }
  private sse: SseClient | undefined;

  subscribe = (fn: () => void) => {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  };
  getView = () => this.view;

  private set(patch: Partial<GlobalView>) {
    this.view = { ...this.view, ...patch };
    for (const l of this.listeners) l();
  }

  start() {
    this.sse ??= connectSse({
      url: "/api/events",
      onState: (connection) => this.set({ connection }),
      onUnauthorized,
      onEvent: (data) => {
        try {
          this.apply(JSON.parse(data) as GlobalEvent);
        } catch {
          // ignore a malformed frame
        }
      },
    });
  }

  stop() {
    this.sse?.close();
    this.sse = undefined;
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
        this.set({ removed: { ...v.removed, [k]: true }, interrupts: v.interrupts.filter((i) => !(i.backendId === e.backendId && i.sessionId === e.sessionId)) });
        break;
      }
      case "session.status":
        this.set({ statuses: { ...v.statuses, [sessionKey(e.backendId, e.sessionId)]: { status: e.status, ...(e.detail ? { detail: e.detail } : {}) } } });
        break;
      case "interrupt.requested": {
        const fresh = !v.interrupts.some((i) => i.id === e.interrupt.id);
        this.set({ interrupts: [...v.interrupts.filter((i) => i.id !== e.interrupt.id), { ...e.interrupt, backendId: e.backendId }] });
        if (fresh) for (const l of this.arrivals) l({ ...e.interrupt, backendId: e.backendId });
        break;
      }
      case "interrupt.resolved":
        this.set({ interrupts: v.interrupts.filter((i) => i.id !== e.interruptId) });
        break;
    }
  }
}
