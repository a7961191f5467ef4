import "server-only";
import type { Message, SessionStatus } from "@/lib/model";
import { isBusy } from "@/lib/timeline/selectors";
import { describeError } from "../../errors";
import { log } from "../../log";
import type { EventSink, LoadedSession } from "../types";
import { keepShownText } from "./cut-replies";
import { toStatus } from "./sessions";

/** A reconcile that fails is tried this many times on the same stream (about half a minute). */
const RECONCILE_TRIES = 8;
const MAX_BACKOFF_MS = 5_000;
/** How a reply that OpenCode left unfinished (no completion time, no error, its session idle) reads. */
export const CUT_OFF_ERROR = { name: "TurnInterrupted", message: "OpenCode stopped during this reply" } as const;
/** A reply the user stopped, as OpenCode marks one it ends itself. */
const STOPPED = { name: "MessageAbortedError", message: "Stopped", aborted: true } as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ReconcileHost {
  backendId: string;
  sink: EventSink;
  /** Live status of every session the stream told of (kept current by a reconcile). */
  statuses: Map<string, { status: SessionStatus; detail?: string }>;
  stopped(): boolean;
  loadSession(sessionId: string): Promise<LoadedSession>;
  /** Every session's live status, in the contract spoken (idle ones may be left out). */
  liveStatuses(): Promise<unknown>;
  /** Re-reads the pending permission and question lists. */
  refreshPending(): Promise<void>;
  /**
   * Ends the requests still pending for a session that no longer runs (after Stop): declined at the
   * server, which keeps them listed on V1 (1.18.33), and resolved in the console whatever it answers.
   */
  dropStaleRequests(sessionId: string): Promise<void>;
}

/**
 * Reconciliation after every (re)connect of OpenCode's event stream, which has no replay
 * (docs/architecture.md): the live statuses, the pending lists and every open session are read
 * back and the hub publishes the difference; a reply the server's death cut off is kept and marked.
 */
export class Reconciler {
  constructor(private host: ReconcileHost) {}

  /**
   * Sessions that were running when the event stream was lost. They stay here until a reconcile has
   * read them back from the server, however many reconnects that takes: whether the hub still shows
   * them busy by then (another reconnect may have published their idle status already) must not
   * decide whether a cut reply is reported.
   */
  private cutOff = new Set<string>();

  /** Counts event-stream connections: a reconcile retried for one stops when another replaces it. */
  private streamGeneration = 0;

  /** Whether `sessionId` was running when the stream was lost and has not been read back since. */
  isCutOff(sessionId: string): boolean {
    return this.cutOff.has(sessionId);
  }

  /** Notes the sessions that are running as the stream is lost. */
  noteCutOff() {
    for (const [sid, st] of this.host.statuses) if (isBusy(st.status)) this.cutOff.add(sid);
    for (const sid of this.host.sink.openSessions(this.host.backendId))
      if (isBusy(this.host.sink.sessionState?.(this.host.backendId, sid)?.session?.status)) this.cutOff.add(sid);
  }

  /** A new stream is open: reconcile (again, while it lasts, if that fails). */
  reconnected(): void {
    void this.reconcileUntilDone(++this.streamGeneration);
  }

  /**
   * Reconciles after a (re)connect, and tries again while that stream lasts if a request failed (a
   * server still warming up, a request lost on the way): a failed reconcile would otherwise leave a
   * cut reply unreported until the next reconnect, which may never come.
   */
  private async reconcileUntilDone(generation: number) {
    for (
      let attempt = 0;
      attempt < RECONCILE_TRIES && !this.host.stopped() && generation === this.streamGeneration;
      attempt++
    ) {
      log.debug("reconciling opencode sessions", { backend: this.host.backendId, attempt, cutOff: [...this.cutOff] });
      try {
        if (await this.reconcileAll()) return;
      } catch (err) {
        log.warn("reconcile failed", { backend: this.host.backendId, error: describeError(err) });
      }
      await sleep(Math.min(MAX_BACKOFF_MS, 500 * 2 ** attempt));
    }
  }

  /** Reloads the open sessions and the live statuses; false if a session could not be reloaded. */
  private async reconcileAll(): Promise<boolean> {
    // Sessions the console showed running: if OpenCode now has them idle with an unfinished reply,
    // the turn died with the server (killed, crashed) and the user is told so.
    this.noteCutOff();
    const wasBusy = new Set(this.cutOff);
    const [statusRes] = await Promise.all([this.host.liveStatuses(), this.host.refreshPending()]);
    const live = (statusRes ?? {}) as Record<string, unknown>;
    log.debug("read opencode's live statuses", { backend: this.host.backendId, busy: Object.keys(live) });
    const seen = new Set<string>();
    for (const [sid, raw] of Object.entries(live)) {
      seen.add(sid);
      this.applyStatus(sid, toStatus(raw));
    }
    for (const [sid, st] of this.host.statuses)
      if (!seen.has(sid) && st.status !== "idle") this.applyStatus(sid, { status: "idle" });
    // A cut-off session nobody has open is settled when it is opened (loadSession marks its reply).
    const open = this.host.sink.openSessions(this.host.backendId);
    for (const sid of this.cutOff)
      if (!open.includes(sid) && !isBusy(this.host.statuses.get(sid)?.status)) this.cutOff.delete(sid);
    let whole = true;
    for (const sid of open) {
      try {
        let fresh = await this.host.loadSession(sid);
        const ended = wasBusy.has(sid) && !isBusy(fresh.session.status);
        if (ended) fresh = this.keepCutReply(sid, fresh);
        fresh = this.keepShownCutText(sid, fresh);
        this.host.sink.reconcile(this.host.backendId, sid, fresh);
        const last = fresh.messages.at(-1);
        if (ended && last?.role === "assistant" && last.error?.name === CUT_OFF_ERROR.name) {
          this.host.sink.publish(this.host.backendId, sid, {
            type: "error",
            code: CUT_OFF_ERROR.name,
            message: `${CUT_OFF_ERROR.message}. Send a prompt to continue.`,
          });
        }
        if (!isBusy(fresh.session.status)) this.cutOff.delete(sid);
      } catch (err) {
        log.warn("could not reconcile session", { sessionId: sid, error: describeError(err) });
        whole = false;
      }
    }
    return whole;
  }

  /**
   * After Stop: the end of the turn must not hang on one frame. OpenCode 1.18's `/api` ends a tool
   * it stopped with `tool.failed` and `step.ended {finish: "tool-calls"}` and sends nothing after;
   * both contracts drop a pending permission or question without a `replied` frame (newer servers
   * send `step.failed "Step interrupted"`, which ends the turn on its own). So once the server no
   * longer lists the session as running (asked a bounded number of times), the pending lists are
   * read again (what the server dropped is resolved), and a session the console still shows running,
   * or with a reply left open, is read back: idle, its open reply marked stopped, its tools settled.
   */
  async settleStopped(sessionId: string, tries = 20, everyMs = 250): Promise<void> {
    try {
      for (let i = 0; ; i++) {
        if (this.host.stopped()) return;
        const live = ((await this.host.liveStatuses()) ?? {}) as Record<string, unknown>;
        if (!(sessionId in live) || !isBusy(toStatus(live[sessionId]).status)) break;
        if (i >= tries) return; // still running: its own frames will end it
        await sleep(everyMs);
      }
      await this.host.refreshPending();
      await this.host.dropStaleRequests(sessionId);
      const state = this.host.sink.sessionState?.(this.host.backendId, sessionId);
      if (!state) return;
      const open = state.messages.some((m) => m.role === "assistant" && m.completedAt === undefined && !m.error);
      if (!isBusy(state.session?.status) && !open) return;
      this.applyStatus(sessionId, { status: "idle" });
      const fresh = await this.host.loadSession(sessionId);
      const messages = fresh.messages.map((m) =>
        m.role === "assistant" && m.completedAt === undefined && !m.error ? { ...m, error: { ...STOPPED } } : m,
      );
      this.host.sink.reconcile(this.host.backendId, sessionId, { ...fresh, messages });
    } catch (err) {
      log.warn("could not settle a stopped session", { sessionId, error: describeError(err) });
    }
  }

  private applyStatus(sessionId: string, st: { status: SessionStatus; detail?: string }) {
    const prev = this.host.statuses.get(sessionId);
    if (prev && prev.status === st.status && prev.detail === st.detail) return;
    this.host.statuses.set(sessionId, st);
    this.host.sink.publish(this.host.backendId, sessionId, {
      type: "session.status",
      status: st.status,
      ...(st.detail ? { detail: st.detail } : {}),
    });
  }

  /**
   * A session that was running when the stream was lost, read back idle: OpenCode stores a reply's
   * parts as it goes, but a process killed mid-reply can take the unsaved end with it, and on a
   * loaded machine the whole reply. When the history read back no longer holds the unfinished reply
   * the console showed live, that reply is kept, marked as cut (settleIdle marks one it still holds).
   */
  private keepCutReply(sid: string, fresh: LoadedSession): LoadedSession {
    const shown = this.host.sink
      .sessionState?.(this.host.backendId, sid)
      ?.messages.filter((m) => m.role === "assistant")
      .at(-1);
    if (!shown || shown.completedAt !== undefined || shown.error) return fresh;
    // Held by the server (settleIdle has dealt with it), or followed by a later reply: not the cut one.
    if (fresh.messages.some((m) => m.id === shown.id || (m.role === "assistant" && m.createdAt > shown.createdAt)))
      return fresh;
    return { ...fresh, messages: [...fresh.messages, { ...shown, error: { ...CUT_OFF_ERROR } }] };
  }

  /**
   * Cut replies read back from the server keep the text the console showed of them: OpenCode stores
   * a text part's text only when the part ends, so its copy of a cut reply is shorter (often empty).
   * Applied at every reconcile, not only the one that found the cut: a later reconnect must not
   * shorten the reply either.
   */
  private keepShownCutText(sid: string, fresh: LoadedSession): LoadedSession {
    const state = this.host.sink.sessionState?.(this.host.backendId, sid);
    if (!state) return fresh;
    let messages: Message[] | undefined;
    fresh.messages.forEach((m, i) => {
      if (m.role !== "assistant" || m.error?.name !== CUT_OFF_ERROR.name) return;
      const shown = state.messages.find((x) => x.id === m.id);
      const kept = shown ? keepShownText(m, shown) : m;
      if (kept !== m) (messages ??= [...fresh.messages])[i] = kept;
    });
    return messages ? { ...fresh, messages } : fresh;
  }
}
