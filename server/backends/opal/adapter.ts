import "server-only";
import type { JsonRpcPeer } from "../shared/json-rpc";
import { SupervisedAdapter } from "../shared/stdio-shell";
import { clearStopGrace } from "../shared/turn-lifecycle";
import type { CreateSessionBody, InterruptAnswer, PromptBody } from "@/lib/api";
import type { Backend, Capabilities, FileDiff, Interrupt, Message, ModelRef, Session } from "@/lib/model";
import type { BackendAdapter, EventSink, LoadedSession, ModelInfo } from "../types";
import { forgetKeys, setApiKey } from "./api-keys";
import { connect, handshake, healthCheck } from "./connection";
import { OpalContext } from "./context";
import type { OpalAdapterOptions } from "./options";
import { recordedDiffs } from "./diffs";
import { fork } from "./fork";
import { answerInterrupt, onRequest } from "./interrupts";
import { models, setSessionOption } from "./option-changes";
import {
  allMessages,
  createSession,
  deleteSession,
  getSession,
  listSessions,
  loadMessages,
  loadSession,
  renameSession,
} from "./sessions";
import { children } from "./sub-agents";
import { abort, compact, onEvent, onExit, prompt, restartNotice } from "./turns";
import { MANAGED_SESSIONS } from "../shared/capabilities";

const CAPABILITIES: Capabilities = {
  fork: true,
  forkMessages: true,
  revert: false,
  diff: true,
  ...MANAGED_SESSIONS,
  // `@` mentions: `rg --files` in the session's directory; the prompt keeps `@path` in its text.
  mentions: { search: "workspace", carry: "text" },
  todos: true,
  children: true,
  interrupts: { permission: true, question: true, input: true },
};

/**
 * Opal (`opal-server`, docs/backends/opal.md): hands each call to its part, which share
 * `OpalContext` (./context.ts). Opal persists its sessions; the console also keeps its record of
 * what it showed (stable message ids, marked stopped turns, sub-agents' timelines, the path a
 * branch left). Sessions the console has no record of are read from `session/history`.
 */
export class OpalAdapter extends SupervisedAdapter<JsonRpcPeer> implements BackendAdapter {
  protected get supervised() {
    return this.ctx.shell;
  }

  readonly id: string;
  private ctx: OpalContext;
  private healthTimer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private opts: OpalAdapterOptions,
    sink: EventSink,
  ) {
    super();
    this.id = opts.id;
    this.ctx = new OpalContext(opts, sink, {
      capabilities: CAPABILITIES,
      process: (ctx) => ({
        name: `${opts.id} (opal-server)`,
        cwd: ctx.defaultCwd,
        ...(opts.restart ? { restart: opts.restart } : {}),
        ...(opts.readyTimeoutMs ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
        handshakeName: "its handshake (opal/version, auth/status)",
        connect: (p) =>
          connect(ctx, p, {
            event: (gen, params) => onEvent(ctx, gen, params),
            request: (gen, m, params, signal) => onRequest(ctx, gen, m, params, signal),
          }),
        handshake: (peer) => handshake(ctx, peer),
        close: (peer) => peer.close("the opal-server process ended"),
        restartNotice: (sessionId, messageId, text) => restartNotice(ctx, sessionId, messageId, text),
        onExit: (exit, turnError) => onExit(ctx, exit.generation, turnError),
      }),
    });
  }

  /* ------------------------------------------------------------------ info */

  capabilities(): Capabilities {
    return CAPABILITIES;
  }

  info(): Backend {
    return this.ctx.info();
  }

  logs(): string[] {
    return this.ctx.shell.logs();
  }

  /* ------------------------------------------------------------------ process */

  async start(): Promise<void> {
    await this.ctx.shell.start();
    const every = this.opts.health?.intervalMs ?? 15_000;
    this.healthTimer ??= setInterval(() => void healthCheck(this.ctx), every);
    this.healthTimer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.healthTimer = undefined;
    this.ctx.interrupts.expire(() => true, { error: "The console stopped" });
    for (const rt of this.ctx.runtimes.values()) clearStopGrace(rt);
    await this.ctx.shell.stop();
  }

  setApiKey(provider: string, apiKey: string): Promise<void> {
    return setApiKey(this.ctx, provider, apiKey);
  }

  /** The backend is removed: the API keys kept for redaction go. */
  forget(): void {
    forgetKeys(this.opts.store, this.id);
  }

  /* ------------------------------------------------------------------ sessions */

  listSessions(q: {
    search?: string;
    limit: number;
    cursor?: string;
  }): Promise<{ items: Session[]; nextCursor?: string }> {
    return listSessions(this.ctx, q);
  }

  createSession(input: CreateSessionBody): Promise<Session> {
    return createSession(this.ctx, input);
  }

  getSession(sessionId: string): Promise<Session> {
    return getSession(this.ctx, sessionId);
  }

  deleteSession(sessionId: string): Promise<void> {
    return deleteSession(this.ctx, sessionId);
  }

  renameSession(sessionId: string, title: string): Promise<Session> {
    return renameSession(this.ctx, sessionId, title);
  }

  children(sessionId: string): Promise<Session[]> {
    return children(this.ctx, sessionId);
  }

  loadSession(sessionId: string): Promise<LoadedSession> {
    return loadSession(this.ctx, sessionId);
  }

  loadMessages(
    sessionId: string,
    q: { before?: string; limit: number },
  ): Promise<{ items: Message[]; nextCursor?: string }> {
    return loadMessages(this.ctx, sessionId, q);
  }

  /* ------------------------------------------------------------------ turns */

  prompt(sessionId: string, body: PromptBody): Promise<void> {
    return prompt(this.ctx, sessionId, body);
  }

  abort(sessionId: string): Promise<void> {
    return abort(this.ctx, sessionId);
  }

  compact(sessionId: string): Promise<void> {
    return compact(this.ctx, sessionId);
  }

  /** The diffs of a turn (the user message's) or of the whole session, from the tool blocks the console recorded. */
  async diff(sessionId: string, messageId?: string): Promise<FileDiff[]> {
    const rt = await this.ctx.known(sessionId);
    return recordedDiffs((await allMessages(this.ctx, rt)).messages, messageId);
  }

  fork(sessionId: string, messageId?: string): Promise<Session> {
    return fork(this.ctx, sessionId, messageId);
  }

  /* ------------------------------------------------------------------ models and options */

  setSessionOption(sessionId: string, optionId: string, value: string | boolean): Promise<Session> {
    return setSessionOption(this.ctx, sessionId, optionId, value);
  }

  models(): Promise<{ items: ModelInfo[]; default?: ModelRef }> {
    return models(this.ctx);
  }

  /* ------------------------------------------------------------------ interrupts */

  pendingInterrupts(): Interrupt[] {
    return this.ctx.interrupts.list();
  }

  answerInterrupt(sessionId: string, interruptId: string, answer: InterruptAnswer): Promise<void> {
    return answerInterrupt(this.ctx, sessionId, interruptId, answer);
  }
}
