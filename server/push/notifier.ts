import "server-only";
import type { Interrupt, TimelineEvent } from "@/lib/model";
import type { PushPayload } from "@/lib/push-api";
import type { SessionState } from "@/lib/timeline/reducer";
import type { HubObserver } from "../hub/hub";
import { log } from "../log";
import { topicFor, type PushMessage } from "./sender";

/** What the notifier sends through (a `PushSender`; the tests' own in unit tests). */
export interface PushChannel {
  sendAll(msg: PushMessage, filter?: (s: { turns: boolean }) => boolean): Promise<void>;
}

export interface PushNotifierOptions {
  channel: PushChannel;
  /** Whether a browser tab follows the session now (a finished turn is pushed only when none does). */
  watched: (backendId: string, sessionId: string) => boolean;
  /** Redacts the payload like a share (the console's secrets, the built-in rules, the user's patterns). */
  redact: (payload: PushPayload) => PushPayload;
  /** Whether there is anyone to push to (no work at all when not). */
  hasSubscribers: () => boolean;
}

/** How long a push service keeps an interrupt's push for an offline device (seconds). */
export const INTERRUPT_TTL = 12 * 3600;
const TURN_TTL = 3600;
const REMEMBERED = 2_000;

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function sessionUrl(backendId: string, sessionId: string): string {
  return `/sessions/${encodeURIComponent(backendId)}/${encodeURIComponent(sessionId)}`;
}

/** The person-readable part of an interrupt's push. */
export function describeInterrupt(i: Interrupt, sessionTitle: string | undefined): { title: string; body: string } {
  const where = sessionTitle ? ` · ${clip(sessionTitle, 60)}` : "";
  if (i.kind === "permission") {
    const p = i.permission;
    const what = [p?.action, ...(p?.patterns ?? [])].filter(Boolean).join(" ");
    return { title: clip(`Permission: ${i.title}${where}`, 200), body: clip(what || i.title, 1_000) };
  }
  if (i.kind === "question") {
    const q = i.questions?.[0]?.question ?? i.title;
    return { title: clip(`Question${where}`, 200), body: clip(q, 1_000) };
  }
  return {
    title: clip(`Input needed${where}`, 200),
    body: clip(i.input?.sensitive ? i.title : (i.input?.prompt ?? i.title), 1_000),
  };
}

/**
 * Turns the hub's events into pushes (docs/push.md): an interrupt raised → one push to every
 * device (Urgency high, a Topic naming it); that interrupt resolved → a second push with the same
 * Topic that closes the notification; a turn that finished or failed while no tab watched its
 * session → a push (Urgency normal) to the devices that want them. It observes the hub of the
 * console that runs the backend (replica mode relays events, it does not publish them again), so
 * each event is pushed once.
 */
export class PushNotifier implements HubObserver {
  /** Interrupts pushed (oldest first), so each is pushed once and its resolution only when it was. */
  private sent = new Map<string, string>();
  private busy = new Set<string>();

  constructor(private readonly opts: PushNotifierOptions) {}

  event(backendId: string, sessionId: string, event: TimelineEvent, state: (() => SessionState) | undefined): void {
    switch (event.type) {
      case "interrupt.requested":
        this.raised(backendId, event.interrupt, state);
        break;
      case "interrupt.resolved":
        this.resolved(backendId, sessionId, event.interruptId, event.outcome);
        break;
      case "session.status":
        this.status(backendId, sessionId, event.status, event.detail, state);
        break;
      default:
        break;
    }
  }

  sessionRemoved(backendId: string, sessionId: string): void {
    this.busy.delete(`${backendId}\u0000${sessionId}`);
  }

  backendRemoved(backendId: string): void {
    for (const k of this.busy) if (k.startsWith(`${backendId}\u0000`)) this.busy.delete(k);
  }

  private raised(backendId: string, i: Interrupt, state: (() => SessionState) | undefined) {
    const key = `${backendId}\u0000${i.id}`;
    if (this.sent.has(key) || !this.opts.hasSubscribers()) return;
    const topic = topicFor(`interrupt\u0000${key}`);
    this.sent.set(key, topic);
    if (this.sent.size > REMEMBERED) this.sent.delete(this.sent.keys().next().value as string);
    const shownIn = i.ownerSessionId ?? i.sessionId;
    const { title, body } = describeInterrupt(i, safeTitle(state));
    const canAllowOnce = i.permission?.options.some((o) => o.kind === "allow_once");
    const canReject = i.permission?.options.some((o) => o.kind === "reject");
    const actions =
      i.kind === "permission"
        ? (["allow-once", "reject"] as const).filter((a) => (a === "allow-once" ? canAllowOnce : canReject))
        : [];
    this.send({
      payload: {
        kind: "interrupt",
        tag: topic,
        title,
        body,
        backendId,
        sessionId: i.sessionId,
        interruptId: i.id,
        interruptKind: i.kind,
        ...(actions.length ? { actions } : {}),
        url: sessionUrl(backendId, shownIn),
      },
      urgency: "high",
      ttl: INTERRUPT_TTL,
      topic,
    });
  }

  private resolved(backendId: string, sessionId: string, interruptId: string, outcome: string) {
    const key = `${backendId}\u0000${interruptId}`;
    const topic = this.sent.get(key);
    if (!topic) return;
    this.sent.delete(key);
    this.send({
      payload: {
        kind: "resolved",
        tag: topic,
        title: "Answered",
        body: clip(outcome, 200),
        backendId,
        sessionId,
        interruptId,
      },
      urgency: "high",
      ttl: INTERRUPT_TTL,
      topic,
    });
  }

  private status(
    backendId: string,
    sessionId: string,
    status: string,
    detail: string | undefined,
    state: (() => SessionState) | undefined,
  ) {
    const key = `${backendId}\u0000${sessionId}`;
    if (status === "busy" || status === "retry") {
      this.busy.add(key);
      return;
    }
    if (status !== "idle" && status !== "error") return;
    if (!this.busy.delete(key) || !this.opts.hasSubscribers() || this.opts.watched(backendId, sessionId)) return;
    const title = safeTitle(state);
    const topic = topicFor(`turn\u0000${key}`);
    this.send(
      {
        payload: {
          kind: "turn",
          tag: topic,
          title: clip(
            status === "error" ? `Turn failed · ${title ?? sessionId}` : `Turn finished · ${title ?? sessionId}`,
            200,
          ),
          body: clip(
            status === "error" ? (detail ?? "The agent stopped with an error") : "The agent is waiting for you",
            500,
          ),
          backendId,
          sessionId,
          url: sessionUrl(backendId, sessionId),
        },
        urgency: "normal",
        ttl: TURN_TTL,
        topic,
      },
      (s) => s.turns,
    );
  }

  private send(msg: PushMessage, filter?: (s: { turns: boolean }) => boolean) {
    let redacted: PushMessage;
    try {
      redacted = { ...msg, payload: this.opts.redact(msg.payload) };
    } catch (err) {
      log.warn("a push was not sent: its redaction failed", {
        error: err instanceof Error ? err.message : String(err),
      });
      return;
    }
    void this.opts.channel.sendAll(redacted, filter).catch((err: unknown) => {
      log.warn("push failed", { error: err instanceof Error ? err.message : String(err) });
    });
  }
}

function safeTitle(state: (() => SessionState) | undefined): string | undefined {
  try {
    return state?.().session?.title || undefined;
  } catch {
    return undefined;
  }
}
