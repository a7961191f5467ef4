import "server-only";
import path from "node:path";
import type {
  Backend,
  BackendStatus,
  Capabilities,
  Interrupt,
  Message,
  Session,
  TimelineEvent,
  Todo,
} from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import type { AgentProcess } from "../shared/agent-process";
import { InterruptBook } from "../shared/interrupts";
import { JsonRpcError, type JsonRpcPeer } from "../shared/json-rpc";
import { SupervisedShell, type SupervisedSpec, shellIdentity } from "../shared/stdio-shell";
import { SessionRecords } from "../shared/session-records";
import { TranscriptStore } from "../shared/transcripts";
import { arr, isObj, obj, str } from "../shared/values";
import type { EventSink } from "../types";
import type { OpalAdapterOptions } from "./options";
import { OpalAuth } from "./auth";
import type { OpalReply } from "./requests";
import { type Child, DELETED, DETACHED, type Runtime } from "./runtime";
import { sessionOptions } from "./session-options";

/** What the context needs from the adapter that holds it. */
export interface OpalContextHooks {
  capabilities: Capabilities;
  /** The server's process (its connection, handshake and exits), spoken to through this context. */
  process(ctx: OpalContext): SupervisedSpec<JsonRpcPeer>;
}

/**
 * What every part of the Opal adapter shares: the server's process and its calls, the login, the
 * sessions known here (console ids, Opal ids, sub-agents) with their records, the interrupt book,
 * and publishing to the hub.
 */
export class OpalContext {
  readonly id: string;
  /** The server's process under the supervisor, and the backend's status (`auth-required` without a login) and info. */
  readonly shell: SupervisedShell<JsonRpcPeer>;
  readonly auth: OpalAuth;
  version: string | undefined;
  /** Requests that hold Opal's RPC loop (compaction): the health check waits for them. */
  blocking = 0;
  /** Tool calls that took a sensitive input: their diffs (which would show it) are never recorded. */
  readonly sensitiveCalls = new Set<string>();
  readonly runtimes = new Map<string, Runtime>();
  readonly byOpal = new Map<string, string>();
  readonly interrupts: InterruptBook<OpalReply>;
  readonly transcripts: TranscriptStore;
  /** What the adapter emitted, per session (sub-agents' too): the kept transcripts are saved from it. */
  readonly records: SessionRecords;
  readonly defaultCwd: string;

  constructor(
    readonly opts: OpalAdapterOptions,
    readonly sink: EventSink,
    hooks: OpalContextHooks,
  ) {
    this.id = opts.id;
    this.defaultCwd = path.resolve(opts.cwd ?? opts.workspace);
    this.transcripts = new TranscriptStore(opts.store, opts.id);
    this.records = new SessionRecords(opts.id, sink, this.transcripts);
    // A sub-agent's interrupt is shown in its own session and in its parent's (its owner).
    this.interrupts = new InterruptBook<OpalReply>({
      idPrefix: "opal",
      emit: (sid, events) => this.publishWithOwner(sid, events),
    });
    this.auth = new OpalAuth(opts.label, () => this.setStatus("ready"));
    this.shell = new SupervisedShell<JsonRpcPeer>(
      {
        ...shellIdentity(opts, "opal"),
        sink,
        describe: () => ({
          capabilities: hooks.capabilities,
          version: this.version,
          ...(this.auth.providers ? { extra: { auth: { providers: this.auth.providers } } } : {}),
        }),
        gate: (status, error) =>
          status === "ready" && this.auth.note ? { status: "auth-required", error: this.auth.note } : { status, error },
      },
      hooks.process(this),
    );
  }

  get proc(): AgentProcess<JsonRpcPeer> {
    return this.shell.proc;
  }

  info(): Backend {
    return this.shell.info();
  }

  setStatus(status: BackendStatus, error?: string) {
    this.shell.setStatus(status, error);
  }

  /* ------------------------------------------------------------------ calls */

  async call(what: string, method: string, params: unknown, timeoutMs?: number): Promise<Record<string, unknown>> {
    this.auth.notWhilePolling();
    const c = await this.proc.whenReady();
    // Checked again in the tick that sends: a poll sent meanwhile would hold this request.
    this.auth.notWhilePolling();
    try {
      return obj(await c.conn.request(method, params, timeoutMs ? { timeoutMs } : {}));
    } catch (err) {
      throw this.mapError(err, what);
    }
  }

  mapError(err: unknown, what: string): Error {
    const label = this.opts.label;
    if (err instanceof ApiError) return err;
    if (err instanceof JsonRpcError) {
      const detail =
        err.data !== undefined ? ` (${typeof err.data === "string" ? err.data : JSON.stringify(err.data)})` : "";
      if (err.code === -32602) return ApiError.badRequest(`${label} could not ${what}: ${err.message}${detail}`);
      return ApiError.upstream(`${label} could not ${what}: ${err.message}${detail}`);
    }
    return ApiError.upstream(`${label} could not ${what}: ${describeError(err)}`);
  }

  /** Starts or resumes the session in the live process (the only way to get its events). */
  async attach(rt: Runtime): Promise<JsonRpcPeer> {
    if (rt.left) throw ApiError.conflict(`This path was left by a branch; it goes on in session ${rt.left}`);
    for (;;) {
      this.auth.notWhilePolling();
      const c = await this.proc.whenReady();
      this.auth.notWhilePolling();
      if (rt.gen === c.gen) return c.conn;
      if (rt.attaching) {
        await rt.attaching;
        continue;
      }
      rt.attaching = (async () => {
        // Opal does not restore a session's model on resume (it starts its default): the console's is given back.
        const model = rt.model
          ? { model: { id: rt.model, ...(rt.thinking ? { thinking_level: rt.thinking } : {}) } }
          : {};
        try {
          await c.conn.request("session/start", {
            session_id: rt.opalId,
            working_dir: rt.directory,
            features: { sub_agents: true },
            ...model,
          });
        } catch (err) {
          throw this.mapError(err, "resume the session");
        }
        rt.gen = c.gen;
        await this.readAgentState(rt, c.conn);
      })().finally(() => (rt.attaching = undefined));
      await rt.attaching;
    }
  }

  /**
   * `agent/state` after a (re)start: the model and thinking level Opal really runs. Where they are
   * not the session's, they are set again (`model/set` with the level: it resets thinking otherwise).
   */
  private async readAgentState(rt: Runtime, conn: JsonRpcPeer) {
    let st: Record<string, unknown>;
    try {
      st = obj(await conn.request("agent/state", { session_id: rt.opalId }, { timeoutMs: 30_000 }));
    } catch (err) {
      log.warn("agent/state failed", { backend: this.id, error: describeError(err) });
      return;
    }
    const m = obj(st.model);
    const id = str(m.id);
    const level = str(m.thinking_level);
    if (!rt.model) {
      if (id) rt.model = id;
      if (level) rt.thinking = level;
      return;
    }
    if (id === rt.model && (rt.thinking === undefined || level === rt.thinking)) return;
    try {
      await conn.request("model/set", {
        session_id: rt.opalId,
        model_id: rt.model,
        ...(rt.thinking ? { thinking_level: rt.thinking } : {}),
      });
    } catch (err) {
      log.warn("could not set the session's model again after a restart", {
        backend: this.id,
        error: describeError(err),
      });
    }
  }

  /* ------------------------------------------------------------------ publishing */

  /** The one way a session's events leave the adapter: to the hub, and into the session's record. */
  publish(sessionId: string, events: TimelineEvent[]) {
    this.records.publish(sessionId, events);
  }

  private publishWithOwner(sessionId: string, events: TimelineEvent[]) {
    const child = this.findChild(sessionId);
    if (child) this.publish(child.parentId, events);
    this.publish(sessionId, events);
  }

  childPublish(c: Child, events: TimelineEvent[]) {
    this.publish(c.id, events);
  }

  /** Pending interrupts shown in a session: its own and its sub-agents'. */
  pendingFor(sessionId: string): Interrupt[] {
    return this.interrupts.list().filter((i) => i.sessionId === sessionId || i.ownerSessionId === sessionId);
  }

  /* ------------------------------------------------------------------ sessions */

  sessionOf(rt: Runtime): Session {
    return {
      id: rt.id,
      backendId: this.id,
      title: rt.title,
      directory: rt.directory,
      createdAt: rt.createdAt,
      updatedAt: rt.updatedAt,
      status: rt.turn ? (this.pendingFor(rt.id).length ? "waiting" : "busy") : "idle",
      ...(rt.forkedFrom ? { forkedFrom: rt.forkedFrom } : {}),
      ...(rt.model ? { model: { provider: "copilot", id: rt.model } } : {}),
      settings: { options: sessionOptions(rt) },
    };
  }

  childSession(c: Child): Session {
    return {
      id: c.id,
      backendId: this.id,
      title: c.title,
      parentId: c.parentId,
      createdAt: c.createdAt,
      updatedAt: c.createdAt,
      status: c.turn ? "busy" : "idle",
    };
  }

  register(rt: Runtime) {
    this.runtimes.set(rt.id, rt);
    if (!rt.left) this.byOpal.set(rt.opalId, rt.id);
  }

  findChild(id: string): Child | undefined {
    for (const rt of this.runtimes.values()) for (const c of rt.children.values()) if (c.id === id) return c;
    return undefined;
  }

  /** A sub-agent's session (live or recorded): shown, never prompted. */
  isChild(sessionId: string): boolean {
    return Boolean(this.findChild(sessionId) ?? this.transcripts.get(sessionId)?.session.parentId);
  }

  /** The console's record of a session: the messages as emitted, on top of what it kept. */
  record(rt: Runtime): { messages: Message[]; todos: Todo[] } | undefined {
    return this.records.transcript(rt.id);
  }

  /** Keeps the session and its transcript (as emitted, or `messages` when the adapter built them). */
  save(rt: Runtime, messages?: Message[], todos?: Todo[]) {
    if (messages) this.records.seed(rt.id, { session: this.sessionOf(rt), messages, todos: todos ?? [] });
    const rec = this.record(rt);
    this.transcripts.save({
      session: this.sessionOf(rt),
      ...(rec ? { messages: rec.messages, todos: rec.todos } : {}),
      agentSessionId: rt.left ? `${DETACHED}${rt.left}:${rt.opalId}` : rt.opalId,
    });
  }

  saveChild(c: Child) {
    this.transcripts.save({ session: this.childSession(c), messages: this.records.messages(c.id), todos: [] });
  }

  /** A session known here, from the record or Opal's list; 404 otherwise. */
  async known(sessionId: string): Promise<Runtime> {
    const rt = this.runtimes.get(sessionId);
    if (rt) return rt;
    const t = this.transcripts.get(sessionId);
    if (t?.agentSessionId?.startsWith(DELETED)) throw ApiError.notFound(`Unknown session: ${sessionId}`);
    if (t && !t.session.parentId) {
      const agent = t.agentSessionId ?? t.session.id;
      const left = agent.startsWith(DETACHED) ? agent.slice(DETACHED.length).split(":") : undefined;
      const r: Runtime = {
        id: t.session.id,
        opalId: left ? left[1]! : agent,
        directory: t.session.directory ?? this.defaultCwd,
        title: t.session.title,
        createdAt: t.session.createdAt,
        updatedAt: t.session.updatedAt,
        children: new Map(),
        ...(t.session.forkedFrom ? { forkedFrom: t.session.forkedFrom } : {}),
        ...(t.session.model ? { model: t.session.model.id } : {}),
        ...(left ? { left: left[0]! } : {}),
        queued: [],
      };
      this.register(r);
      return r;
    }
    const listed = (await this.opalList()).find((s) => s.id === sessionId);
    if (!listed) throw ApiError.notFound(`Unknown session: ${sessionId}`);
    const r: Runtime = {
      id: listed.id,
      opalId: listed.id,
      directory: this.defaultCwd,
      title: listed.title,
      createdAt: listed.updatedAt,
      updatedAt: listed.updatedAt,
      children: new Map(),
      queued: [],
    };
    this.register(r);
    return r;
  }

  async opalList(): Promise<{ id: string; title: string; updatedAt: number }[]> {
    const res = await this.call("list its sessions", "session/list", {});
    return arr(res.sessions)
      .filter(isObj)
      .flatMap((s) => {
        const id = str(s.id);
        if (!id) return [];
        // `modified` has no timezone: Opal writes UTC.
        const t = Date.parse(`${str(s.modified) ?? ""}Z`);
        return [{ id, title: str(s.title) ?? "Untitled Opal session", updatedAt: Number.isFinite(t) ? t : 0 }];
      });
  }
}
