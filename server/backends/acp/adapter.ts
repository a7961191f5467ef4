import "server-only";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import {
  client,
  methods,
  ndJsonStream,
  RequestError,
  type AgentCapabilities,
  type AuthMethod,
  type ClientConnection,
  type ContentBlock,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { methods as unstableMethods, type ForkSessionRequest, type ForkSessionResponse } from "@agentclientprotocol/sdk/unstable";
import type { InterruptAnswer, PromptBody, PromptPart, CreateSessionBody } from "@/lib/api";
import type { Backend, BackendStatus, Capabilities, Interrupt, MessageInfo, Session, TimelineEvent } from "@/lib/model";
import { apply, applyAll, emptyState, type SessionState } from "@/lib/timeline/reducer";
import { ApiError, describeError, isApiError } from "../../errors";
import { log } from "../../log";
import { ProcessSupervisor, type ProcessExit, type SupervisedProcess } from "../../processes/supervisor";
import { ndjsonLines } from "../shared/framing";
import type { Store } from "../../store/store";
import type { BackendAdapter, EventSink, LoadedSession } from "../types";
import {
  appendNotice,
  applySessionSetup,
  applyUpdate,
  beginTurn,
  endReplay,
  endTurn,
  failTurn,
  markRejected,
  newSessionState,
  permissionRequest,
  renameSession,
  type AcpSessionState,
} from "./normalize";

export interface AcpAdapterOptions {
  id: string;
  label: string;
  /** `[command, ...args]` of the agent, e.g. `["copilot", "--acp", "--no-auto-update"]`. */
  command: string[];
  /** Extra environment for the agent (secrets welcome: never sent to the browser). */
  env?: Record<string, string>;
  /** The agent's working directory and the default directory of new sessions. */
  cwd?: string;
  /** The console's workspace root: session directories must stay inside it (or inside `cwd`). */
  workspace: string;
  store: Store;
  source?: "env" | "store";
  version?: string;
  restart?: { initialMs?: number; maxMs?: number };
  /** How long an agent may ignore `session/cancel` before the turn is ended locally (default 10 s). */
  cancelGraceMs?: number;
  /** How long a request waits for a (re)starting agent before answering 503 (default 45 s). */
  readyTimeoutMs?: number;
}

const DEFAULT_TITLE = "New session";
/** `session/update` kinds that carry conversation history (what a replay consists of). */
const REPLAYED_UPDATES = new Set(["user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan", "usage_update"]);
const REQUEST_TIMEOUT_MS = 60_000;
const READY_TIMEOUT_MS = 45_000;
const CANCEL_GRACE_MS = 10_000;
const PERSISTED_MESSAGES = 1000;

interface Conn {
  gen: number;
  conn: ClientConnection;
}

interface Turn {
  info: MessageInfo;
  gen: number;
  done: boolean;
  cancelTimer?: ReturnType<typeof setTimeout>;
}

/** What the adapter knows of one session: the normalizer, a mirror of the hub's state, the running turn. */
interface Runtime {
  id: string;
  /** The id the agent knows it by (differs only after re-creating a session on an agent without loadSession). */
  agentId: string;
  cwd: string;
  norm: AcpSessionState;
  state: SessionState;
  /** Process generation in which the agent has this session open (0: not attached). */
  liveGen: number;
  turn?: Turn;
  queued: PromptBody[];
  /** While `session/load` replays: the replay is collected here (or dropped when only re-attaching). */
  replay?: { norm: AcpSessionState; events: TimelineEvent[]; discard: boolean };
  attaching?: Promise<void>;
  /** A failed turn's message, to tell it when the agent is back. */
  crashedMessageId?: string;
}

interface PendingPermission {
  sessionId: string;
  interrupt: Interrupt;
  gen: number;
  resolve(r: RequestPermissionResponse): void;
}

function rpcCode(err: unknown): number | undefined {
  if (err instanceof RequestError) return err.code;
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === "number" ? c : undefined;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    t = setTimeout(() => reject(ApiError.upstream(`The agent did not answer ${what} within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(t));
}

/**
 * The SDK resolves a request as soon as its response is read, but dispatches notifications through
 * a few promise hops: a `session/prompt` result can overtake the last `session/update`s that came
 * before it on the wire. Everything already read is handled once the microtask queue drains.
 */
const drainIncoming = () => new Promise<void>((r) => setImmediate(() => setImmediate(r)));

function isInside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/**
 * ACP agent adapter (SPEC.md §2, protocols/acp.md): one supervised agent process per backend, spoken to
 * with `@agentclientprotocol/sdk` over NDJSON stdio. Sessions, prompts (the turn runs in the background
 * and streams as canonical events), cancel, list/load where advertised, permissions as interrupts, file
 * reads and writes confined to the session's directory, and the console's own transcript for agents
 * that cannot replay their history.
 */
export class AcpAdapter implements BackendAdapter {
  readonly id: string;
  private supervisor: ProcessSupervisor;
  private current: Conn | undefined;
  private status: BackendStatus = "connecting";
  private error: string | undefined;
  private agentCaps: AgentCapabilities = {};
  private authMethods: AuthMethod[] = [];
  private agentInfo: { name?: string; title?: string | null; version?: string } | undefined;
  private stopping = false;
  private readyWaiters: { resolve: (c: Conn) => void }[] = [];
  private runtimes = new Map<string, Runtime>();
  private byAgent = new Map<string, Runtime>();
  private loadingRuntimes = new Map<string, Promise<Runtime>>();
  /** Sessions the agent listed (cwd and title), for loading them later. */
  private listed = new Map<string, { cwd: string; title?: string; updatedAt?: number }>();
  private pending = new Map<string, PendingPermission>();
  private resolvedInterrupts = new Set<string>();
  /** Updates for sessions not known yet (e.g. sent before the `session/new` result). */
  private early: SessionNotification[] = [];
  private exitWaiters = new Map<number, (() => void)[]>();
  private exitedGens = new Set<number>();
  private defaultCwd: string;

  constructor(
    private opts: AcpAdapterOptions,
    private sink: EventSink,
  ) {
    this.id = opts.id;
    this.defaultCwd = path.resolve(opts.cwd ?? opts.workspace);
    this.supervisor = new ProcessSupervisor({
      name: `${opts.id} (${opts.command[0] ?? "?"})`,
      command: opts.command,
      cwd: this.defaultCwd,
      ...(opts.env ? { env: opts.env } : {}),
      framing: ndjsonLines,
      ...(opts.restart ? { restart: opts.restart } : {}),
      onSpawn: (p) => this.onSpawn(p),
      onExit: (e) => this.onExit(e),
    });
  }

  /* ------------------------------------------------------------------ info */

  capabilities(): Capabilities {
    const sc = this.agentCaps.sessionCapabilities ?? {};
    return {
      // `session/fork` (unstable ACP) copies a whole session; there is no per-message fork.
      fork: this.canFork(),
      forkMessages: false,
      revert: false,
      diff: false,
      compact: false,
      models: false,
      share: false,
      history: true,
      abort: true,
      rename: true,
      delete: Boolean(sc.delete),
      search: true,
      directories: true,
      interrupts: { permission: true, question: false, input: false },
    };
  }

  info(): Backend {
    const masked = this.opts.env ? Object.fromEntries(Object.keys(this.opts.env).map((k) => [k, "***"])) : undefined;
    const last = this.supervisor.lastExitInfo;
    const pid = this.supervisor.pid;
    return {
      id: this.id,
      kind: "acp",
      label: this.opts.label,
      status: this.status,
      ...(this.error ? { error: this.error } : {}),
      capabilities: this.capabilities(),
      location: this.opts.command.join(" "),
      ...(this.agentInfo?.version ? { version: this.agentInfo.version } : {}),
      ...(this.opts.source ? { source: this.opts.source } : {}),
      config: { command: this.opts.command, ...(masked ? { env: masked } : {}), ...(this.opts.cwd ? { cwd: this.opts.cwd } : {}) },
      process: {
        state: this.supervisor.state,
        restarts: this.supervisor.restarts,
        ...(pid !== undefined ? { pid } : {}),
        ...(last ? { lastExit: last.description } : {}),
      },
    };
  }

  /** The agent's stderr tail (and the supervisor's own notes). */
  logs(): string[] {
    return this.supervisor.logs();
  }

  /** The pid of the agent process (tests kill it on purpose). */
  get pid(): number | undefined {
    return this.supervisor.pid;
  }

  private setStatus(status: BackendStatus, error?: string) {
    if (this.status === status && this.error === error) return;
    this.status = status;
    this.error = error;
    this.sink.backendChanged(this.info());
  }

  /* ------------------------------------------------------------------ process and connection */

  async start(): Promise<void> {
    this.stopping = false;
    this.setStatus("connecting");
    this.supervisor.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const [id, p] of this.pending) this.settle(id, "cancelled", { outcome: { outcome: "cancelled" } }, p);
    const c = this.current;
    this.current = undefined;
    await this.supervisor.stop();
    c?.conn.close();
  }

  private onSpawn(p: SupervisedProcess) {
    const gen = p.generation;
    const app = client({ name: "switchboard" })
      .onRequest(methods.client.session.requestPermission, (ctx) => this.onPermission(gen, ctx.params, ctx.signal))
      .onRequest(methods.client.fs.readTextFile, async (ctx) => ({ content: await this.readTextFile(ctx.params.sessionId, ctx.params.path, ctx.params.line ?? undefined, ctx.params.limit ?? undefined) }))
      .onRequest(methods.client.fs.writeTextFile, async (ctx) => {
        await this.writeTextFile(ctx.params.sessionId, ctx.params.path, ctx.params.content);
        return {};
      })
      .onNotification(methods.client.session.update, (ctx) => this.onUpdate(gen, ctx.params));
    const conn = app.connect(ndJsonStream(p.stdin, p.stdout));
    const c: Conn = { gen, conn };
    void conn.closed.then(async () => {
      // The agent closed its stdout: it is exiting, or it is wedged (then restart it).
      await this.waitExit(gen, 2000);
      if (!this.stopping && !this.exitedGens.has(gen) && this.current === c) {
        log.warn("agent closed its connection without exiting; restarting it", { backend: this.id });
        this.supervisor.kill();
      }
    });
    void this.handshake(c);
  }

  private async handshake(c: Conn) {
    try {
      const init = await withTimeout(
        c.conn.agent.request(methods.agent.initialize, {
          protocolVersion: 1,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
          clientInfo: { name: "switchboard", title: "Switchboard", version: this.opts.version ?? "0.1.0" },
        }),
        REQUEST_TIMEOUT_MS,
        "initialize",
      );
      if (this.stopping) return;
      this.agentCaps = init.agentCapabilities ?? {};
      this.authMethods = init.authMethods ?? [];
      this.agentInfo = init.agentInfo ?? undefined;
      this.current = c;
      this.supervisor.markHealthy();
      log.info("ACP agent ready", { backend: this.id, agent: this.agentInfo?.name, version: this.agentInfo?.version, generation: c.gen });
      this.setStatus("ready");
      for (const w of this.readyWaiters.splice(0)) w.resolve(c);
      if (c.gen > 1) this.announceRestart(c.gen);
    } catch (err) {
      if (this.stopping) return;
      const msg = describeError(err);
      log.warn("ACP initialize failed; restarting the agent", { backend: this.id, error: msg });
      this.setStatus("down", `The agent did not complete the ACP handshake: ${msg}`);
      this.supervisor.kill();
    }
  }

  private onExit(exit: ProcessExit) {
    this.exitedGens.add(exit.generation);
    for (const w of this.exitWaiters.get(exit.generation) ?? []) w();
    this.exitWaiters.delete(exit.generation);
    if (this.stopping) return;
    if (this.current?.gen === exit.generation) {
      this.current.conn.close();
      this.current = undefined;
    }
    const restart = exit.restartInMs !== undefined ? `; restarting in ${exit.restartInMs < 1000 ? `${exit.restartInMs} ms` : `${Math.round(exit.restartInMs / 1000)} s`}` : "";
    const tail = this.supervisor.logs().filter((l) => !l.startsWith("[switchboard]")).slice(-1)[0];
    this.setStatus("down", `The agent process ${exit.description}${restart}${tail ? ` (last output: ${tail.slice(0, 200)})` : ""}`);
    // Fail the turns that were running in the dead process and cancel its permission requests.
    for (const [id, p] of this.pending) if (p.gen === exit.generation) this.settle(id, "cancelled", { outcome: { outcome: "cancelled" } }, p);
    for (const rt of this.runtimes.values()) {
      const turn = rt.turn;
      if (turn && !turn.done && turn.gen === exit.generation) {
        this.failRunningTurn(rt, turn, { name: "AgentExited", message: `The agent process ${exit.description}. Switchboard is restarting it.` });
        rt.crashedMessageId = turn.info.id;
      }
    }
  }

  private announceRestart(gen: number) {
    for (const rt of this.runtimes.values()) {
      if (!rt.crashedMessageId) continue;
      this.emit(rt, appendNotice(rt.norm, rt.crashedMessageId, "info", `The agent was restarted (pid ${this.supervisor.pid ?? "?"}, restart #${gen - 1}). Send a prompt to continue.`));
      rt.crashedMessageId = undefined;
    }
  }

  private waitExit(gen: number, ms: number): Promise<void> {
    if (this.exitedGens.has(gen)) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      const list = this.exitWaiters.get(gen) ?? [];
      list.push(() => {
        clearTimeout(t);
        resolve();
      });
      this.exitWaiters.set(gen, list);
    });
  }

  /** The live connection, waiting for a (re)start; 503 when the agent stays down. */
  private whenReady(timeoutMs = this.opts.readyTimeoutMs ?? READY_TIMEOUT_MS): Promise<Conn> {
    if (this.current) return Promise.resolve(this.current);
    if (this.stopping) return Promise.reject(ApiError.down(`${this.opts.label} is stopped`));
    return new Promise<Conn>((resolve, reject) => {
      const waiter = {
        resolve: (c: Conn) => {
          clearTimeout(t);
          resolve(c);
        },
      };
      const t = setTimeout(() => {
        this.readyWaiters = this.readyWaiters.filter((w) => w !== waiter);
        reject(ApiError.down(`${this.opts.label} is not running${this.error ? `: ${this.error}` : ""}`));
      }, timeoutMs);
      this.readyWaiters.push(waiter);
    });
  }

  private authHelp(): string {
    const ways = this.authMethods.map((m) => {
      const meta = (m as { _meta?: Record<string, unknown> | null })._meta;
      const term = meta?.["terminal-auth"] as { command?: string; args?: string[] } | undefined;
      const line = term?.command ? [path.basename(term.command), ...(term.args ?? [])].join(" ") : "";
      const cmd = line && !(m.description ?? "").includes(line) ? ` (\`${line}\`)` : "";
      return `${m.name}${m.description ? `: ${m.description}` : ""}${cmd}`;
    });
    return ways.length ? `Authentication required. ${ways.join("; ")}` : "Authentication required";
  }

  /** Maps an agent error to the console's error shape (and notices "Authentication required"). */
  private mapError(err: unknown, what: string): ApiError {
    if (isApiError(err)) return err;
    const code = rpcCode(err);
    const msg = describeError(err);
    if (code === -32000 || /authentication required/i.test(msg)) {
      const help = this.authHelp();
      this.setStatus("auth-required", help);
      return ApiError.down(`${this.opts.label} needs a login. ${help}`);
    }
    if (code === -32002) return ApiError.notFound(msg);
    if (code === -32602) return ApiError.badRequest(`${this.opts.label} rejected ${what}: ${msg}`);
    if (code === undefined) return ApiError.down(`${this.opts.label} is not reachable: ${msg}`);
    return ApiError.upstream(`${this.opts.label} could not ${what}: ${msg}`);
  }

  private async call<T>(what: string, fn: (c: Conn) => Promise<T>): Promise<T> {
    const c = await this.whenReady();
    try {
      const r = await withTimeout(fn(c), REQUEST_TIMEOUT_MS, what);
      if (this.status === "auth-required") this.setStatus("ready");
      return r;
    } catch (err) {
      throw this.mapError(err, what);
    }
  }

  /* ------------------------------------------------------------------ events */

  private emit(rt: Runtime, events: TimelineEvent[]) {
    for (const e of events) {
      rt.state = apply(rt.state, e);
      this.sink.publish(this.id, rt.id, e);
    }
  }

  private onUpdate(gen: number, params: SessionNotification) {
    if (this.current && this.current.gen !== gen) return;
    try {
      const rt = this.byAgent.get(params.sessionId);
      if (!rt) {
        this.early.push(params);
        if (this.early.length > 100) this.early.splice(0, this.early.length - 100);
        return;
      }
      if (rt.replay) {
        if (!rt.replay.discard) rt.replay.events.push(...applyUpdate(rt.replay.norm, params.update, Date.now()));
        return;
      }
      this.emit(rt, applyUpdate(rt.norm, params.update, Date.now()));
    } catch (err) {
      log.warn("skipped an ACP update that could not be applied", { backend: this.id, error: describeError(err) });
    }
  }

  /* ------------------------------------------------------------------ runtimes */

  private register(rt: Runtime) {
    this.runtimes.set(rt.id, rt);
    this.byAgent.set(rt.agentId, rt);
    // Updates the agent sent before we knew the session (e.g. its slash commands after session/new).
    const early = this.early.filter((n) => n.sessionId === rt.agentId);
    if (early.length) {
      this.early = this.early.filter((n) => n.sessionId !== rt.agentId);
      for (const n of early) this.emit(rt, applyUpdate(rt.norm, n.update, Date.now()));
    }
  }

  private newRuntime(session: Session, cwd: string, opts: { agentId?: string; liveGen: number; titleLocked?: boolean; messages?: SessionState["messages"]; todos?: SessionState["todos"] }): Runtime {
    const norm = newSessionState(session, { titleLocked: opts.titleLocked ?? false });
    return {
      id: session.id,
      agentId: opts.agentId ?? session.id,
      cwd,
      norm,
      state: { ...emptyState, session: { ...session, status: "idle" }, messages: opts.messages ?? [], todos: opts.todos ?? [] },
      liveGen: opts.liveGen,
      queued: [],
    };
  }

  private sessionOf(rt: Runtime): Session {
    return { ...rt.norm.session, ...(rt.state.session ? { status: rt.state.session.status, ...(rt.state.session.usage ? { usage: rt.state.session.usage } : {}) } : {}) };
  }

  private keepsHistory(): boolean {
    return this.agentCaps.loadSession === true;
  }

  private persist(rt: Runtime) {
    try {
      const session = { ...this.sessionOf(rt), status: "idle" as const };
      this.opts.store.putTranscript({
        backendId: this.id,
        sessionId: rt.id,
        session,
        ...(this.keepsHistory() ? {} : { messages: rt.state.messages.slice(-PERSISTED_MESSAGES), todos: rt.state.todos }),
        ...(rt.agentId !== rt.id ? { agentSessionId: rt.agentId } : {}),
        updatedAt: session.updatedAt,
      });
    } catch (err) {
      log.warn("could not persist an ACP session", { backend: this.id, sessionId: rt.id, error: describeError(err) });
    }
  }

  /** The runtime of a session, loading it (store, `session/load`) on first use; 404 when unknown. */
  private runtime(sessionId: string): Promise<Runtime> {
    const rt = this.runtimes.get(sessionId);
    if (rt) return Promise.resolve(rt);
    const inflight = this.loadingRuntimes.get(sessionId);
    if (inflight) return inflight;
    const p = this.loadRuntime(sessionId).finally(() => this.loadingRuntimes.delete(sessionId));
    this.loadingRuntimes.set(sessionId, p);
    return p;
  }

  private async loadRuntime(sessionId: string): Promise<Runtime> {
    const stored = this.opts.store.getTranscript(this.id, sessionId);
    if (!stored && !this.current) await this.whenReady();
    let meta: { session: Session; cwd: string } | undefined = stored
      ? { session: stored.session, cwd: stored.session.directory ?? this.defaultCwd }
      : this.listedMeta(sessionId);
    if (!meta && this.agentCaps.sessionCapabilities?.list) {
      await this.refreshListed().catch(() => undefined);
      meta = this.listedMeta(sessionId);
    }
    if (!meta) throw ApiError.notFound(`Unknown session: ${sessionId}`);
    // Whether the agent replays history is known only once it is up (unless the console has the transcript).
    if (!stored?.messages) await this.whenReady();
    const titleLocked = Boolean(stored && stored.session.title !== DEFAULT_TITLE && stored.session.title !== this.listed.get(sessionId)?.title);
    if (stored?.messages || !this.keepsHistory()) {
      // The console keeps this transcript (the agent cannot replay it).
      const rt = this.newRuntime(meta.session, meta.cwd, {
        liveGen: 0,
        titleLocked,
        ...(stored?.agentSessionId ? { agentId: stored.agentSessionId } : {}),
        ...(stored?.messages ? { messages: stored.messages } : {}),
        ...(stored?.todos ? { todos: stored.todos } : {}),
      });
      this.register(rt);
      return rt;
    }
    // The agent replays the history: collect it into a fresh state.
    const rt = this.newRuntime(meta.session, meta.cwd, { liveGen: 0, titleLocked, ...(stored?.agentSessionId ? { agentId: stored.agentSessionId } : {}) });
    const replayFrom = Math.min(meta.session.createdAt, meta.session.updatedAt - 3_600_000);
    rt.replay = { norm: newSessionState(rt.norm.session, { titleLocked, replayFrom }), events: [], discard: false };
    this.register(rt);
    try {
      const c = await this.whenReady();
      const res = await withTimeout(
        c.conn.agent.request(methods.agent.session.load, { sessionId: rt.agentId, cwd: rt.cwd, mcpServers: [] }),
        REQUEST_TIMEOUT_MS,
        "session/load",
      );
      await drainIncoming();
      const replay = rt.replay;
      const events = [...replay.events, ...endReplay(replay.norm), ...applySessionSetup(replay.norm, res)];
      rt.norm = replay.norm;
      rt.state = applyAll({ ...emptyState, session: { ...rt.norm.session, status: "idle" } }, events);
      rt.liveGen = c.gen;
    } catch (err) {
      if (rpcCode(err) === -32602 && /already loaded/i.test(describeError(err)) && this.current) {
        // The agent has it open already (e.g. an earlier console loaded it): attached, without history.
        rt.liveGen = this.current.gen;
      } else {
        this.runtimes.delete(rt.id);
        this.byAgent.delete(rt.agentId);
        throw this.mapError(err, "load the session");
      }
    } finally {
      rt.replay = undefined;
    }
    this.persist(rt);
    return rt;
  }

  private listedMeta(sessionId: string): { session: Session; cwd: string } | undefined {
    const l = this.listed.get(sessionId);
    if (!l) return undefined;
    const t = l.updatedAt ?? Date.now();
    return { cwd: l.cwd, session: { id: sessionId, backendId: this.id, title: l.title ?? DEFAULT_TITLE, directory: l.cwd, createdAt: t, updatedAt: t, status: "idle" } };
  }

  private async refreshListed(maxPages = 5): Promise<void> {
    let cursor: string | undefined;
    for (let page = 0; page < maxPages; page++) {
      const res = await this.call("list sessions", (c) => c.conn.agent.request(methods.agent.session.list, cursor ? { cursor } : {}));
      for (const s of res.sessions ?? []) {
        const updated = s.updatedAt ? Date.parse(s.updatedAt) : NaN;
        this.listed.set(s.sessionId, { cwd: s.cwd, ...(s.title ? { title: s.title } : {}), ...(Number.isFinite(updated) ? { updatedAt: updated } : {}) });
      }
      cursor = res.nextCursor ?? undefined;
      if (!cursor) break;
    }
  }

  /**
   * Makes sure the agent process running now has the session open: `session/resume` (no replay) or
   * `session/load` (replay dropped: the console already shows it) after a restart; agents that can do
   * neither get a new agent session, and the console keeps showing the old transcript.
   */
  private attach(rt: Runtime): Promise<Conn> {
    return (async () => {
      for (;;) {
        const c = await this.whenReady();
        if (rt.liveGen === c.gen) return c;
        if (!rt.attaching) {
          rt.attaching = this.reattach(rt, c).finally(() => (rt.attaching = undefined));
        }
        await rt.attaching;
      }
    })();
  }

  private async reattach(rt: Runtime, c: Conn): Promise<void> {
    const sc = this.agentCaps.sessionCapabilities ?? {};
    try {
      if (sc.resume) {
        const res = await withTimeout(c.conn.agent.request(methods.agent.session.resume, { sessionId: rt.agentId, cwd: rt.cwd, mcpServers: [] }), REQUEST_TIMEOUT_MS, "session/resume");
        this.emit(rt, applySessionSetup(rt.norm, res));
      } else if (this.agentCaps.loadSession) {
        rt.replay = { norm: newSessionState(rt.norm.session), events: [], discard: true };
        try {
          const res = await withTimeout(c.conn.agent.request(methods.agent.session.load, { sessionId: rt.agentId, cwd: rt.cwd, mcpServers: [] }), REQUEST_TIMEOUT_MS, "session/load");
          await drainIncoming();
          rt.replay = undefined;
          this.emit(rt, applySessionSetup(rt.norm, res));
        } catch (err) {
          if (!(rpcCode(err) === -32602 && /already loaded/i.test(describeError(err)))) throw err;
        } finally {
          rt.replay = undefined;
        }
      } else {
        const res = await withTimeout(c.conn.agent.request(methods.agent.session.new, { cwd: rt.cwd, mcpServers: [] }), REQUEST_TIMEOUT_MS, "session/new");
        this.byAgent.delete(rt.agentId);
        rt.agentId = res.sessionId;
        this.byAgent.set(rt.agentId, rt);
        this.emit(rt, applySessionSetup(rt.norm, res));
        const last = rt.state.messages.at(-1);
        if (last) this.emit(rt, appendNotice(rt.norm, last.id, "warn", "This agent cannot restore sessions: the conversation continues in a new agent session, without the earlier messages in its context."));
      }
      rt.liveGen = c.gen;
      this.persist(rt);
    } catch (err) {
      throw this.mapError(err, "reopen the session");
    }
  }

  /* ------------------------------------------------------------------ sessions */

  private async resolveDirectory(dir: string | undefined): Promise<string> {
    const root = await fs.realpath(this.defaultCwd).catch(() => this.defaultCwd);
    if (!dir) return root;
    const workspace = await fs.realpath(this.opts.workspace).catch(() => this.opts.workspace);
    let real: string;
    try {
      real = await fs.realpath(path.resolve(root, dir));
    } catch {
      throw ApiError.badRequest(`Directory does not exist: ${dir}`);
    }
    const st = await fs.stat(real);
    if (!st.isDirectory()) throw ApiError.badRequest(`Not a directory: ${dir}`);
    if (!isInside(root, real) && !isInside(workspace, real)) throw new ApiError("forbidden", `Directory is outside the workspace: ${dir}`);
    return real;
  }

  async listSessions(q: { search?: string; limit: number; cursor?: string }): Promise<{ items: Session[]; nextCursor?: string }> {
    if (this.agentCaps.sessionCapabilities?.list && this.current) {
      await this.refreshListed().catch((err: unknown) => log.warn("session/list failed", { backend: this.id, error: describeError(err) }));
    }
    const byId = new Map<string, Session>();
    for (const [id] of this.listed) {
      const m = this.listedMeta(id);
      if (m) byId.set(id, m.session);
    }
    for (const t of this.opts.store.listTranscripts(this.id)) {
      const l = this.listed.get(t.sessionId);
      const title = t.session.title === DEFAULT_TITLE && l?.title ? l.title : t.session.title;
      byId.set(t.sessionId, { ...t.session, title, updatedAt: Math.max(t.session.updatedAt, l?.updatedAt ?? 0), status: "idle" });
    }
    for (const rt of this.runtimes.values()) {
      const prev = byId.get(rt.id);
      const s = this.sessionOf(rt);
      byId.set(rt.id, { ...s, updatedAt: Math.max(s.updatedAt, prev?.updatedAt ?? 0) });
    }
    let all = [...byId.values()].map((s) => {
      const { settings: _settings, ...rest } = s;
      return rest;
    });
    if (q.search) {
      const needle = q.search.toLowerCase();
      all = all.filter((s) => s.title.toLowerCase().includes(needle));
    }
    all.sort((a, b) => b.updatedAt - a.updatedAt);
    const offset = q.cursor ? Number.parseInt(Buffer.from(q.cursor, "base64url").toString(), 10) || 0 : 0;
    const items = all.slice(offset, offset + q.limit);
    const more = all.length > offset + q.limit;
    return { items, ...(more ? { nextCursor: Buffer.from(String(offset + q.limit)).toString("base64url") } : {}) };
  }

  async createSession(input: CreateSessionBody): Promise<Session> {
    const cwd = await this.resolveDirectory(input.directory);
    const res = await this.call("create a session", (c) => c.conn.agent.request(methods.agent.session.new, { cwd, mcpServers: [] }));
    const now = Date.now();
    const session: Session = { id: res.sessionId, backendId: this.id, title: input.title ?? DEFAULT_TITLE, directory: cwd, createdAt: now, updatedAt: now, status: "idle" };
    const rt = this.newRuntime(session, cwd, { liveGen: this.current?.gen ?? 0, titleLocked: Boolean(input.title) });
    this.register(rt);
    this.emit(rt, applySessionSetup(rt.norm, res));
    this.persist(rt);
    return this.sessionOf(rt);
  }

  async getSession(sessionId: string): Promise<Session> {
    return this.sessionOf(await this.runtime(sessionId));
  }

  async renameSession(sessionId: string, title: string): Promise<Session> {
    const rt = await this.runtime(sessionId);
    this.emit(rt, renameSession(rt.norm, title, Date.now()));
    this.persist(rt);
    return this.sessionOf(rt);
  }

  async deleteSession(sessionId: string): Promise<void> {
    if (!this.agentCaps.sessionCapabilities?.delete) throw ApiError.conflict(`${this.opts.label} cannot delete sessions`);
    const rt = await this.runtime(sessionId);
    await this.call("delete the session", (c) => c.conn.agent.request(methods.agent.session.delete, { sessionId: rt.agentId }));
    this.runtimes.delete(rt.id);
    this.byAgent.delete(rt.agentId);
    this.listed.delete(rt.id);
    this.opts.store.deleteTranscript(this.id, rt.id);
  }

  /** `sessionCapabilities.fork` is in ACP's unstable schema only. */
  private canFork(): boolean {
    const sc = this.agentCaps.sessionCapabilities as { fork?: unknown } | null | undefined;
    return sc?.fork !== undefined && sc.fork !== null;
  }

  /**
   * `session/fork` where the agent advertises it: a new agent session with the whole context of this
   * one. ACP has no per-message fork, so a message id is accepted only when it is the last message
   * (the same thing). The console shows the fork with a copy of the transcript it had.
   */
  async fork(sessionId: string, messageId?: string): Promise<Session> {
    if (!this.canFork()) throw ApiError.conflict(`${this.opts.label} cannot fork sessions`);
    const rt = await this.runtime(sessionId);
    if (messageId !== undefined) {
      if (!rt.state.messages.some((m) => m.id === messageId)) throw ApiError.notFound(`Unknown message: ${messageId}`);
      if (rt.state.messages.at(-1)?.id !== messageId) throw ApiError.conflict(`${this.opts.label} can fork only a whole session, not from an earlier message`);
    }
    if (rt.turn && !rt.turn.done) throw ApiError.conflict("Wait for the running turn to end before forking");
    await this.attach(rt);
    const params: ForkSessionRequest = { sessionId: rt.agentId, cwd: rt.cwd, mcpServers: [] };
    const res = await this.call("fork the session", (c) => c.conn.agent.request<ForkSessionResponse>(unstableMethods.agent.session.fork, params));
    // Agents may replay the history into the new session (opencode acp does, like session/load):
    // the console shows its own copy instead, so the replayed turns are dropped; commands, modes and
    // the like still apply.
    await drainIncoming();
    this.early = this.early.filter((n) => n.sessionId !== res.sessionId || !REPLAYED_UPDATES.has(n.update.sessionUpdate));
    const now = Date.now();
    const usage = rt.state.session?.usage;
    const session: Session = {
      id: res.sessionId,
      backendId: this.id,
      title: `${rt.norm.session.title} (fork)`,
      directory: rt.cwd,
      createdAt: now,
      updatedAt: now,
      status: "idle",
      ...(usage ? { usage } : {}),
    };
    const fork = this.newRuntime(session, rt.cwd, {
      liveGen: this.current?.gen ?? 0,
      messages: structuredClone(rt.state.messages),
      todos: structuredClone(rt.state.todos),
    });
    this.register(fork);
    this.emit(fork, applySessionSetup(fork.norm, res));
    this.persist(fork);
    return this.sessionOf(fork);
  }

  async loadSession(sessionId: string): Promise<LoadedSession> {
    const rt = await this.runtime(sessionId);
    const s = rt.state;
    return { session: this.sessionOf(rt), messages: s.messages, interrupts: s.interrupts, todos: s.todos };
  }

  /** Changes a session option (mode, model, config option) through the agent. */
  async setSessionOption(sessionId: string, id: string, value: string | boolean): Promise<Session> {
    const rt = await this.runtime(sessionId);
    const opt = rt.norm.session.settings?.options.find((o) => o.id === id);
    if (!opt) throw ApiError.notFound(`Unknown session option: ${id}`);
    if (opt.type === "select" && (typeof value !== "string" || !opt.choices.some((c) => c.value === value))) throw ApiError.badRequest(`Not a choice of ${opt.name}: ${String(value)}`);
    if (opt.type === "boolean" && typeof value !== "boolean") throw ApiError.badRequest(`${opt.name} takes true or false`);
    await this.attach(rt);
    if (opt.source === "mode") {
      await this.call("switch the mode", (c) => c.conn.agent.request(methods.agent.session.setMode, { sessionId: rt.agentId, modeId: String(value) }));
      this.emit(rt, applyUpdate(rt.norm, { sessionUpdate: "current_mode_update", currentModeId: String(value) }, Date.now()));
    } else {
      const params = typeof value === "boolean" ? { sessionId: rt.agentId, configId: id, type: "boolean" as const, value } : { sessionId: rt.agentId, configId: id, value };
      const res = await this.call("change the option", (c) => c.conn.agent.request(methods.agent.session.setConfigOption, params));
      this.emit(rt, applySessionSetup(rt.norm, res));
    }
    this.persist(rt);
    return this.sessionOf(rt);
  }

  /* ------------------------------------------------------------------ turns */

  private toContent(parts: PromptPart[]): ContentBlock[] {
    const image = this.agentCaps.promptCapabilities?.image === true;
    return parts.map((p): ContentBlock => {
      if (p.type === "text") return { type: "text", text: p.text };
      const m = /^data:([^;,]+);base64,(.*)$/s.exec(p.url);
      if (m && image && p.mime.startsWith("image/")) return { type: "image", mimeType: m[1]!, data: m[2]! };
      return { type: "resource_link", uri: p.url, name: p.filename ?? "file", mimeType: p.mime };
    });
  }

  async prompt(sessionId: string, body: PromptBody): Promise<void> {
    const rt = await this.runtime(sessionId);
    if (rt.turn && !rt.turn.done) {
      rt.queued.push(body);
      return;
    }
    const c = await this.attach(rt);
    this.startTurn(rt, c, body);
  }

  private startTurn(rt: Runtime, c: Conn, body: PromptBody) {
    const now = Date.now();
    const t = beginTurn(rt.norm, body.parts, now);
    const firstText = body.parts.find((p): p is Extract<PromptPart, { type: "text" }> => p.type === "text")?.text;
    const events = [...t.events, { type: "session.status", status: "busy" } as TimelineEvent];
    if (firstText && rt.norm.session.title === DEFAULT_TITLE) {
      // a provisional title until the agent names the session
      events.push(...applyUpdate(rt.norm, { sessionUpdate: "session_info_update", title: firstText.replace(/\s+/g, " ").trim().slice(0, 80) }, now));
    }
    const info: MessageInfo = { id: t.assistantId, sessionId: rt.id, role: "assistant", createdAt: now + 1, ...(rt.norm.session.model ? { model: rt.norm.session.model } : {}) };
    const turn: Turn = { info, gen: c.gen, done: false };
    rt.turn = turn;
    this.emit(rt, events);
    this.persist(rt);
    c.conn.agent
      .request(methods.agent.session.prompt, { sessionId: rt.agentId, prompt: this.toContent(body.parts) })
      .then(async (result) => {
        await drainIncoming();
        this.finishTurn(rt, turn, result);
      })
      .catch(async (err: unknown) => {
        // A dying agent closes the connection before its exit is reported: wait for the exit so the
        // turn says what happened to the process.
        if (rpcCode(err) === undefined) await this.waitExit(turn.gen, 3000);
        if (turn.done) return;
        const mapped = this.mapError(err, "run the prompt");
        this.failRunningTurn(rt, turn, { name: mapped.code === "backend_down" ? "AgentUnavailable" : "AgentError", message: mapped.message });
      });
  }

  private endOfTurn(rt: Runtime, turn: Turn) {
    turn.done = true;
    if (turn.cancelTimer) clearTimeout(turn.cancelTimer);
    if (rt.turn === turn) rt.turn = undefined;
    for (const [id, p] of this.pending) if (p.sessionId === rt.id) this.settle(id, "cancelled", { outcome: { outcome: "cancelled" } }, p);
  }

  private finishTurn(rt: Runtime, turn: Turn, result: unknown) {
    if (turn.done) return;
    this.endOfTurn(rt, turn);
    this.emit(rt, [...endTurn(rt.norm, turn.info.id, turn.info, result, Date.now()), { type: "session.status", status: "idle" }]);
    this.persist(rt);
    this.next(rt);
  }

  private failRunningTurn(rt: Runtime, turn: Turn, error: { name: string; message: string }) {
    if (turn.done) return;
    this.endOfTurn(rt, turn);
    this.emit(rt, [
      ...failTurn(rt.norm, turn.info.id, turn.info, error, Date.now()),
      { type: "error", message: error.message, code: error.name },
      { type: "session.status", status: "idle" },
    ]);
    this.persist(rt);
    this.next(rt);
  }

  private next(rt: Runtime) {
    const body = rt.queued.shift();
    if (!body) return;
    this.attach(rt)
      .then((c) => this.startTurn(rt, c, body))
      .catch((err: unknown) => {
        this.emit(rt, [{ type: "error", message: this.mapError(err, "run the queued prompt").message }]);
        rt.queued.length = 0;
      });
  }

  async abort(sessionId: string): Promise<void> {
    const rt = await this.runtime(sessionId);
    rt.queued.length = 0;
    const turn = rt.turn;
    if (!turn || turn.done) return;
    // ACP: after session/cancel, pending permission requests are answered "cancelled".
    for (const [id, p] of this.pending) if (p.sessionId === rt.id) this.settle(id, "cancelled", { outcome: { outcome: "cancelled" } }, p);
    const c = this.current;
    if (c && c.gen === turn.gen) {
      await c.conn.agent.notify(methods.agent.session.cancel, { sessionId: rt.agentId }).catch(() => undefined);
    }
    // An agent that ignores the cancel must not leave the session busy forever.
    turn.cancelTimer ??= setTimeout(() => {
      if (!turn.done) this.finishTurn(rt, turn, { stopReason: "cancelled" });
    }, this.opts.cancelGraceMs ?? CANCEL_GRACE_MS);
    turn.cancelTimer.unref?.();
  }

  /* ------------------------------------------------------------------ permissions */

  private onPermission(gen: number, params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> {
    const cancelled: RequestPermissionResponse = { outcome: { outcome: "cancelled" } };
    const rt = this.byAgent.get(params.sessionId);
    if (!rt || this.stopping) return Promise.resolve(cancelled);
    // Request ids start at 0 and repeat after a restart: interrupt ids are our own.
    const id = `perm_${randomBytes(9).toString("base64url")}`;
    const r = permissionRequest(rt.norm, params, id, Date.now());
    if (!r) {
      log.warn("permission request without usable options; answering cancelled", { backend: this.id });
      return Promise.resolve(cancelled);
    }
    return new Promise<RequestPermissionResponse>((resolve) => {
      const p: PendingPermission = { sessionId: rt.id, interrupt: r.interrupt, gen, resolve };
      this.pending.set(id, p);
      this.emit(rt, r.events);
      signal.addEventListener("abort", () => this.settle(id, "cancelled", cancelled), { once: true });
    });
  }

  private settle(id: string, outcome: string, response: RequestPermissionResponse, p = this.pending.get(id)) {
    if (!p || !this.pending.has(id)) return;
    this.pending.delete(id);
    this.resolvedInterrupts.add(id);
    if (this.resolvedInterrupts.size > 1000) this.resolvedInterrupts.delete(this.resolvedInterrupts.values().next().value!);
    const rt = this.runtimes.get(p.sessionId);
    if (rt && outcome === "reject" && p.interrupt.toolCallId) markRejected(rt.norm, p.interrupt.toolCallId);
    p.resolve(response);
    if (rt) this.emit(rt, [{ type: "interrupt.resolved", interruptId: id, outcome }]);
  }

  async answerInterrupt(sessionId: string, interruptId: string, answer: InterruptAnswer): Promise<void> {
    const p = this.pending.get(interruptId);
    if (!p || p.sessionId !== sessionId) {
      if (this.resolvedInterrupts.has(interruptId)) throw ApiError.conflict(`Interrupt ${interruptId} was already answered`);
      throw ApiError.notFound(`Unknown interrupt: ${interruptId}`);
    }
    if ("dismiss" in answer) {
      this.settle(interruptId, "cancelled", { outcome: { outcome: "cancelled" } }, p);
      return;
    }
    if (!("decision" in answer)) throw ApiError.badRequest("A permission request is answered with {decision} or {dismiss: true}");
    const option = p.interrupt.permission?.options.find((o) => o.kind === answer.decision);
    if (!option) throw ApiError.badRequest(`This request offers no "${answer.decision}" option`);
    if (answer.message) log.info("ACP cannot pass a message with a permission answer; it is dropped", { backend: this.id });
    this.settle(interruptId, answer.decision, { outcome: { outcome: "selected", optionId: option.id } }, p);
  }

  /* ------------------------------------------------------------------ client-side fs */

  /** A path the agent may touch: absolute, and (after resolving symlinks) inside the session's directory. */
  private async confine(agentSessionId: string, p: string, forWrite: boolean): Promise<string> {
    const rt = this.byAgent.get(agentSessionId);
    if (!rt) throw RequestError.sessionNotFound(agentSessionId);
    if (!path.isAbsolute(p)) throw RequestError.invalidParams({ path: p }, "path must be absolute");
    const root = await fs.realpath(rt.cwd);
    let real: string;
    try {
      real = await fs.realpath(p);
    } catch {
      if (!forWrite) throw RequestError.resourceNotFound(p);
      let parent: string;
      try {
        parent = await fs.realpath(path.dirname(p));
      } catch {
        throw RequestError.resourceNotFound(path.dirname(p));
      }
      real = path.join(parent, path.basename(p));
    }
    if (!isInside(root, real)) throw RequestError.invalidParams({ path: p }, "path is outside the session's working directory");
    return real;
  }

  async readTextFile(agentSessionId: string, p: string, line?: number, limit?: number): Promise<string> {
    const real = await this.confine(agentSessionId, p, false);
    const text = await fs.readFile(real, "utf8");
    if (line === undefined && limit === undefined) return text;
    const lines = text.split("\n");
    const start = Math.max(0, (line ?? 1) - 1);
    return lines.slice(start, limit !== undefined ? start + limit : undefined).join("\n");
  }

  async writeTextFile(agentSessionId: string, p: string, content: string): Promise<void> {
    const real = await this.confine(agentSessionId, p, true);
    await fs.writeFile(real, content, "utf8");
  }

  /** Restarts the agent process (after a login, or when it is wedged); sessions reattach on their next prompt. */
  async restart(): Promise<void> {
    if (this.stopping) throw ApiError.conflict(`${this.opts.label} is stopped`);
    this.setStatus("connecting", "Restarting…");
    if (this.supervisor.pid === undefined) this.supervisor.start();
    else this.supervisor.kill("SIGTERM");
  }

  /** For tests: wait until the agent is up. */
  async ready(timeoutMs = READY_TIMEOUT_MS): Promise<void> {
    await this.whenReady(timeoutMs);
  }

  /** For tests and the fault test: the live process is killed; the supervisor restarts it. */
  killProcess(signal: NodeJS.Signals = "SIGKILL"): void {
    this.supervisor.kill(signal);
  }
}
