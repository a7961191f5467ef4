import "server-only";
import type { InterruptBook } from "../shared/interrupts";
import { isBusy } from "../shared/turn-lifecycle";
import { toInterrupt } from "./normalize";
import type { OpencodeOps } from "./opencode";
import type { A2aSessions, Runtime } from "./sessions";

export interface PendingRequestsContext {
  sessions: A2aSessions;
  interrupts: InterruptBook<void>;
  /** The session's runtime (read from the agent when the console does not know it yet). */
  runtime(sessionId: string): Promise<Runtime>;
  /** A notice on the session's last turn. */
  notice(rt: Runtime, text: string): void;
}

/**
 * opencode-a2a's pending permissions and questions (docs/backends/a2a.md): the console interrupt of
 * each request id, the re-read of the agent's list, and the expiry of each at its `expires_at`.
 */
export class PendingRequests {
  /** opencode-a2a request id → console interrupt id (and back through the book's key). */
  private requests = new Map<string, string>();
  private expiryTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private refreshing: Promise<void> | undefined;

  constructor(private ctx: PendingRequestsContext) {}

  /** The console interrupt of a request, for `phase: resolved`. */
  interruptOf(requestId: string): string | undefined {
    return this.requests.get(requestId);
  }

  remember(requestId: string, interruptId: string): void {
    this.requests.set(requestId, interruptId);
  }

  stop(): void {
    for (const t of this.expiryTimers.values()) clearTimeout(t);
  }

  /** An interrupt that expired before it was answered: resolved as such, and said in the timeline. */
  expired(rt: Runtime, interruptId: string) {
    const p = this.ctx.interrupts.get(interruptId);
    if (!p) return;
    this.ctx.interrupts.settle(interruptId, "expired", undefined);
    this.ctx.notice(
      rt,
      `${p.interrupt.kind === "question" ? "A question" : "A permission request"} expired before it was answered: ${p.interrupt.title}`,
    );
  }

  /**
   * The pending permissions and questions as the agent lists them (after a reconnect, a console
   * restart, a page load): new ones are raised (once: keyed by request id), ones no longer listed
   * are resolved, and each expires at its `expires_at`.
   */
  refresh(ops: OpencodeOps): Promise<void> {
    this.refreshing ??= (async () => {
      const items = await ops.pending();
      const listed = new Set<string>();
      const now = Date.now();
      for (const item of items) {
        if (item.expiresAt !== undefined && item.expiresAt <= now) continue;
        if (item.ask.kind === "input") continue;
        listed.add(item.ask.requestId);
        const rt =
          this.ctx.sessions.ofAgent(item.sessionId) ?? (await this.ctx.runtime(item.sessionId).catch(() => undefined));
        if (!rt) continue;
        const requestId = item.ask.requestId;
        const id = this.requests.get(requestId) ?? this.ctx.interrupts.newId();
        const { interrupt } = this.ctx.interrupts.raise({
          sessionId: rt.id,
          interrupt: toInterrupt(rt.norm, item.ask, id, now),
          key: requestId,
          epoch: 0,
          respond: () => undefined,
        });
        this.requests.set(requestId, interrupt.id);
        if (item.expiresAt !== undefined && !this.expiryTimers.has(interrupt.id)) {
          const t = setTimeout(
            () => {
              this.expiryTimers.delete(interrupt.id);
              this.expired(rt, interrupt.id);
            },
            Math.min(item.expiresAt - now, 2 ** 31 - 1),
          );
          t.unref?.();
          this.expiryTimers.set(interrupt.id, t);
        }
      }
      for (const it of this.ctx.interrupts.list()) {
        if (it.kind === "input") continue;
        const key = this.ctx.interrupts.get(it.id)?.key;
        const rt = this.ctx.sessions.known(it.sessionId);
        // A live stream resolves its own; the others are gone when the agent no longer lists them.
        if (key && !listed.has(key) && !(rt && isBusy(rt) && !rt.watching))
          this.ctx.interrupts.settle(it.id, "resolved-elsewhere", undefined);
      }
    })().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }
}
