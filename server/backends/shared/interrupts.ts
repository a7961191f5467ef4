import "server-only";
import { randomBytes } from "node:crypto";
import { interruptLimitError, refusedInterruptMessage, refusedInterruptNotice } from "@/lib/interrupt-limits";
import type { Interrupt, TimelineEvent } from "@/lib/model";
import { ApiError } from "../../errors";
import { log } from "../../log";

/** One interrupt the agent is waiting on, with the way to send it the answer. */
export interface PendingInterrupt<R> {
  sessionId: string;
  interrupt: Interrupt;
  /** The upstream request's own identity (JSON-RPC id, task id …), for re-raises after a reconnect. */
  key?: string;
  /** Which connection (process generation, stream) asked; `expire()` matches on it. */
  epoch: number;
  respond(response: R): void;
  /**
   * Tells the agent its request was refused (over the bounds of lib/interrupt-limits.ts) with the
   * message to give it: a JSON-RPC error, a cancelled form … Without it the agent is not answered.
   */
  refuse?(message: string): void;
}

export interface InterruptBookOptions {
  /** Publishes events of a session (`interrupt.requested`, `interrupt.resolved`). */
  emit(sessionId: string, events: TimelineEvent[]): void;
  /** Prefix of generated interrupt ids (default "int"). */
  idPrefix?: string;
  /** How many answered ids are remembered for a clear 409 (default 1000). */
  remember?: number;
}

/**
 * Interrupt bookkeeping for adapters whose backend asks through a request that waits for the
 * answer (ACP `session/request_permission`, JSON-RPC server→client requests, A2A `input-required`):
 *
 * - pending: `raise()` gives the interrupt a console id (upstream ids repeat after a restart),
 *   publishes `interrupt.requested` and keeps the responder;
 * - answered: `take()` finds the pending one for an answer (404 unknown, 409 already answered),
 *   `settle()` sends the response and publishes `interrupt.resolved`;
 * - expired: `expire()` settles, with a "cancelled" response, every one that matches (its process
 *   died, its turn ended, the session was aborted);
 * - re-raised: a backend that asks again for the same request after a reconnect (same `key`) gets
 *   the same interrupt id; the new responder replaces the old one and nothing is published twice.
 */
export class InterruptBook<R> {
  private pending = new Map<string, PendingInterrupt<R>>();
  private byKey = new Map<string, string>();
  private answered = new Set<string>();

  constructor(private opts: InterruptBookOptions) {}

  /** A fresh console id for an interrupt. */
  newId(): string {
    return `${this.opts.idPrefix ?? "int"}_${randomBytes(9).toString("base64url")}`;
  }

  /**
   * Records a pending interrupt and publishes `events` (which should hold its `interrupt.requested`).
   * With a `key` already pending for the session, it is a re-raise: the responder is replaced, the
   * known interrupt is returned and nothing is published.
   */
  raise(
    p: PendingInterrupt<R>,
    events: TimelineEvent[] = [{ type: "interrupt.requested", interrupt: p.interrupt }],
  ): { interrupt: Interrupt; reraised: boolean; refused?: string } {
    // Over the bounds (a megabyte form schema, thousands of options): never kept, never shown; the
    // agent gets a clear error and the session a notice.
    const reason = interruptLimitError(p.interrupt);
    if (reason) {
      const message = refusedInterruptMessage(p.interrupt, reason);
      log.warn("refused an interrupt over the console's bounds", {
        sessionId: p.sessionId,
        kind: p.interrupt.kind,
        reason,
      });
      this.opts.emit(p.sessionId, [
        ...events.filter((e) => e.type !== "interrupt.requested"),
        ...refusedInterruptNotice(p.interrupt, reason),
      ]);
      p.refuse?.(message);
      return { interrupt: p.interrupt, reraised: false, refused: message };
    }
    const k = p.key !== undefined ? `${p.sessionId}\u0000${p.key}` : undefined;
    const known = k ? this.byKey.get(k) : undefined;
    const existing = known ? this.pending.get(known) : undefined;
    if (existing) {
      existing.respond = p.respond;
      existing.epoch = p.epoch;
      return { interrupt: existing.interrupt, reraised: true };
    }
    this.pending.set(p.interrupt.id, p);
    if (k) this.byKey.set(k, p.interrupt.id);
    this.opts.emit(p.sessionId, events);
    return { interrupt: p.interrupt, reraised: false };
  }

  get(id: string): PendingInterrupt<R> | undefined {
    return this.pending.get(id);
  }

  /** The pending interrupt an answer is for: 404 when unknown (or of another session), 409 when already answered. */
  take(sessionId: string, id: string): PendingInterrupt<R> {
    const p = this.pending.get(id);
    if (p && p.sessionId === sessionId) return p;
    if (this.answered.has(id)) throw ApiError.conflict(`Interrupt ${id} was already answered`);
    throw ApiError.notFound(`Unknown interrupt: ${id}`);
  }

  /**
   * Sends `response`, forgets the interrupt and publishes `interrupt.resolved` with `outcome`
   * ("allow_once", "answered", "cancelled" …). False when it was no longer pending.
   */
  settle(id: string, outcome: string, response: R): boolean {
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    if (p.key !== undefined) this.byKey.delete(`${p.sessionId}\u0000${p.key}`);
    this.answered.add(id);
    if (this.answered.size > (this.opts.remember ?? 1000)) this.answered.delete(this.answered.values().next().value!);
    p.respond(response);
    this.opts.emit(p.sessionId, [{ type: "interrupt.resolved", interruptId: id, outcome }]);
    return true;
  }

  /** Settles every pending interrupt that matches with `response` and outcome "cancelled"; returns how many. */
  expire(match: (p: PendingInterrupt<R>) => boolean, response: R, outcome = "cancelled"): number {
    let n = 0;
    for (const [id, p] of [...this.pending]) if (match(p) && this.settle(id, outcome, response)) n++;
    return n;
  }

  /** Pending interrupts, of one session or all. */
  list(sessionId?: string): Interrupt[] {
    const out: Interrupt[] = [];
    for (const p of this.pending.values())
      if (sessionId === undefined || p.sessionId === sessionId) out.push(p.interrupt);
    return out;
  }

  get size(): number {
    return this.pending.size;
  }
}
