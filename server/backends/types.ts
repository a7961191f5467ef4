import "server-only";
import type { Backend, Interrupt, Message, Session, Todo, TimelineEvent, FileDiff, ModelRef } from "@/lib/model";
import type { AgentList, CreateSessionBody, InterruptAnswer, ModelInfo, PromptBody } from "@/lib/api";
import type { SessionState } from "@/lib/timeline/reducer";

export type { ModelInfo };

/** What an adapter loads to (re)build a session in the hub. */
export interface LoadedSession {
  session: Session;
  /** Newest page of messages, chronological. */
  messages: Message[];
  interrupts: Interrupt[];
  todos: Todo[];
  olderCursor?: string;
}

/** Where adapters send canonical events. Implemented by the hub. */
export interface EventSink {
  publish(backendId: string, sessionId: string, event: TimelineEvent): void;
  backendChanged(backend: Backend): void;
  /** Adapters call this after an upstream reconnect so the hub can reconcile every open session. */
  openSessions(backendId: string): string[];
  reconcile(backendId: string, sessionId: string, fresh: LoadedSession): void;
  /**
   * The hub's materialized state of a session whose channel is open (what the console showed), else
   * undefined. Only OpenCode's reconcile reads it, to keep a reply cut by a crash as it was shown;
   * adapters keep their transcripts from what they emitted (./shared/session-records.ts), never from
   * here. (Optional so that test sinks need not implement it; the hub does.)
   */
  sessionState?(backendId: string, sessionId: string): SessionState | undefined;
  /**
   * Opens (loads, through the adapter's `loadSession`) the session's channel, so the events the
   * adapter is about to publish are materialized by the hub even when no browser watches.
   */
  openSession?(backendId: string, sessionId: string): Promise<void>;
}

/**
 * One adapter per backend protocol (docs/architecture.md). Adapters translate their protocol into
 * canonical events and nothing else does; the hub owns session state. Optional methods correspond
 * to capabilities (`Capabilities` in lib/model.ts, gated in server/capability.ts).
 */
export interface BackendAdapter {
  readonly id: string;
  info(): Backend;
  start(): Promise<void>;
  stop(): Promise<void>;
  listSessions(q: {
    search?: string;
    limit: number;
    cursor?: string;
  }): Promise<{ items: Session[]; nextCursor?: string }>;
  createSession(input: CreateSessionBody): Promise<Session>;
  getSession(sessionId: string): Promise<Session>;
  renameSession?(sessionId: string, title: string): Promise<Session>;
  deleteSession?(sessionId: string): Promise<void>;
  loadSession(sessionId: string): Promise<LoadedSession>;
  /**
   * Reading a session's history (`listSessions`, `loadSession`, `loadMessages`) has no effect on the
   * agent: a plain read of a server's store (OpenCode's REST). The search backfill reads sessions the
   * console never opened only from such backends; for the others it reads the transcripts the console
   * keeps, never asking an agent to load a session (docs/search.md).
   */
  readonly passiveHistory?: boolean;
  loadMessages?(
    sessionId: string,
    q: { before?: string; limit: number },
  ): Promise<{ items: Message[]; nextCursor?: string }>;
  prompt(sessionId: string, body: PromptBody): Promise<void>;
  abort?(sessionId: string): Promise<void>;
  models?(): Promise<{ items: ModelInfo[]; default?: ModelRef }>;
  /** Files changed by the turn of user message `messageId` (the whole session where supported). */
  diff?(sessionId: string, messageId?: string): Promise<FileDiff[]>;
  /**
   * A new, independent session holding the conversation as the user saw it at `messageId`: for a
   * user message the messages before it (its prompt is edited and sent again), for an assistant
   * message the messages through it; without `messageId`, all of it. Unknown message → 404.
   * Lineage is recorded by the console, not the adapter.
   */
  fork?(sessionId: string, messageId?: string): Promise<Session>;
  /** Undo `messageId` and everything after it: files are restored now; messages go at the next prompt. */
  revert?(sessionId: string, messageId: string): Promise<Session>;
  /** Cancel a pending revert: files and messages come back. */
  unrevert?(sessionId: string): Promise<Session>;
  /** Summarize the conversation so far (with `model`, else the session's model). */
  compact?(sessionId: string, model?: ModelRef): Promise<void>;
  /** Sessions spawned by this one (subagents). */
  children?(sessionId: string): Promise<Session[]>;
  /** Agents / modes a prompt can run with. */
  agents?(): Promise<AgentList>;
  /**
   * The backend's own file search (`Capabilities.mentions.search === "backend"`): files of the
   * session's workspace matching `query`, as paths relative to its directory, best first. Backends
   * without one get `rg --files` in the session's directory (server/sessions/files.ts).
   */
  findFiles?(sessionId: string, query: string, limit: number): Promise<string[]>;
  /**
   * Answer a pending interrupt. The adapter validates the answer against the interrupt (ApiError
   * 400 when it does not fit, 404 unknown, 409 already resolved) and emits `interrupt.resolved`
   * when the backend confirms.
   */
  answerInterrupt?(sessionId: string, interruptId: string, answer: InterruptAnswer): Promise<void>;
  /** Every pending interrupt of this backend (for the global inbox after a reconnect). */
  pendingInterrupts?(): Interrupt[];
  /**
   * Re-reads the backend's own pending requests, for backends whose event stream has no replay
   * (a browser page loaded: nothing asked meanwhile may be missed). Changes are published as events.
   */
  refreshInterrupts?(): Promise<void>;
  /** Change a session option the backend offers (`Session.settings`: mode, model, config options). */
  setSessionOption?(sessionId: string, optionId: string, value: string | boolean): Promise<Session>;
  /** The tail of a stdio agent's stderr (and its supervisor's notes). */
  logs?(): string[];
  /** Restart a stdio agent's process (e.g. after logging in to it). */
  restart?(): Promise<void>;
  /** Sets an API key for one of the providers in `Backend.auth` (kept by the agent, never by the console). */
  setApiKey?(provider: string, apiKey: string): Promise<void>;
  /**
   * Values for one of the agent's `env_var` auth methods (`Backend.authMethods`): kept on the
   * server, passed to this agent only, which is restarted with them. An empty value removes a variable.
   */
  setCredentials?(methodId: string, vars: Record<string, string>): Promise<void>;
  /**
   * A terminal login (`authMethods[].runInTerminal`): the command to run in the console's terminal,
   * with the environment and directory the agent process gets, so the login lands where it reads it.
   */
  terminalLogin?(methodId: string): TerminalLogin;
  /** Starts a sign-in the agent runs (ACP device-code login); its link and code show in `authMethods`. */
  signIn?(methodId: string): Promise<void>;
  /** The backend is removed: drop what it kept in the store besides transcripts (its credentials). */
  forget?(): void;
}

/** What `BackendAdapter.terminalLogin` runs. */
export interface TerminalLogin {
  /** The command and its arguments (the first resolved like the agent's own command). */
  run: string[];
  /** The command line as Settings shows it. */
  display: string;
  /** The agent's own environment: its config's `env` and the stored credentials, before the console's basics. */
  env: Record<string, string>;
  cwd: string;
}
