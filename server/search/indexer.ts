import "server-only";
import { toolSubject } from "@/lib/timeline/tool-subject";
import type { Message, Session, TimelineEvent } from "@/lib/model";
import type { SessionState } from "@/lib/timeline/reducer";
import type { BackendAdapter } from "../backends/types";
import { describeError } from "../errors";
import type { HubObserver } from "../hub/hub";
import { log } from "../log";
import type { SearchDocument, LiveStore } from "../store/store";

/** The meta key of the "index tool outputs" setting ("0" leaves them out). */
export const TOOL_OUTPUTS_KEY = "search.toolOutputs";
/** Changes to an open session are indexed this long after the last one (a streaming reply is indexed once it pauses). */
const LIVE_DEBOUNCE_MS = 1_000;
/** Tool output is cut to this many characters per call in the index. */
const MAX_TOOL_OUTPUT = 20_000;
const LIST_PAGE = 50;
const MESSAGE_PAGE = 100;
/** At most this many pages of one session's history are read per pass (the newest first). */
const MAX_MESSAGE_PAGES = 20;

/** A message's searchable text: its prose, reasoning, and each tool call's name, subject and (optionally) output. */
export function searchText(m: Message, opts: { toolOutputs: boolean }): string {
  const parts: string[] = [];
  for (const b of m.blocks) {
    if (b.kind === "text" || b.kind === "reasoning") parts.push(b.text);
    else if (b.kind === "tool") {
      parts.push([b.title, b.tool, toolSubject(b)].filter(Boolean).join(" "));
      if (opts.toolOutputs && b.output) parts.push(b.output.slice(0, MAX_TOOL_OUTPUT));
      if (b.error) parts.push(b.error);
    } else if (b.kind === "file") parts.push(b.name);
  }
  return parts.filter((p) => p.trim() !== "").join("\n");
}

export interface BackfillStatus {
  backendId: string;
  /** "indexing" while a pass walks this backend, "idle" between passes, "error" when its last pass failed. */
  state: "indexing" | "idle" | "error";
  sessions: number;
  messages: number;
  /** Sessions looked at in the current (or last) pass, and how many of them needed indexing. */
  seen: number;
  indexed: number;
  lastPassAt?: number;
  error?: string;
}

export interface SearchIndexerOptions {
  store: LiveStore;
  backends: () => BackendAdapter[];
  /** Time between two backfill passes. */
  intervalMs?: number;
  /** Pause between two sessions indexed by a pass (the backfill's throttle). */
  pauseMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Keeps the search index (docs/search.md): live from the events the hub relays for open sessions,
 * and by a throttled background pass over every backend's session list and history, which indexes
 * sessions the console never opened and those changed elsewhere. A pass skips a session indexed at
 * its current `updatedAt`, so a console restart resumes where the index stands.
 */
export class SearchIndexer implements HubObserver {
  /** Open sessions changed since the last flush: their latest state and the messages the events touched. */
  private dirty = new Map<
    string,
    { backendId: string; sessionId: string; state: () => SessionState; messages: Set<string> | "all" }
  >();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private loop: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private progress = new Map<string, Omit<BackfillStatus, "sessions" | "messages">>();
  private readonly intervalMs: number;
  private readonly pauseMs: number;

  constructor(private opts: SearchIndexerOptions) {
    this.intervalMs = opts.intervalMs ?? 15_000;
    this.pauseMs = opts.pauseMs ?? 100;
  }

  get toolOutputs(): boolean {
    return this.opts.store.getMeta(TOOL_OUTPUTS_KEY) !== "0";
  }

  /** Changes whether tool outputs are indexed; every session is indexed again by the next pass. */
  setToolOutputs(on: boolean): void {
    if (on === this.toolOutputs) return;
    this.opts.store.setMeta(TOOL_OUTPUTS_KEY, on ? "1" : "0");
    for (const b of this.opts.backends()) this.opts.store.deleteSearchSession(b.id);
    this.kick();
  }

  /* ------------------------------------------------------------------ live (HubObserver) */

  event(backendId: string, sessionId: string, e: TimelineEvent, state: (() => SessionState) | undefined): void {
    if (!state || this.stopped) return;
    const touched =
      e.type === "message.updated"
        ? e.message.id
        : e.type === "message.removed" ||
            e.type === "block.updated" ||
            e.type === "block.delta" ||
            e.type === "block.removed"
          ? e.messageId
          : e.type === "stream.reset"
            ? "all"
            : undefined;
    if (touched === undefined && e.type !== "session.updated") return;
    const k = `${backendId}\u0000${sessionId}`;
    const entry = this.dirty.get(k) ?? { backendId, sessionId, state, messages: new Set<string>() };
    entry.state = state;
    if (touched === "all") entry.messages = "all";
    else if (touched !== undefined && entry.messages !== "all") entry.messages.add(touched);
    this.dirty.set(k, entry);
    this.timer ??= setTimeout(() => void this.flush(), LIVE_DEBOUNCE_MS);
    this.timer.unref?.();
  }

  sessionRemoved(backendId: string, sessionId: string): void {
    this.dirty.delete(`${backendId}\u0000${sessionId}`);
    this.opts.store.deleteSearchSession(backendId, sessionId);
  }

  backendRemoved(backendId: string): void {
    this.opts.store.deleteSearchSession(backendId);
    this.progress.delete(backendId);
  }

  /** Indexes the open sessions changed since the last flush, from the hub's state. */
  async flush(): Promise<void> {
    this.timer = undefined;
    const batch = [...this.dirty.values()];
    this.dirty.clear();
    for (const { backendId, sessionId, state: read, messages } of batch) {
      const state = read();
      if (!state.session) continue;
      try {
        // Only the messages the events touched (a streaming reply re-indexes itself, not the session);
        // one no longer in the state was removed, and its entry goes with it.
        if (messages === "all") this.indexMessages(backendId, sessionId, state.messages);
        else if (messages.size) {
          const byId = new Map(state.messages.map((m) => [m.id, m]));
          const docs = [...messages].map((id): SearchDocument => {
            const m = byId.get(id);
            return m
              ? this.document(backendId, sessionId, m, this.toolOutputs)
              : { backendId, sessionId, messageId: id, role: "user", createdAt: 0, text: "" };
          });
          this.opts.store.putSearchDocuments(docs);
        }
        // The hub holds the newest messages: a session the backfill has not read whole yet is left
        // marked unread (-1), so the next pass reads its older pages too.
        const known = (await this.opts.store.searchSessionUpdatedAt(backendId, sessionId)) !== undefined;
        this.opts.store.putSearchSession(
          backendId,
          sessionId,
          state.session.title,
          known ? state.session.updatedAt : -1,
        );
      } catch (err) {
        log.warn("search: could not index a session", { backendId, sessionId, error: describeError(err) });
      }
    }
  }

  private document(backendId: string, sessionId: string, m: Message, toolOutputs: boolean): SearchDocument {
    return {
      backendId,
      sessionId,
      messageId: m.id,
      role: m.role,
      createdAt: m.createdAt,
      text: searchText(m, { toolOutputs }),
    };
  }

  private indexMessages(backendId: string, sessionId: string, messages: Message[]) {
    const toolOutputs = this.toolOutputs;
    this.opts.store.putSearchDocuments(messages.map((m) => this.document(backendId, sessionId, m, toolOutputs)));
  }

  /* ------------------------------------------------------------------ backfill */

  /** Starts the background passes (the first one at once). */
  start(): void {
    this.stopped = false;
    this.kick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.loop) clearTimeout(this.loop);
    this.timer = this.loop = undefined;
  }

  /** Runs a pass now (or right after the running one). */
  kick(): void {
    if (this.stopped) return;
    if (this.loop) clearTimeout(this.loop);
    this.loop = undefined;
    void this.pass();
  }

  /** One pass over every backend; resolves when it is done. */
  pass(): Promise<void> {
    // `finally` runs after the assignment even when the pass has nothing to await (no backend ready).
    this.running ??= this.runPass().finally(() => {
      this.running = undefined;
      if (!this.stopped) {
        this.loop = setTimeout(() => void this.pass(), this.intervalMs);
        this.loop.unref?.();
      }
    });
    return this.running;
  }

  private async runPass(): Promise<void> {
    for (const b of this.opts.backends()) {
      if (this.stopped) return;
      if (b.info().status !== "ready") continue;
      await this.passBackend(b);
    }
  }

  private async passBackend(b: BackendAdapter) {
    const p = { backendId: b.id, state: "indexing" as BackfillStatus["state"], seen: 0, indexed: 0 };
    this.progress.set(b.id, { ...this.progress.get(b.id), ...p });
    const seen = new Set<string>();
    let complete = false;
    try {
      if (!b.passiveHistory) {
        await this.passTranscripts(b, p);
        complete = true;
        this.progress.set(b.id, { ...p, state: "idle", lastPassAt: Date.now() });
        return;
      }
      let cursor: string | undefined;
      do {
        const page = await b.listSessions({ limit: LIST_PAGE, ...(cursor ? { cursor } : {}) });
        for (const s of page.items) {
          if (this.stopped) return;
          seen.add(s.id);
          p.seen++;
          if ((await this.opts.store.searchSessionUpdatedAt(b.id, s.id)) === s.updatedAt) continue;
          await this.backfillSession(b, s);
          p.indexed++;
          this.progress.set(b.id, { ...this.progress.get(b.id), ...p });
          await sleep(this.pauseMs);
        }
        cursor = page.nextCursor;
      } while (cursor);
      complete = true;
      // Sessions the backend no longer lists were deleted elsewhere.
      for (const id of await this.opts.store.searchSessionIds(b.id))
        if (!seen.has(id)) this.opts.store.deleteSearchSession(b.id, id);
      this.progress.set(b.id, { ...p, state: "idle", lastPassAt: Date.now() });
    } catch (err) {
      const error = describeError(err);
      log.warn("search: a backfill pass failed", { backendId: b.id, error });
      this.progress.set(b.id, { ...p, state: "error", error, lastPassAt: Date.now() });
    } finally {
      if (!complete && this.progress.get(b.id)?.state === "indexing") this.progress.set(b.id, { ...p, state: "idle" });
    }
  }

  /**
   * A backend whose history lives in an agent (ACP, Copilot, Opal, zot, A2A): loading a session there
   * asks the agent to load or replay it, so the pass reads only the transcripts the console keeps.
   * Sessions it has no transcript of are indexed once opened (live). Nothing is dropped here: a
   * missing transcript does not mean a deleted session.
   */
  private async passTranscripts(b: BackendAdapter, p: { seen: number; indexed: number }) {
    for (const t of this.opts.store.listTranscripts(b.id, 10_000)) {
      if (this.stopped) return;
      p.seen++;
      if ((await this.opts.store.searchSessionUpdatedAt(b.id, t.sessionId)) === t.updatedAt) continue;
      const full = this.opts.store.getTranscript(b.id, t.sessionId);
      if (full?.messages) this.indexMessages(b.id, t.sessionId, full.messages);
      this.opts.store.putSearchSession(b.id, t.sessionId, t.session.title, t.updatedAt);
      p.indexed++;
      this.progress.set(b.id, { ...this.progress.get(b.id), backendId: b.id, state: "indexing", ...p });
      await sleep(this.pauseMs);
    }
  }

  private async backfillSession(b: BackendAdapter, s: Session) {
    const loaded = await b.loadSession(s.id);
    this.indexMessages(b.id, s.id, loaded.messages);
    let cursor = loaded.olderCursor;
    for (let pages = 0; cursor && b.loadMessages && pages < MAX_MESSAGE_PAGES; pages++) {
      const page = await b.loadMessages(s.id, { before: cursor, limit: MESSAGE_PAGE });
      this.indexMessages(b.id, s.id, page.items);
      cursor = page.nextCursor;
    }
    this.opts.store.putSearchSession(b.id, s.id, loaded.session.title || s.title, s.updatedAt);
  }

  async status(): Promise<BackfillStatus[]> {
    const counts = new Map((await this.opts.store.searchCounts()).map((c) => [c.backendId, c]));
    return this.opts.backends().map((b) => ({
      backendId: b.id,
      state: "idle",
      seen: 0,
      indexed: 0,
      ...this.progress.get(b.id),
      sessions: counts.get(b.id)?.sessions ?? 0,
      messages: counts.get(b.id)?.messages ?? 0,
    }));
  }
}
