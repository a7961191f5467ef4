import "server-only";
import { randomBytes } from "node:crypto";
import path from "node:path";
import type { CreateSessionBody, PromptBody, PromptPart } from "@/lib/api";
import type {
  Backend,
  BackendStatus,
  Capabilities,
  Message,
  ModelRef,
  Session,
  TimelineEvent,
  Usage,
} from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import type { Store } from "../../store/store";
import { resolveSessionDirectory } from "../shared/files";
import { pageMessages } from "../shared/session-list";
import { TranscriptStore } from "../shared/transcripts";
import { arr, num, obj, str, type Obj } from "../shared/values";
import type { BackendAdapter, EventSink, LoadedSession, ModelInfo } from "../types";
import { CONTEXT_MAX_CHARS, earlierConversation } from "./context";
import { applyZotEvent, beginCompaction, beginTurn, endTurn, turnNotice } from "./normalize";
import { ZotProcess, ZotStartError, type HelloInfo } from "./process";
import { DEFAULT_TITLE, ZotSessions, type Live, type Runtime, type Turn } from "./sessions";

export interface ZotAdapterOptions {
  id: string;
  label: string;
  /** `[command, ...args]` of `zot rpc`, e.g. `["zot", "rpc", "--provider", "openai", "--model", "gpt-4.1"]`. */
  command: string[];
  /** Extra environment (provider keys welcome: never sent to the browser). */
  env?: Record<string, string>;
  /** The default directory of new sessions (and where the start-up check runs). */
  cwd?: string;
  /** The console's workspace root: session directories stay inside it (or inside `cwd`). */
  workspace: string;
  store: Store;
  source?: "env" | "store";
  /** A session's idle process is closed after this long (default 30 min); its next prompt starts another. */
  idleMs?: number;
  /** How long zot may take to end a turn after `abort` before the console ends it (default 10 s). */
  abortGraceMs?: number;
  /** Bound of the earlier conversation given to a new process (default `CONTEXT_MAX_CHARS`). */
  contextMaxChars?: number;
}

const CAPABILITIES: Capabilities = {
  fork: false,
  forkMessages: false,
  revert: false,
  diff: false,
  compact: true,
  models: true,
  share: false,
  history: true,
  abort: true,
  rename: true,
  delete: true,
  search: true,
  directories: true,
  // `@` mentions: `rg --files` in the session's directory; the prompt keeps `@path` in its text.
  mentions: { search: "workspace", carry: "text" },
  interrupts: { permission: false, question: false, input: false },
};
const IDLE_MS = 30 * 60_000;
const ABORT_GRACE_MS = 10_000;
const LOG_LINES = 300;
const zeroUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0 });
const newId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${randomBytes(6).toString("hex")}`;

/**
 * zot adapter (docs/backends/zot.md): `zot rpc` speaks its own command/response/event NDJSON, one
 * process per conversation, and persists nothing. So the console owns the session list and the
 * transcript (../shared/transcripts.ts): each session gets its own process on its first prompt
 * (`--cwd` its directory, a fresh `ZOTCORE_RPC_TOKEN`, `hello`), and a session whose process is gone
 * (console restart, crash, idle close) gets a new one given the earlier conversation as context
 * (the newest turns that fit, over stdin ahead of its first prompt), marked in the timeline. A short-lived
 * process at start-up checks the command (hello, protocol version, `get_models`) for the backend's
 * status. zot runs its tools unattended: no interrupts.
 */
export class ZotAdapter implements BackendAdapter {
  readonly id: string;
  private status: BackendStatus = "connecting";
  private error: string | undefined;
  private hello: HelloInfo = {};
  private modelList: { id: string; provider?: string; contextWindow?: number }[] = [];
  private sessions: ZotSessions;
  private transcripts: TranscriptStore;
  private defaultCwd: string;
  private logRing: string[] = [];
  private crashes = 0;
  private lastExit: string | undefined;
  private stopped = false;
  private probing: Promise<void> | undefined;
  private probeTimer: ReturnType<typeof setTimeout> | undefined;
  private probeDelayMs = 5_000;

  constructor(
    private opts: ZotAdapterOptions,
    private sink: EventSink,
  ) {
    this.id = opts.id;
    this.defaultCwd = path.resolve(opts.cwd ?? opts.workspace);
    this.transcripts = new TranscriptStore(opts.store, opts.id);
    this.sessions = new ZotSessions(opts.id, this.defaultCwd, this.transcripts, sink);
  }

  /* ------------------------------------------------------------------ info */

  info(): Backend {
    const masked = this.opts.env ? Object.fromEntries(Object.keys(this.opts.env).map((k) => [k, "***"])) : undefined;
    const live = [...this.sessions.all()].filter((rt) => rt.live).length;
    return {
      id: this.id,
      kind: "zot",
      label: this.opts.label,
      status: this.status,
      ...(this.error ? { error: this.error } : {}),
      capabilities: CAPABILITIES,
      location: this.opts.command.join(" "),
      ...(this.hello.version ? { version: this.hello.version } : {}),
      ...(this.opts.source ? { source: this.opts.source } : {}),
      config: {
        command: this.opts.command,
        ...(masked ? { env: masked } : {}),
        ...(this.opts.cwd ? { cwd: this.opts.cwd } : {}),
      },
      // One process per session: how many run now, how many died on their own.
      process: {
        state: this.stopped ? "stopped" : live > 0 ? "running" : "idle",
        restarts: this.crashes,
        ...(this.lastExit ? { lastExit: this.lastExit } : {}),
      },
    };
  }

  /** stderr of the start-up checks and of every session's process (the ended ones' tails kept). */
  logs(): string[] {
    const liveLogs = [...this.sessions.all()].flatMap((rt) =>
      rt.live ? rt.live.zp.logs().map((l) => `[${rt.id}] ${l}`) : [],
    );
    return [...this.logRing, ...liveLogs].slice(-LOG_LINES);
  }

  private keepLogs(zp: ZotProcess, tag: string) {
    this.logRing.push(...zp.logs().map((l) => `[${tag}] ${l}`));
    if (this.logRing.length > LOG_LINES) this.logRing.splice(0, this.logRing.length - LOG_LINES);
  }

  private setStatus(status: BackendStatus, error?: string) {
    if (this.status === status && this.error === error) return;
    this.status = status;
    this.error = error;
    this.sink.backendChanged(this.info());
  }

  /* ------------------------------------------------------------------ start-up check */

  async start(): Promise<void> {
    this.stopped = false;
    this.setStatus("connecting");
    void this.probe();
  }

  /**
   * Starts `zot rpc` once in the default directory: `hello` (token, protocol version) and
   * `get_models`, then closes it. Ready, or down with zot's reason (retried with backoff).
   */
  private probe(): Promise<void> {
    this.probing ??= (async () => {
      const zp = this.newProcess(
        this.defaultCwd,
        { onEvent: () => undefined, onExit: () => undefined },
        "start-up check",
      );
      try {
        this.hello = await zp.start();
        // `ping` (zot's health check): a process that answers hello but not ping is not ready.
        if (obj(await zp.connection?.call("ping")).pong !== true) throw new Error("zot answered hello but not ping");
        const data = obj(await zp.connection?.call("get_models"));
        this.modelList = arr(data.models).flatMap((m) => {
          const o = obj(m);
          const id = str(o.id);
          const provider = str(o.provider);
          const contextWindow = num(o.context_window);
          return id ? [{ id, ...(provider ? { provider } : {}), ...(contextWindow ? { contextWindow } : {}) }] : [];
        });
        this.probeDelayMs = 5_000;
        await zp.stop();
        this.keepLogs(zp, "start-up check");
        this.setStatus("ready");
      } catch (err) {
        // Its stderr first: the status names the reason, the logs show the rest.
        this.keepLogs(zp, "start-up check");
        this.setStatus("down", describeError(err));
        this.scheduleProbe();
        await zp.stop();
      } finally {
        this.probing = undefined;
      }
    })();
    return this.probing;
  }

  private scheduleProbe() {
    if (this.stopped || this.probeTimer) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = undefined;
      if (!this.stopped && this.status === "down") void this.probe();
    }, this.probeDelayMs);
    this.probeTimer.unref?.();
    this.probeDelayMs = Math.min(this.probeDelayMs * 2, 5 * 60_000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    await Promise.all(
      [...this.sessions.all()].map(async (rt) => {
        if (rt.idleTimer) clearTimeout(rt.idleTimer);
        if (rt.turn?.abortTimer) clearTimeout(rt.turn.abortTimer);
        const live = rt.live;
        rt.live = undefined;
        if (live) await live.zp.stop();
      }),
    );
  }

  /** Checks the command again (the settings page's Restart). Running sessions keep their processes. */
  async restart(): Promise<void> {
    this.setStatus("connecting");
    await this.probe();
  }

  /** For tests: until the start-up check has passed. */
  async ready(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.status !== "ready") {
      if (Date.now() > deadline)
        throw ApiError.down(`${this.opts.label} is not ready${this.error ? `: ${this.error}` : ""}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** For tests and the fault tests: every session's process is killed, as a crash would. */
  killProcesses(signal: NodeJS.Signals = "SIGKILL"): void {
    for (const rt of this.sessions.all()) rt.live?.zp.kill(signal);
  }

  /** The pid of a session's running process, if any. */
  pidOf(sessionId: string): number | undefined {
    return [...this.sessions.all()].find((rt) => rt.id === sessionId)?.live?.zp.pid;
  }

  /* ------------------------------------------------------------------ processes */

  /**
   * A `zot rpc` for `cwd`. Its command line carries nothing of the conversation (any local user can
   * read a process's arguments): a new process for a session with history is given the earlier
   * conversation over its stdin, in its first prompt (`runPrompt`).
   */
  private newProcess(
    cwd: string,
    handlers: { onEvent(f: Obj): void; onExit(d: string): void },
    tag: string,
  ): ZotProcess {
    return new ZotProcess({
      name: `${this.id} (zot ${tag})`,
      label: this.opts.label,
      command: [...this.opts.command, "--cwd", cwd],
      ...(this.opts.env ? { env: this.opts.env } : {}),
      cwd,
      ...handlers,
    });
  }

  /** The session's running process, or a new one. */
  private ensureProcess(rt: Runtime): Promise<Live> {
    if (rt.live?.zp.connection && !rt.live.zp.connection.closed) return Promise.resolve(rt.live);
    rt.starting ??= (async () => {
      const holder: { live?: Live } = {};
      const zp = this.newProcess(
        rt.cwd,
        {
          onEvent: (f) => holder.live && this.onEvent(rt, holder.live, f),
          onExit: (d) => holder.live && this.onProcessExit(rt, holder.live, d),
        },
        rt.id,
      );
      let hello: HelloInfo;
      try {
        hello = await zp.start();
      } catch (err) {
        this.keepLogs(zp, rt.id);
        const message = describeError(err);
        this.setStatus("down", message);
        this.scheduleProbe();
        throw err instanceof ZotStartError ? err : new ZotStartError(message);
      }
      const live: Live = {
        zp,
        hello,
        ...(hello.model ? { model: hello.model } : {}),
        base: rt.session.usage ?? zeroUsage(),
      };
      holder.live = live;
      rt.live = live;
      this.hello = { ...this.hello, ...hello };
      this.setStatus("ready");
      return live;
    })().finally(() => (rt.starting = undefined));
    return rt.starting;
  }

  private onProcessExit(rt: Runtime, live: Live, description: string) {
    this.keepLogs(live.zp, rt.id);
    if (rt.live === live) rt.live = undefined;
    log.warn("a zot process ended by itself", { backend: this.id, session: rt.id, description });
    this.crashes++;
    this.lastExit = description;
    this.sink.backendChanged(this.info());
    const turn = rt.turn;
    if (turn && !turn.done && turn.live === live) {
      this.finish(rt, turn, {
        failure: {
          name: "AgentExited",
          message: `${description} The next prompt starts a new zot process, given the earlier conversation.`,
        },
      });
    }
  }

  private closeWhenIdle(rt: Runtime) {
    if (rt.idleTimer) clearTimeout(rt.idleTimer);
    rt.idleTimer = setTimeout(() => {
      rt.idleTimer = undefined;
      const live = rt.live;
      if (!live || rt.turn) return;
      rt.live = undefined;
      void live.zp.stop().then(() => this.keepLogs(live.zp, rt.id));
      this.sink.backendChanged(this.info());
    }, this.opts.idleMs ?? IDLE_MS);
    rt.idleTimer.unref?.();
  }

  /* ------------------------------------------------------------------ events */

  private emit(rt: Runtime, events: TimelineEvent[]) {
    for (const e of events) this.sink.publish(this.id, rt.id, e);
  }

  private onEvent(rt: Runtime, live: Live, frame: Obj) {
    const turn = rt.turn;
    // Frames of no running turn of this process: a compaction's late `done`, or one after a local end.
    if (!turn || turn.done || !turn.started || turn.live !== live) return;
    if (frame.type === "done") return this.finish(rt, turn);
    const events = applyZotEvent(turn.z, frame, Date.now());
    if (frame.type === "usage") {
      const u = events.find((e): e is Extract<TimelineEvent, { type: "usage.updated" }> => e.type === "usage.updated");
      if (u) rt.session = { ...rt.session, usage: u.usage };
    }
    this.emit(rt, events);
    // The old build ends a compaction without `done`: `compact_done` ends it. An `error` is not the end
    // (the summary may follow); an old build that failed sends nothing more, so the turn ends after a grace.
    if (turn.kind === "compact" && frame.type === "compact_done") this.finish(rt, turn);
    else if (turn.kind === "compact" && frame.type === "error") {
      turn.abortTimer ??= setTimeout(() => this.finish(rt, turn), this.opts.abortGraceMs ?? ABORT_GRACE_MS);
      turn.abortTimer.unref?.();
    }
  }

  /* ------------------------------------------------------------------ sessions */

  async listSessions(q: {
    search?: string;
    limit: number;
    cursor?: string;
  }): Promise<{ items: Session[]; nextCursor?: string }> {
    return this.sessions.list(q);
  }

  async createSession(input: CreateSessionBody): Promise<Session> {
    const cwd = await resolveSessionDirectory(input.directory, this.defaultCwd, this.opts.workspace);
    const now = Date.now();
    const model = input.model ?? this.defaultModel();
    if (input.model) this.checkProvider(input.model);
    const session: Session = {
      id: newId("zot"),
      backendId: this.id,
      title: input.title || DEFAULT_TITLE,
      directory: cwd,
      createdAt: now,
      updatedAt: now,
      status: "idle",
      ...(model ? { model } : {}),
    };
    const rt = this.sessions.add(session, cwd);
    this.sessions.persist(rt, []);
    return this.sessions.sessionOf(rt);
  }

  async getSession(sessionId: string): Promise<Session> {
    return this.sessions.sessionOf(this.sessions.get(sessionId));
  }

  async renameSession(sessionId: string, title: string): Promise<Session> {
    const rt = this.sessions.get(sessionId);
    rt.session = { ...rt.session, title, updatedAt: Date.now() };
    const s = this.sessions.sessionOf(rt);
    this.emit(rt, [{ type: "session.updated", session: s }]);
    this.sessions.persist(rt);
    return s;
  }

  async deleteSession(sessionId: string): Promise<void> {
    const rt = this.sessions.get(sessionId);
    rt.queued.length = 0;
    if (rt.turn && !rt.turn.done) this.finish(rt, rt.turn, { aborted: true });
    if (rt.idleTimer) clearTimeout(rt.idleTimer);
    const live = rt.live;
    rt.live = undefined;
    this.sessions.forget(rt);
    if (live) await live.zp.stop();
  }

  async loadSession(sessionId: string): Promise<LoadedSession> {
    const rt = this.sessions.get(sessionId);
    return { session: this.sessions.sessionOf(rt), messages: this.sessions.messagesOf(rt), interrupts: [], todos: [] };
  }

  /** Pages through the transcript the console keeps. */
  async loadMessages(
    sessionId: string,
    q: { before?: string; limit: number },
  ): Promise<{ items: Message[]; nextCursor?: string }> {
    return pageMessages(this.sessions.messagesOf(this.sessions.get(sessionId)), q);
  }

  /* ------------------------------------------------------------------ models */

  private defaultModel(): ModelRef | undefined {
    return this.hello.model
      ? { ...(this.hello.provider ? { provider: this.hello.provider } : {}), id: this.hello.model }
      : undefined;
  }

  /** zot switches models within the provider it was started with only. */
  private checkProvider(model: ModelRef) {
    const provider = this.hello.provider;
    if (provider && model.provider && model.provider !== provider) {
      throw ApiError.badRequest(
        `zot switches models within its provider (${provider}) only; add another zot backend with --provider ${model.provider} for ${model.id}`,
      );
    }
  }

  async models(): Promise<{ items: ModelInfo[]; default?: ModelRef }> {
    if (this.modelList.length === 0) await this.probe();
    const provider = this.hello.provider ?? "zot";
    const items = this.modelList.map(
      (m): ModelInfo => ({
        provider: m.provider ?? provider,
        id: m.id,
        label: m.id,
        ...(m.id === this.hello.model ? { isDefault: true } : {}),
        ...(m.contextWindow ? { contextWindow: m.contextWindow } : {}),
      }),
    );
    const def = this.defaultModel();
    return { items, ...(def ? { default: def } : {}) };
  }

  private contextWindow(model: string | undefined): number | undefined {
    return this.modelList.find((m) => m.id === model)?.contextWindow;
  }

  /* ------------------------------------------------------------------ turns */

  /** The prompt as zot's `prompt` takes it: the text parts, and images as base64. Other files: 400. */
  private toZotPrompt(parts: PromptPart[]): { message: string; images: { mime_type: string; data: string }[] } {
    const texts: string[] = [];
    const images: { mime_type: string; data: string }[] = [];
    for (const p of parts) {
      if (p.type === "text") {
        texts.push(p.text);
        continue;
      }
      const m = /^data:([^;,]+);base64,(.*)$/s.exec(p.url);
      if (!m || !m[1]!.startsWith("image/"))
        throw ApiError.badRequest(`zot takes text and images only; ${p.filename ?? p.mime} cannot be attached`);
      images.push({ mime_type: m[1]!, data: m[2]! });
    }
    return { message: texts.join("\n\n"), images };
  }

  async prompt(sessionId: string, body: PromptBody): Promise<void> {
    const rt = this.sessions.get(sessionId);
    this.toZotPrompt(body.parts);
    if (body.model) this.checkProvider(body.model);
    if (rt.turn && !rt.turn.done) {
      rt.queued.push(body);
      return;
    }
    // The hub materializes the turn (and the transcript kept from it) even when no browser watches.
    await this.sink.openSession?.(this.id, rt.id);
    void this.runPrompt(rt, body);
  }

  private async runPrompt(rt: Runtime, body: PromptBody) {
    if (rt.idleTimer) clearTimeout(rt.idleTimer);
    const now = Date.now();
    const zotPrompt = this.toZotPrompt(body.parts);
    const model = body.model ?? rt.session.model;
    // A new process knows nothing: it is given the conversation so far (before this prompt).
    const fresh = !rt.live;
    const earlier = fresh
      ? earlierConversation(this.sessions.messagesOf(rt), this.opts.contextMaxChars ?? CONTEXT_MAX_CHARS)
      : undefined;
    const notice = earlier
      ? {
          level: "info" as const,
          text: `New zot process for this session: zot keeps no history, so Switchboard gave it the earlier conversation as context (${earlier.included === earlier.total ? `all ${earlier.total} messages` : `the newest ${earlier.included} of ${earlier.total} messages`}).`,
        }
      : undefined;
    const ids = { userId: newId("msg"), assistantId: newId("msg") };
    const contextWindow = this.contextWindow(model?.id);
    // The session's totals are what earlier processes used plus this process's running `cumulative`.
    const base = rt.live?.base ?? rt.session.usage ?? zeroUsage();
    const begin = beginTurn(rt.id, ids, body.parts, now, {
      ...(model ? { model } : {}),
      base,
      ...(contextWindow ? { contextWindow } : {}),
      ...(notice ? { notice } : {}),
    });
    const turn: Turn = { z: begin.turn, kind: "prompt", started: false, done: false, aborted: false };
    rt.turn = turn;
    const firstText = body.parts.find((p) => p.type === "text")?.text;
    if (firstText && rt.session.title === DEFAULT_TITLE)
      rt.session = { ...rt.session, title: firstText.replace(/\s+/g, " ").trim().slice(0, 80) };
    rt.session = { ...rt.session, updatedAt: now, ...(model ? { model } : {}) };
    this.emit(rt, [
      ...begin.events,
      { type: "session.updated", session: this.sessions.sessionOf(rt) },
      { type: "session.status", status: "busy" },
    ]);
    this.sessions.persist(rt);
    try {
      const live = await this.ensureProcess(rt);
      turn.live = live;
      if (turn.done) return;
      if (turn.aborted) return this.finish(rt, turn, { aborted: true });
      const conn = live.zp.connection;
      if (!conn) throw new ZotStartError("The zot process ended before the prompt could be sent.");
      if (model && model.id !== live.model) await this.switchModel(rt, turn, live, model.id);
      // zot cannot load a transcript (its RPC mode keeps no sessions): a new process gets the earlier
      // conversation ahead of the prompt, over stdin, and keeps it in its own transcript from then on.
      const message = earlier ? `${earlier.text}\n\n# The new message\n\n${zotPrompt.message}` : zotPrompt.message;
      const r = await conn.request("prompt", { ...zotPrompt, message }, (res) => {
        if (res.success) turn.started = true;
      });
      if (!r.success && !turn.done)
        this.finish(rt, turn, {
          failure: { name: "ZotError", message: `zot refused the prompt: ${r.error ?? "no reason given"}` },
        });
    } catch (err) {
      if (turn.done) return;
      const message = describeError(err);
      this.finish(rt, turn, {
        failure: { name: err instanceof ZotStartError ? "ZotStartFailed" : "AgentError", message },
      });
    }
  }

  /** `set_model` before a prompt that asks for another model; a refusal is a notice, the prompt goes on. */
  private async switchModel(rt: Runtime, turn: Turn, live: Live, model: string) {
    const r = await live.zp.connection!.request("set_model", { model });
    if (r.success) {
      live.model = model;
      return;
    }
    this.emit(
      rt,
      turnNotice(
        turn.z,
        "warn",
        `zot did not switch to ${model}: ${r.error ?? "no reason given"}. The prompt runs with ${live.model ?? "its current model"}.`,
      ),
    );
    const current = live.model
      ? { ...(live.hello.provider ? { provider: live.hello.provider } : {}), id: live.model }
      : undefined;
    if (current) {
      rt.session = { ...rt.session, model: current };
      turn.z.info = { ...turn.z.info, model: current };
      this.emit(rt, [
        { type: "message.updated", message: turn.z.info },
        { type: "session.updated", session: this.sessions.sessionOf(rt) },
      ]);
    }
  }

  /** The turn is over: its message completed, the session idle and kept, the next queued prompt started. */
  private finish(
    rt: Runtime,
    turn: Turn,
    opts: { aborted?: boolean; failure?: { name: string; message: string } } = {},
  ) {
    if (turn.done) return;
    turn.done = true;
    if (turn.abortTimer) clearTimeout(turn.abortTimer);
    if (rt.turn === turn) rt.turn = undefined;
    const now = Date.now();
    const events = endTurn(turn.z, now, {
      aborted: opts.aborted ?? turn.aborted,
      ...(opts.failure ? { failure: opts.failure } : {}),
    });
    if (opts.failure) events.push({ type: "error", message: opts.failure.message, code: opts.failure.name });
    rt.session = { ...rt.session, updatedAt: now };
    events.push(
      { type: "session.updated", session: this.sessions.sessionOf(rt) },
      { type: "session.status", status: "idle" },
    );
    this.emit(rt, events);
    this.sessions.persist(rt);
    const next = rt.queued.shift();
    if (next) void this.runPrompt(rt, next);
    else if (rt.live) this.closeWhenIdle(rt);
  }

  async abort(sessionId: string): Promise<void> {
    const rt = this.sessions.get(sessionId);
    rt.queued.length = 0;
    const turn = rt.turn;
    if (!turn || turn.done) return;
    turn.aborted = true;
    const conn = turn.live?.zp.connection;
    // Not sent yet (the process is starting): runPrompt ends it as stopped.
    if (!conn) return;
    void conn.request("abort").catch(() => undefined);
    // zot that does not end the turn must not leave the session busy: end it here, and the wedged
    // process goes (the next prompt starts another, given the conversation).
    turn.abortTimer ??= setTimeout(() => {
      if (turn.done) return;
      const live = turn.live;
      this.finish(rt, turn, { aborted: true });
      if (live && rt.live === live) {
        rt.live = undefined;
        void live.zp.stop().then(() => this.keepLogs(live.zp, rt.id));
      }
    }, this.opts.abortGraceMs ?? ABORT_GRACE_MS);
    turn.abortTimer.unref?.();
  }

  /**
   * `compact`: zot summarises its in-memory transcript. A session whose process is gone has nothing
   * in zot to compact (its next process gets the bounded context instead): 409.
   */
  async compact(sessionId: string): Promise<void> {
    const rt = this.sessions.get(sessionId);
    if (rt.turn && !rt.turn.done) throw ApiError.conflict("Wait for the running turn to end before compacting");
    const live = rt.live;
    const conn = live?.zp.connection;
    if (!live || !conn || conn.closed) {
      throw ApiError.conflict(
        "zot holds no conversation for this session right now (its process has ended); the next prompt gives a new process the earlier conversation, compact after that",
      );
    }
    if (rt.idleTimer) clearTimeout(rt.idleTimer);
    await this.sink.openSession?.(this.id, rt.id);
    const model = live.model
      ? { ...(live.hello.provider ? { provider: live.hello.provider } : {}), id: live.model }
      : undefined;
    const begin = beginCompaction(rt.id, { markerId: newId("msg"), summaryId: newId("msg") }, Date.now(), {
      ...(model ? { model } : {}),
      base: live.base,
    });
    const turn: Turn = { z: begin.turn, kind: "compact", live, started: false, done: false, aborted: false };
    rt.turn = turn;
    this.emit(rt, [...begin.events, { type: "session.status", status: "busy" }]);
    try {
      const r = await conn.request("compact", {}, (res) => {
        if (res.success) turn.started = true;
      });
      if (!r.success)
        this.finish(rt, turn, {
          failure: { name: "ZotError", message: `zot refused to compact: ${r.error ?? "no reason given"}` },
        });
    } catch (err) {
      this.finish(rt, turn, { failure: { name: "AgentError", message: describeError(err) } });
    }
  }
}
