import "server-only";
import type { Backend, Interrupt, Message, Session, Todo, TimelineEvent, FileDiff, ModelRef } from "@/lib/model";
import type { CreateSessionBody, InterruptAnswer, PromptBody } from "@/lib/api";

/** What an adapter loads to (re)build a session in the hub. */
export interface LoadedSession {
  session: Session;
  /** Newest page of messages, chronological. */
  messages: Message[];
  interrupts: Interrupt[];
  todos: Todo[];
  olderCursor?: string;
}

export interface ModelInfo {
  provider: string;
  providerLabel?: string;
  id: string;
  label: string;
  isDefault?: boolean;
}

/** Where adapters send canonical events. Implemented by the hub. */
export interface EventSink {
  publish(backendId: string, sessionId: string, event: TimelineEvent): void;
  backendChanged(backend: Backend): void;
  /** Adapters call this after an upstream reconnect so the hub can reconcile every open session. */
  openSessions(backendId: string): string[];
  reconcile(backendId: string, sessionId: string, fresh: LoadedSession): void;
}

/**
 * One adapter per backend protocol (SPEC.md §2). Adapters translate their protocol into canonical
 * events and nothing else does. Optional methods correspond to capabilities.
 */
export interface BackendAdapter {
  readonly id: string;
  info(): Backend;
  start(): Promise<void>;
  stop(): Promise<void>;
  listSessions(q: { search?: string; limit: number; cursor?: string }): Promise<{ items: Session[]; nextCursor?: string }>;
  createSession(input: CreateSessionBody): Promise<Session>;
  getSession(sessionId: string): Promise<Session>;
  renameSession?(sessionId: string, title: string): Promise<Session>;
  deleteSession?(sessionId: string): Promise<void>;
  loadSession(sessionId: string): Promise<LoadedSession>;
  loadMessages?(sessionId: string, q: { before?: string; limit: number }): Promise<{ items: Message[]; nextCursor?: string }>;
  prompt(sessionId: string, body: PromptBody): Promise<void>;
  abort?(sessionId: string): Promise<void>;
  models?(): Promise<{ items: ModelInfo[]; default?: ModelRef }>;
  diff?(sessionId: string, messageId?: string): Promise<FileDiff[]>;
  /**
   * Answer a pending interrupt. The adapter validates the answer against the interrupt (ApiError
   * 400 when it does not fit, 404 unknown, 409 already resolved) and emits `interrupt.resolved`
   * when the backend confirms.
   */
  answerInterrupt?(sessionId: string, interruptId: string, answer: InterruptAnswer): Promise<void>;
  /** Every pending interrupt of this backend (for the global inbox after a reconnect). */
  pendingInterrupts?(): Interrupt[];
}
