import "server-only";
import type { CreateSessionBody } from "@/lib/api";
import type { Message, Session, TimelineEvent } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import { resolveSessionDirectory } from "../shared/files";
import type { InterruptBook } from "../shared/interrupts";
import { JsonRpcError } from "../shared/json-rpc";
import { firstPage, pageMessages, pageSessions } from "../shared/session-list";
import type { BackendAdapter, EventSink, LoadedSession } from "../types";
import { registerInterest } from "./commands";
import { type CopilotAdapterOptions, sessionParams } from "./config";
import type { Cli, CopilotConnection } from "./connection";
import { CopilotTimeline, historyMessages } from "./normalize";
import {
  LifecycleNotification,
  MessagesResult,
  MetadataResult,
  mapRpcError,
  parseResult,
  SessionInfo,
  SessionList,
  SessionMetadata,
  SuccessResult,
} from "./rpc";
import type { Reply } from "./reply";
import type { Runtime } from "./runtime";
import { sessionOptions } from "./session-options";

export const DEFAULT_TITLE = "New session";

/** The search, size and cursor of a page of the session list. */
export type SessionListQuery = Parameters<BackendAdapter["listSessions"]>[0];

/**
 * The sessions as the CLI keeps them (under COPILOT_HOME): the list, history (`session.getMessages`)
 * and resume after a console or CLI restart come from it; nothing is kept in the store. Each session
 * the console has seen has a `Runtime`, attached to the live CLI on first use.
 */
export class CopilotSessions {
  private runtimes = new Map<string, Runtime>();
  /** `session.create` calls in flight: the lifecycle notifications they cause are not another client's. */
  private creating = 0;

  constructor(
    private backendId: string,
    private opts: CopilotAdapterOptions,
    private cli: CopilotConnection,
    private sink: EventSink,
    private interrupts: InterruptBook<Reply>,
    private publish: (sessionId: string, events: TimelineEvent[]) => void,
  ) {}

  get(sessionId: string): Runtime | undefined {
    return this.runtimes.get(sessionId);
  }

  all(): IterableIterator<Runtime> {
    return this.runtimes.values();
  }

  /** A new process knows no session yet: each is resumed on first use. */
  detachAll(): void {
    for (const rt of this.runtimes.values()) rt.gen = undefined;
  }

  private runtime(session: Session, info?: SessionInfo): Runtime {
    let rt = this.runtimes.get(session.id);
    if (!rt) {
      rt = { id: session.id, tl: new CopilotTimeline(session), settings: { mode: "interactive" } };
      this.runtimes.set(session.id, rt);
    }
    if (info) {
      const model = info.modelState?.modelId;
      if (model) rt.settings.model = model;
      if (info.modelState?.reasoningEffort) rt.settings.reasoningEffort = info.modelState.reasoningEffort;
      if (info.mode) rt.settings.mode = info.mode;
      rt.tl.session = {
        ...rt.tl.session,
        ...(model ? { model: { id: model } } : {}),
        settings: { options: sessionOptions(rt, this.opts.model) },
      };
    }
    return rt;
  }

  sessionOf(rt: Runtime): Session {
    const s = rt.tl.session;
    return {
      ...s,
      status: rt.tl.busy ? "busy" : "idle",
      ...(rt.localTitle ? { title: rt.localTitle } : {}),
      ...(rt.revert ? { revert: { messageId: rt.revert.messageId, deferred: true } } : {}),
    };
  }

  private fromMetadata(m: SessionMetadata): Session {
    const created = Date.parse(m.startTime ?? "");
    const updated = Date.parse(m.modifiedTime ?? "");
    const title = (m.name ?? m.summary ?? "").trim() || DEFAULT_TITLE;
    return {
      id: m.sessionId,
      backendId: this.backendId,
      title,
      ...(m.context?.cwd ? { directory: m.context.cwd } : {}),
      createdAt: Number.isFinite(created) ? created : 0,
      updatedAt: Number.isFinite(updated) ? updated : Number.isFinite(created) ? created : 0,
      status: "idle",
    };
  }

  async list(q: SessionListQuery): Promise<{ items: Session[]; nextCursor?: string }> {
    const res = parseResult(SessionList, await this.cli.call("list sessions", "session.list", {}), "session.list");
    const all: Session[] = [];
    const listed = new Set<string>();
    for (const raw of res.sessions) {
      const m = SessionMetadata.safeParse(raw);
      if (!m.success) continue;
      listed.add(m.data.sessionId);
      const known = this.runtimes.get(m.data.sessionId);
      const fresh = this.fromMetadata(m.data);
      all.push(
        known ? { ...this.sessionOf(known), updatedAt: Math.max(fresh.updatedAt, known.tl.session.updatedAt) } : fresh,
      );
    }
    // The CLI lists a session once it has a message: new, empty ones are known here only.
    for (const rt of this.runtimes.values()) if (!listed.has(rt.id)) all.push(this.sessionOf(rt));
    return pageSessions(all, q);
  }

  /** A new session in the live CLI (its model and title are set by the caller). */
  async create(input: CreateSessionBody): Promise<Runtime> {
    const cwd = await resolveSessionDirectory(input.directory, this.cli.cwd, this.opts);
    const c = await this.cli.peer();
    let info: SessionInfo;
    this.creating++;
    try {
      info = parseResult(
        SessionInfo,
        await c.conn.request("session.create", sessionParams(this.opts, cwd)),
        "session.create",
      );
    } catch (err) {
      throw mapRpcError(err, "create a session", this.opts.label);
    } finally {
      this.creating--;
    }
    const now = Date.now();
    const session: Session = {
      id: info.sessionId,
      backendId: this.backendId,
      title: input.title?.trim() || DEFAULT_TITLE,
      directory: cwd,
      createdAt: now,
      updatedAt: now,
      status: "idle",
    };
    const rt = this.runtime(session, info);
    rt.gen = c.gen;
    await registerInterest(c.conn, rt.id, this.backendId);
    return rt;
  }

  /** The runtime of a session, from the CLI's list when this console has not seen it yet (404 when unknown). */
  async known(sessionId: string): Promise<Runtime> {
    const rt = this.runtimes.get(sessionId);
    if (rt) return rt;
    let meta: SessionMetadata | undefined;
    try {
      const res = parseResult(
        MetadataResult,
        await this.cli.call("read the session", "session.getMetadata", { sessionId }),
        "session.getMetadata",
      );
      const m = SessionMetadata.safeParse(res.session);
      meta = m.success ? m.data : undefined;
    } catch (err) {
      if ((err as ApiError).code === "backend_down") throw err;
      meta = undefined;
    }
    if (!meta) throw ApiError.notFound(`Unknown session: ${sessionId}`);
    return this.runtime(this.fromMetadata(meta));
  }

  /** Makes sure the live CLI has the session loaded (`session.resume` after a restart of either side). */
  async attach(rt: Runtime): Promise<Cli> {
    for (;;) {
      const c = await this.cli.peer();
      if (rt.gen === c.gen) return c;
      if (!rt.attaching) {
        rt.attaching = (async () => {
          try {
            const res = await c.conn.request("session.resume", {
              sessionId: rt.id,
              ...sessionParams(this.opts, rt.tl.session.directory),
            });
            const info = parseResult(SessionInfo, res, "session.resume");
            this.runtime(rt.tl.session, info);
            rt.gen = c.gen;
            await registerInterest(c.conn, rt.id, this.backendId);
          } catch (err) {
            throw mapRpcError(err, "resume the session", this.opts.label);
          } finally {
            rt.attaching = undefined;
          }
        })();
      }
      await rt.attaching;
    }
  }

  async rename(sessionId: string, title: string): Promise<Session> {
    const rt = await this.known(sessionId);
    await this.setName(rt, title);
    this.publish(rt.id, [{ type: "session.updated", session: this.sessionOf(rt) }]);
    return this.sessionOf(rt);
  }

  async setName(rt: Runtime, title: string) {
    const c = await this.attach(rt);
    try {
      await c.conn.request("session.name.set", { sessionId: rt.id, name: title });
      rt.tl.session = { ...rt.tl.session, title };
      rt.localTitle = undefined;
    } catch (err) {
      // An older CLI without session names: the console keeps the title itself.
      if (!(err instanceof JsonRpcError)) throw mapRpcError(err, "rename the session", this.opts.label);
      rt.localTitle = title;
    }
  }

  async delete(sessionId: string): Promise<void> {
    const rt = await this.known(sessionId);
    if (rt.tl.busy) throw ApiError.conflict("Stop the running turn before deleting the session");
    const res = parseResult(
      SuccessResult,
      await this.cli.call("delete the session", "session.delete", { sessionId }),
      "session.delete",
    );
    if (!res.success)
      throw ApiError.upstream(`${this.opts.label} could not delete the session${res.error ? `: ${res.error}` : ""}`);
    this.forget(sessionId);
  }

  /** A deleted session: its requests are cancelled, and nothing more is said of it. */
  private forget(sessionId: string) {
    this.interrupts.expire((p) => p.sessionId === sessionId, { kind: "cancel" });
    this.cli.shell.forgetCrash(sessionId);
    this.runtimes.delete(sessionId);
  }

  /** The whole history, from the CLI's persisted events. */
  async history(rt: Runtime): Promise<Message[]> {
    const c = await this.attach(rt);
    let res: MessagesResult;
    try {
      res = parseResult(
        MessagesResult,
        await c.conn.request("session.getMessages", { sessionId: rt.id }),
        "session.getMessages",
      );
    } catch (err) {
      throw mapRpcError(err, "read the history", this.opts.label);
    }
    const h = historyMessages(rt.tl.session, res.events);
    // Title, model and directory as the history tells them (a session this console did not create).
    rt.tl.session = { ...h.session, ...(rt.tl.session.settings ? { settings: rt.tl.session.settings } : {}) };
    return h.messages;
  }

  async load(sessionId: string): Promise<LoadedSession> {
    const rt = await this.known(sessionId);
    const messages = await this.history(rt);
    return {
      session: this.sessionOf(rt),
      ...firstPage(messages),
      interrupts: this.interrupts.list(rt.id),
      todos: [],
    };
  }

  async loadMessages(
    sessionId: string,
    q: { before?: string; limit: number },
  ): Promise<{ items: Message[]; nextCursor?: string }> {
    const rt = await this.known(sessionId);
    return pageMessages(await this.history(rt), q);
  }

  /** Reloads a session where it is open: the hub diffs the fresh history against its state. */
  async reload(rt: Runtime): Promise<void> {
    this.sink.reconcile(this.backendId, rt.id, await this.load(rt.id));
  }

  /**
   * `session.lifecycle`: sessions created, changed or deleted by any client of the CLI. Another
   * client's new session appears in the list; a change to a session this process is not attached to
   * (another client drives it) reloads it where it is open; a deleted one is forgotten.
   */
  lifecycle(gen: number, params: unknown) {
    const cur = this.cli.current;
    if (cur && cur.gen !== gen) return;
    const n = LifecycleNotification.safeParse(params);
    if (!n.success) return;
    const { type, sessionId, metadata } = n.data;
    const rt = this.runtimes.get(sessionId);
    if (type === "session.deleted") {
      if (!rt) return;
      if (rt.reloadTimer) clearTimeout(rt.reloadTimer);
      this.forget(sessionId);
      return;
    }
    if (type !== "session.created" && type !== "session.updated") return;
    if (!rt) {
      // Another client's session (this console registers its own before it publishes anything).
      if (this.creating > 0 || !metadata) return;
      const at = (t?: string) => (t && Number.isFinite(Date.parse(t)) ? Date.parse(t) : Date.now());
      const session: Session = {
        id: sessionId,
        backendId: this.backendId,
        title: metadata.summary?.trim() || DEFAULT_TITLE,
        createdAt: at(metadata.startTime),
        updatedAt: at(metadata.modifiedTime),
        status: "idle",
      };
      this.publish(sessionId, [{ type: "session.updated", session }]);
      return;
    }
    if (rt.gen === cur?.gen || !this.sink.openSessions(this.backendId).includes(sessionId)) return;
    if (rt.reloadTimer) clearTimeout(rt.reloadTimer);
    rt.reloadTimer = setTimeout(() => {
      rt.reloadTimer = undefined;
      void this.load(sessionId)
        .then((fresh) => this.sink.reconcile(this.backendId, sessionId, fresh))
        .catch((err: unknown) =>
          log.warn("could not reload a session another client changed", {
            backend: this.backendId,
            error: describeError(err),
          }),
        );
    }, 300);
    rt.reloadTimer.unref?.();
  }
}
