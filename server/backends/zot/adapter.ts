import "server-only";
import type { CreateSessionBody, PromptBody } from "@/lib/api";
import type { Backend, Capabilities, Message, ModelRef, Session } from "@/lib/model";
import { describeError } from "../../errors";
import { log } from "../../log";
import { resolveSessionDirectory } from "../shared/files";
import type { StdioAdapterOptions } from "../shared/kind";
import { firstPage, pageMessages } from "../shared/session-list";
import { ProbedShell, shellIdentity } from "../shared/stdio-shell";
import { keptSessions } from "../shared/session-records";
import { obj, type Obj } from "../shared/values";
import type { BackendAdapter, EventSink, LoadedSession, ModelInfo } from "../types";
import { ZotModels } from "./models";
import { ZotProcess, ZotStartError, type HelloInfo } from "./process";
import { clearStopGrace, dropQueue, runningTurn } from "../shared/turn-lifecycle";
import { DEFAULT_TITLE, ZotSessions, type Live, type Runtime } from "./sessions";
import { newId, ZotTurns, zeroUsage } from "./turns";
import { MANAGED_SESSIONS } from "../shared/capabilities";

/**
 * `command` is `zot rpc` with its flags, e.g. `["zot", "rpc", "--provider", "openai", "--model",
 * "gpt-4.1"]`; `env` may carry provider keys; `cwd` is also where the start-up check runs.
 */
export interface ZotAdapterOptions extends StdioAdapterOptions {
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
  ...MANAGED_SESSIONS,
  // `@` mentions: `rg --files` in the session's directory; the prompt keeps `@path` in its text.
  mentions: { search: "workspace", carry: "text" },
  interrupts: { permission: false, question: false, input: false },
};
const IDLE_MS = 30 * 60_000;

/**
 * zot (`zot rpc`, docs/backends/zot.md): one process per session, started on its first prompt, and
 * nothing persisted by zot, so the console keeps the session list and transcripts; a new process
 * gets the earlier conversation (./earlier-turns.ts). A start-up check of the command gives the
 * backend's status (`ProbedShell`). Turns in ./turns.ts, models in ./models.ts; no interrupts.
 */
export class ZotAdapter implements BackendAdapter {
  readonly id: string;
  private shell: ProbedShell;
  private catalog = new ZotModels();
  private sessions: ZotSessions;
  private turns: ZotTurns;
  private defaultCwd: string;

  constructor(
    private opts: ZotAdapterOptions,
    sink: EventSink,
  ) {
    this.id = opts.id;
    const kept = keptSessions(opts, sink);
    this.defaultCwd = kept.defaultCwd;
    this.sessions = new ZotSessions(opts.id, kept);
    this.shell = new ProbedShell(
      {
        ...shellIdentity(opts, "zot"),
        sink,
        describe: () => ({ capabilities: CAPABILITIES, version: this.catalog.hello.version }),
      },
      {
        probe: () => this.probe(),
        // One process per session: how many run now (the ended ones' exits are the shell's restarts).
        running: () => [...this.sessions.all()].filter((rt) => rt.live).length,
        liveLogs: () =>
          [...this.sessions.all()].flatMap((rt) => (rt.live ? rt.live.zp.logs().map((l) => `[${rt.id}] ${l}`) : [])),
      },
    );
    this.turns = new ZotTurns({
      backendId: opts.id,
      sink,
      sessions: this.sessions,
      models: this.catalog,
      ensureProcess: (rt) => this.ensureProcess(rt),
      closeWhenIdle: (rt) => this.closeWhenIdle(rt),
      retire: (rt, live) => this.retire(rt, live),
      abortGraceMs: opts.abortGraceMs,
      contextMaxChars: opts.contextMaxChars,
    });
  }

  /* ------------------------------------------------------------------ info and the start-up check */

  info(): Backend {
    return this.shell.info();
  }

  /** stderr of the start-up checks and of every session's process (the ended ones' tails kept). */
  logs(): string[] {
    return this.shell.logs();
  }

  async start(): Promise<void> {
    await this.shell.start();
  }

  /**
   * Starts `zot rpc` once in the default directory: `hello` (token, protocol version), `ping` and
   * `get_models`, then closes it. The shell marks the backend ready, or down with zot's reason
   * (checked again with backoff).
   */
  private async probe(): Promise<void> {
    const zp = this.newProcess(
      this.defaultCwd,
      { onEvent: () => undefined, onExit: () => undefined },
      "start-up check",
    );
    try {
      this.catalog.hello = await zp.start();
      // `ping` (zot's health check): a process that answers hello but not ping is not ready.
      if (obj(await zp.connection?.call("ping")).pong !== true) throw new Error("zot answered hello but not ping");
      this.catalog.read(await zp.connection?.call("get_models"));
      await zp.stop();
    } catch (err) {
      // Its stderr first: the status names the reason, the logs show the rest.
      this.shell.keepLogs("start-up check", zp.logs());
      await zp.stop();
      throw err;
    }
    this.shell.keepLogs("start-up check", zp.logs());
  }

  async stop(): Promise<void> {
    await this.shell.stop();
    await Promise.all(
      [...this.sessions.all()].map(async (rt) => {
        if (rt.idleTimer) clearTimeout(rt.idleTimer);
        if (rt.turn) clearStopGrace(rt.turn);
        const live = rt.live;
        rt.live = undefined;
        if (live) await live.zp.stop();
      }),
    );
  }

  /** Checks the command again (the settings page's Restart). Running sessions keep their processes. */
  async restart(): Promise<void> {
    await this.shell.restart();
  }

  /** For tests: until the start-up check has passed. */
  async ready(timeoutMs = 30_000): Promise<void> {
    await this.shell.ready(timeoutMs);
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
   * conversation over its stdin, in its first prompt (./turns.ts).
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
          onEvent: (f) => holder.live && this.turns.onEvent(rt, holder.live, f),
          onExit: (d) => holder.live && this.onProcessExit(rt, holder.live, d),
        },
        rt.id,
      );
      let hello: HelloInfo;
      try {
        hello = await zp.start();
      } catch (err) {
        this.shell.keepLogs(rt.id, zp.logs());
        const message = describeError(err);
        this.shell.down(message);
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
      this.catalog.heard(hello);
      this.shell.setStatus("ready");
      return live;
    })().finally(() => (rt.starting = undefined));
    return rt.starting;
  }

  private onProcessExit(rt: Runtime, live: Live, description: string) {
    this.shell.keepLogs(rt.id, live.zp.logs());
    if (rt.live === live) rt.live = undefined;
    log.warn("a zot process ended by itself", { backend: this.id, session: rt.id, description });
    this.shell.exited(description);
    const turn = runningTurn(rt);
    if (turn && turn.live === live) {
      this.turns.finish(rt, turn, {
        failure: {
          name: "AgentExited",
          message: `${description} The next prompt starts a new zot process, given the earlier conversation.`,
        },
      });
    }
  }

  /** The session's process goes; its logs are kept. */
  private retire(rt: Runtime, live: Live) {
    if (rt.live === live) rt.live = undefined;
    void live.zp.stop().then(() => this.shell.keepLogs(rt.id, live.zp.logs()));
  }

  private closeWhenIdle(rt: Runtime) {
    if (rt.idleTimer) clearTimeout(rt.idleTimer);
    rt.idleTimer = setTimeout(() => {
      rt.idleTimer = undefined;
      const live = rt.live;
      if (!live || rt.turn) return;
      this.retire(rt, live);
      this.shell.changed();
    }, this.opts.idleMs ?? IDLE_MS);
    rt.idleTimer.unref?.();
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
    const cwd = await resolveSessionDirectory(input.directory, this.defaultCwd, this.opts);
    const now = Date.now();
    const model = input.model ?? this.catalog.defaultModel();
    if (input.model) this.catalog.checkProvider(input.model);
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
    this.turns.emit(rt, [{ type: "session.updated", session: s }]);
    this.sessions.persist(rt);
    return s;
  }

  async deleteSession(sessionId: string): Promise<void> {
    const rt = this.sessions.get(sessionId);
    dropQueue(rt);
    const turn = runningTurn(rt);
    if (turn) this.turns.finish(rt, turn, { aborted: true });
    if (rt.idleTimer) clearTimeout(rt.idleTimer);
    const live = rt.live;
    rt.live = undefined;
    this.sessions.forget(rt);
    if (live) await live.zp.stop();
  }

  async loadSession(sessionId: string): Promise<LoadedSession> {
    const rt = this.sessions.get(sessionId);
    return {
      session: this.sessions.sessionOf(rt),
      ...firstPage(this.sessions.messagesOf(rt)),
      interrupts: [],
      todos: [],
    };
  }

  /** Pages through the transcript the console keeps. */
  async loadMessages(
    sessionId: string,
    q: { before?: string; limit: number },
  ): Promise<{ items: Message[]; nextCursor?: string }> {
    return pageMessages(this.sessions.messagesOf(this.sessions.get(sessionId)), q);
  }

  async models(): Promise<{ items: ModelInfo[]; default?: ModelRef }> {
    if (!this.catalog.known) await this.shell.probe();
    return this.catalog.items();
  }

  /* ------------------------------------------------------------------ turns (./turns.ts) */

  async prompt(sessionId: string, body: PromptBody): Promise<void> {
    await this.turns.prompt(this.sessions.get(sessionId), body);
  }

  async abort(sessionId: string): Promise<void> {
    this.turns.abort(this.sessions.get(sessionId));
  }

  async compact(sessionId: string): Promise<void> {
    await this.turns.compact(this.sessions.get(sessionId));
  }
}
