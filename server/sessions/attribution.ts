import "server-only";
import { z } from "zod";
import {
  AnsweredInterrupt,
  type Interrupt,
  type Message,
  type MessageInfo,
  PersonRef,
  type Session,
  type TimelineEvent,
} from "@/lib/model";
import type { HubAnnotator } from "../hub/hub";
import type { LiveStore } from "../store/store";

/**
 * Who did what in a session, kept by the console (docs/people.md, "Attribution"): who created it,
 * who sent each user message, who answered each interrupt and how. Backends do not know people, so
 * the console records it in its store (a `meta` entry per session, on SQLite and PostgreSQL alike:
 * every replica reads it, and it outlives a restart) and stamps it on everything the hub serves —
 * live events, snapshots, reconciled states.
 *
 * The replica that runs a session's backend is the only one that writes its entry (prompts,
 * answers and new sessions are forwarded there), so read-modify-write is safe.
 */

const Answered = AnsweredInterrupt.extend({ messageId: z.string() });
type Answered = z.infer<typeof Answered>;

const StoredAttribution = z.object({
  createdBy: PersonRef.optional(),
  authors: z.record(z.string(), PersonRef).default({}),
  answered: z.array(Answered).default([]),
});
type SessionRecord = z.infer<typeof StoredAttribution>;

/** Bounds of one session's entry: the oldest are dropped past them. */
export const MAX_AUTHORS = 5000;
export const MAX_ANSWERED = 1000;
/** A prompt's user message is looked for this long after the prompt was sent. */
const PENDING_MS = 10 * 60_000;
/** A backend's clock may be a little behind the console's. */
const CLOCK_SLACK_MS = 60_000;

type MetaStore = Pick<LiveStore, "getMeta" | "setMeta" | "deleteMeta">;

export function attributionKey(backendId: string, sessionId: string): string {
  return `attribution:${encodeURIComponent(backendId)}:${encodeURIComponent(sessionId)}`;
}

/** How an answer is named in the timeline and the audit log (`allow_once`, `reject`, `dismiss`, …). */
export function decisionOf(answer: Record<string, unknown>): string {
  if (typeof answer.decision === "string") return answer.decision;
  if (typeof answer.action === "string") return answer.action;
  if (answer.dismiss === true) return "dismiss";
  if (Array.isArray(answer.answers)) return "answered";
  if (typeof answer.text === "string") return "text";
  return "answered";
}

interface Pending {
  who: PersonRef;
  at: number;
}

export class Attribution implements HubAnnotator {
  /** The events it stamps (server/hub/hub.ts passes it no other). */
  readonly stamps: ReadonlySet<TimelineEvent["type"]> = new Set(["message.updated", "interrupt.resolved"]);
  private cache = new Map<string, { raw: string; value: SessionRecord }>();
  private pending = new Map<string, Pending[]>();

  constructor(private store: MetaStore) {}

  private read(backendId: string, sessionId: string): SessionRecord | undefined {
    const key = attributionKey(backendId, sessionId);
    const raw = this.store.getMeta(key);
    if (raw === undefined) {
      this.cache.delete(key);
      return undefined;
    }
    const hit = this.cache.get(key);
    if (hit?.raw === raw) return hit.value;
    let value: SessionRecord | undefined;
    try {
      const parsed = StoredAttribution.safeParse(JSON.parse(raw));
      value = parsed.success ? parsed.data : undefined;
    } catch {
      value = undefined;
    }
    // A malformed entry (a newer build's, a hand edit) attributes nothing; it never breaks a session.
    if (!value) return undefined;
    this.cache.set(key, { raw, value });
    return value;
  }

  private write(backendId: string, sessionId: string, change: (r: SessionRecord) => void): void {
    const current = this.read(backendId, sessionId);
    const next: SessionRecord = current
      ? { ...current, authors: { ...current.authors }, answered: [...current.answered] }
      : { authors: {}, answered: [] };
    change(next);
    const ids = Object.keys(next.authors);
    for (const id of ids.slice(0, Math.max(0, ids.length - MAX_AUTHORS))) delete next.authors[id];
    if (next.answered.length > MAX_ANSWERED) next.answered = next.answered.slice(-MAX_ANSWERED);
    this.store.setMeta(attributionKey(backendId, sessionId), JSON.stringify(next));
  }

  /* ------------------------------------------------------------------ what people did */

  sessionCreated(backendId: string, sessionId: string, who: PersonRef): void {
    this.write(backendId, sessionId, (r) => {
      r.createdBy = who;
    });
  }

  /**
   * A prompt is about to be sent: the session's next new user message is `who`'s. Call the returned
   * function when the prompt failed (no message will come for it).
   */
  expectPrompt(backendId: string, sessionId: string, who: PersonRef, now = Date.now()): () => void {
    const key = attributionKey(backendId, sessionId);
    const entry: Pending = { who, at: now };
    const list = this.pending.get(key) ?? [];
    list.push(entry);
    this.pending.set(key, list);
    return () => {
      const l = this.pending.get(key);
      if (!l) return;
      const i = l.indexOf(entry);
      if (i >= 0) l.splice(i, 1);
      if (!l.length) this.pending.delete(key);
    };
  }

  /**
   * Someone answered an interrupt: kept on the message it belongs to (its own, or else the newest
   * message of the session when it was answered).
   */
  interruptAnswered(
    backendId: string,
    sessionId: string,
    interrupt: Pick<Interrupt, "id" | "kind" | "title" | "messageId"> | undefined,
    interruptId: string,
    newestMessageId: string | undefined,
    who: PersonRef,
    decision: string,
    now = Date.now(),
  ): void {
    const messageId = interrupt?.messageId ?? newestMessageId;
    if (!messageId) return;
    const record: Answered = {
      interruptId,
      kind: interrupt?.kind ?? "permission",
      title: (interrupt?.title ?? "").slice(0, 2000),
      decision: decision.slice(0, 100),
      answeredBy: who,
      at: now,
      messageId,
    };
    this.write(backendId, sessionId, (r) => {
      r.answered = r.answered.filter((a) => a.interruptId !== interruptId);
      r.answered.push(record);
    });
  }

  /** An answer that did not go through: the record made for it is withdrawn. */
  answerFailed(backendId: string, sessionId: string, interruptId: string): void {
    if (!this.read(backendId, sessionId)?.answered.some((a) => a.interruptId === interruptId)) return;
    this.write(backendId, sessionId, (r) => {
      r.answered = r.answered.filter((a) => a.interruptId !== interruptId);
    });
  }

  /** The session was deleted. */
  forget(backendId: string, sessionId: string): void {
    const key = attributionKey(backendId, sessionId);
    this.pending.delete(key);
    this.cache.delete(key);
    this.store.deleteMeta(key);
  }

  /* ------------------------------------------------------------------ stamping what is served */

  session(backendId: string, session: Session): Session {
    const by = this.read(backendId, session.id)?.createdBy;
    return by && !session.createdBy ? { ...session, createdBy: by } : session;
  }

  message<M extends MessageInfo | Message>(backendId: string, sessionId: string, m: M): M {
    const r = this.read(backendId, sessionId);
    if (!r) return m;
    const author = m.role === "user" ? r.authors[m.id] : undefined;
    const answered = r.answered.filter((a) => a.messageId === m.id).map(({ messageId: _m, ...a }) => a);
    if (!author && !answered.length) return m;
    return { ...m, ...(author ? { author } : {}), ...(answered.length ? { answered } : {}) };
  }

  /**
   * An event as the hub publishes it: a session's first sight of a user message while a prompt
   * waits takes that prompt's sender; messages and resolved interrupts carry what is recorded.
   * `known` says whether the open channel already holds a message (undefined: no channel open).
   */
  event(backendId: string, sessionId: string, e: TimelineEvent, known?: (messageId: string) => boolean): TimelineEvent {
    if (e.type === "message.updated") {
      if (e.message.role === "user") this.claim(backendId, sessionId, e.message, known);
      return { ...e, message: this.message(backendId, sessionId, e.message) };
    }
    if (e.type === "interrupt.resolved" && !e.answered) {
      const a = this.read(backendId, sessionId)?.answered.find((x) => x.interruptId === e.interruptId);
      return a ? { ...e, answered: a } : e;
    }
    return e;
  }

  private claim(
    backendId: string,
    sessionId: string,
    m: MessageInfo,
    known: ((messageId: string) => boolean) | undefined,
  ): void {
    const key = attributionKey(backendId, sessionId);
    const list = this.pending.get(key);
    if (!list?.length) return;
    if (this.read(backendId, sessionId)?.authors[m.id]) return;
    if (known?.(m.id)) return;
    const now = Date.now();
    while (list.length && now - list[0]!.at > PENDING_MS) list.shift();
    const first = list[0];
    // An older user message updated again (a turn's file summary) is not the prompt's.
    if (!first || m.createdAt < first.at - CLOCK_SLACK_MS) {
      if (!list.length) this.pending.delete(key);
      return;
    }
    list.shift();
    if (!list.length) this.pending.delete(key);
    this.write(backendId, sessionId, (r) => {
      r.authors[m.id] = first.who;
    });
  }
}
