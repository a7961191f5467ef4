import "server-only";
import type { JsonRpcPeer } from "../shared/json-rpc";
import { SupervisedAdapter } from "../shared/stdio-shell";
import type { CreateSessionBody, InterruptAnswer, PromptBody } from "@/lib/api";
import type { Backend, Capabilities, Interrupt, Message, ModelRef, Session, TimelineEvent } from "@/lib/model";
import { describeError } from "../../errors";
import { log } from "../../log";
import { InterruptBook } from "../shared/interrupts";
import type { BackendAdapter, EventSink, LoadedSession, ModelInfo } from "../types";
import { SlashCommands } from "./commands";
import type { CopilotAdapterOptions } from "./config";
import { CopilotConnection } from "./connection";
import { parseSessionEvent } from "./events";
import { CopilotInterrupts } from "./interrupts";
import type { Reply } from "./reply";
import { CopilotRewind } from "./rewind";
import { CopilotSessions, type SessionListQuery } from "./sessions";
import { CopilotSettings } from "./settings";
import { CopilotTurns } from "./turns";

export type { CopilotAdapterOptions, CopilotProvider } from "./config";
export { HEADLESS_FLAGS, headlessCommand } from "./config";

/**
 * GitHub Copilot CLI headless (`copilot --headless --stdio`, docs/backends/copilot.md): routes the
 * CLI's events and the console's calls to the parts — `connection.ts` (process, handshake, login),
 * `sessions.ts`, `turns.ts`, `commands.ts` (slash commands), `interrupts.ts`, `settings.ts` (model,
 * effort, mode), `rewind.ts` (revert). The CLI keeps its sessions itself.
 */
export class CopilotAdapter extends SupervisedAdapter<JsonRpcPeer> implements BackendAdapter {
  protected get supervised() {
    return this.cli.shell;
  }

  readonly id: string;
  private cli: CopilotConnection;
  private book: InterruptBook<Reply>;
  private sessions: CopilotSessions;
  private interrupts: CopilotInterrupts;
  private settings: CopilotSettings;
  private commands: SlashCommands;
  private rewind: CopilotRewind;
  private turns: CopilotTurns;

  constructor(
    opts: CopilotAdapterOptions,
    private sink: EventSink,
  ) {
    super();
    this.id = opts.id;
    const publish = (sessionId: string, events: TimelineEvent[]) => this.publish(sessionId, events);
    this.book = new InterruptBook<Reply>({ idPrefix: "cp", emit: publish });
    this.cli = new CopilotConnection(opts, sink, () => this.capabilities(), {
      event: (gen, params) => this.onEvent(gen, params),
      lifecycle: (gen, params) => this.sessions.lifecycle(gen, params),
      userInput: (gen, params, signal) => this.interrupts.userInput(gen, params, signal),
      exitPlanMode: (gen, params, signal) => this.interrupts.exitPlanMode(gen, params, signal),
      connected: () => this.sessions.detachAll(),
      exited: (gen, turnError) => this.turns.exited(gen, turnError),
    });
    this.sessions = new CopilotSessions(this.id, opts, this.cli, sink, this.book, publish);
    this.interrupts = new CopilotInterrupts(this.id, opts.label, this.cli, this.book, this.sessions);
    this.settings = new CopilotSettings(this.id, opts, this.cli, this.sessions, publish);
    this.commands = new SlashCommands(this.id, opts.label, publish);
    this.rewind = new CopilotRewind(this.id, opts.label, this.sessions, publish);
    this.turns = new CopilotTurns(
      this.id,
      opts,
      this.cli,
      sink,
      {
        sessions: this.sessions,
        settings: this.settings,
        commands: this.commands,
        rewind: this.rewind,
        interrupts: this.book,
      },
      publish,
    );
  }

  /* ------------------------------------------------------------------ info and process (the shell) */

  capabilities(): Capabilities {
    return {
      // Permissions, questions (ask_user) and forms (MCP elicitation) all wait for the user.
      interrupts: { permission: true, question: true, input: true },
      // `@` mentions: `rg --files` in the session's directory; the prompt keeps `@path` in its text.
      mentions: { search: "workspace", carry: "text" },
      // The CLI keeps the sessions: listed, searched, renamed and deleted there, each in its directory.
      history: true,
      search: true,
      rename: true,
      delete: true,
      directories: true,
      // A turn: its model, its abort, its compaction, a revert onto a rewind point.
      models: true,
      abort: true,
      compact: true,
      revert: true,
      // Not in the headless protocol.
      fork: false,
      diff: false,
      share: false,
    };
  }

  info(): Backend {
    return this.cli.shell.info();
  }

  logs(): string[] {
    return this.cli.shell.logs();
  }

  get pid(): number | undefined {
    return this.cli.shell.pid;
  }

  async start(): Promise<void> {
    await this.cli.shell.start();
  }

  async stop(): Promise<void> {
    this.book.expire(() => true, { kind: "cancel" });
    this.turns.stop();
    await this.cli.shell.stop();
  }

  /* ------------------------------------------------------------------ events */

  /** Publishes a session's events; interrupts go through the interrupt book (with the way to answer them). */
  private publish(sessionId: string, events: TimelineEvent[]) {
    for (const e of events) this.sink.publish(this.id, sessionId, e);
  }

  private onEvent(gen: number, params: unknown) {
    const cur = this.cli.current;
    if (cur && cur.gen !== gen) return;
    const p = parseSessionEvent(params);
    if (!p) return;
    const rt = this.sessions.get(p.sessionId);
    if (!rt) return;
    try {
      if (p.event.type === "session.snapshot_rewind") {
        void this.rewind.reloadAfterRewind(rt);
        return;
      }
      if ((p.event.type === "command.queued" || p.event.type === "command.execute") && cur) {
        void (p.event.type === "command.queued"
          ? this.commands.runQueued(rt, cur.conn, p.event.data)
          : this.commands.answerExecute(rt, cur.conn, p.event.data));
        return;
      }
      if (p.event.type === "session.mode_changed") {
        // The CLI changed the mode itself (an accepted plan leaves Plan mode): the selector follows.
        this.settings.modeChanged(rt, p.event.data.newMode);
        return;
      }
      if (p.event.type === "session.idle") this.turns.idle(rt);
      const out: TimelineEvent[] = [];
      for (const e of rt.tl.apply(p.event)) {
        if (e.type === "interrupt.requested") {
          this.flush(rt.id, out);
          this.interrupts.requested(rt, e.interrupt, gen);
        } else if (e.type === "interrupt.resolved") {
          this.flush(rt.id, out);
          this.interrupts.resolved(e.interruptId, e.outcome);
        } else out.push(e);
      }
      this.flush(rt.id, out);
    } catch (err) {
      log.warn("skipped a Copilot event that could not be applied", {
        backend: this.id,
        type: p.event.type,
        error: describeError(err),
      });
    }
  }

  private flush(sessionId: string, out: TimelineEvent[]) {
    if (out.length) this.publish(sessionId, out.splice(0));
  }

  /* ------------------------------------------------------------------ sessions */

  listSessions(q: SessionListQuery): Promise<{ items: Session[]; nextCursor?: string }> {
    return this.sessions.list(q);
  }

  async createSession(input: CreateSessionBody): Promise<Session> {
    const rt = await this.sessions.create(input);
    if (input.model && input.model.id !== rt.settings.model) await this.settings.switchModel(rt, input.model.id);
    if (input.title?.trim()) await this.sessions.setName(rt, input.title.trim());
    return this.sessions.sessionOf(rt);
  }

  async getSession(sessionId: string): Promise<Session> {
    return this.sessions.sessionOf(await this.sessions.known(sessionId));
  }

  renameSession(sessionId: string, title: string): Promise<Session> {
    return this.sessions.rename(sessionId, title);
  }

  deleteSession(sessionId: string): Promise<void> {
    return this.sessions.delete(sessionId);
  }

  loadSession(sessionId: string): Promise<LoadedSession> {
    return this.sessions.load(sessionId);
  }

  loadMessages(
    sessionId: string,
    q: { before?: string; limit: number },
  ): Promise<{ items: Message[]; nextCursor?: string }> {
    return this.sessions.loadMessages(sessionId, q);
  }

  /* ------------------------------------------------------------------ settings and models */

  setSessionOption(sessionId: string, optionId: string, value: string | boolean): Promise<Session> {
    return this.settings.setOption(sessionId, optionId, value);
  }

  models(): Promise<{ items: ModelInfo[]; default?: ModelRef }> {
    return this.settings.models();
  }

  /* ------------------------------------------------------------------ turns */

  prompt(sessionId: string, body: PromptBody): Promise<void> {
    return this.turns.prompt(sessionId, body);
  }

  abort(sessionId: string): Promise<void> {
    return this.turns.abort(sessionId);
  }

  compact(sessionId: string): Promise<void> {
    return this.turns.compact(sessionId);
  }

  revert(sessionId: string, messageId: string): Promise<Session> {
    return this.rewind.revert(sessionId, messageId);
  }

  unrevert(sessionId: string): Promise<Session> {
    return this.rewind.unrevert(sessionId);
  }

  /* ------------------------------------------------------------------ interrupts */

  pendingInterrupts(): Interrupt[] {
    return this.interrupts.pending();
  }

  refreshInterrupts(): Promise<void> {
    return this.interrupts.refresh();
  }

  answerInterrupt(sessionId: string, interruptId: string, answer: InterruptAnswer): Promise<void> {
    return this.interrupts.answer(sessionId, interruptId, answer);
  }
}
