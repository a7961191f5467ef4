import "server-only";
import type { Interrupt } from "@/lib/model";
import { describeError } from "../../errors";
import { log } from "../../log";
import type { EventSink } from "../types";

/** At most this many directories are asked for their pending requests at each refresh. */
const MAX_PENDING_DIRECTORIES = 32;

export interface PendingRequestsContext {
  backendId: string;
  sink: EventSink;
  /** The adapter's own directory (its instance needs no `directory` parameter). */
  home?: string;
  /** The directory of every session the adapter knows (shared with the adapter). */
  directories: ReadonlyMap<string, string>;
  /** The pending permission and question requests of one directory (undefined: the home instance), in the contract spoken. */
  list(directory: string | undefined): Promise<Interrupt[]>;
  /** The parent of a session (null for a root), in the contract spoken. */
  parentOf(sessionId: string): Promise<string | null>;
  stopped(): boolean;
}

/**
 * OpenCode's pending permission and question requests as interrupts: each shown in the session that
 * asked and in its ancestors (a subagent's request travels up; `ownerSessionId` is the root), and
 * reconciled with OpenCode's own pending lists after a reconnect or a page load.
 */
export class PendingRequests {
  private pending = new Map<string, Interrupt>();
  /** Interrupts answered or resolved recently (answering one again is a 409, not a 404). */
  private resolvedIds = new Set<string>();
  /** Parent of each session we know (null = a root session); subagent interrupts travel up. */
  readonly parents = new Map<string, string | null>();
  /** Interrupts whose audience is still being resolved; a resolution waits for it. */
  private publishing = new Map<string, Promise<void>>();
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;

  constructor(private ctx: PendingRequestsContext) {}

  get(id: string): Interrupt | undefined {
    return this.pending.get(id);
  }
  list(): Interrupt[] {
    return [...this.pending.values()];
  }
  wasResolved(id: string): boolean {
    return this.resolvedIds.has(id);
  }

  private async parentOf(sessionId: string): Promise<string | null> {
    const known = this.parents.get(sessionId);
    if (known !== undefined) return known;
    try {
      const parent = await this.ctx.parentOf(sessionId);
      this.parents.set(sessionId, parent);
      return parent;
    } catch {
      return null;
    }
  }

  /** The session that raised an interrupt and its ancestors: all of them show it. */
  async audience(sessionId: string): Promise<string[]> {
    const out = [sessionId];
    let cur = sessionId;
    for (let depth = 0; depth < 16; depth++) {
      const parent = await this.parentOf(cur);
      if (!parent || out.includes(parent)) break;
      out.push(parent);
      cur = parent;
    }
    return out;
  }

  request(it: Interrupt): Promise<void> {
    this.pending.set(it.id, it);
    this.resolvedIds.delete(it.id);
    const job = (async () => {
      const aud = await this.audience(it.sessionId);
      if (aud.length > 1) it.ownerSessionId = aud[aud.length - 1]!;
      if (!this.pending.has(it.id)) return;
      for (const sid of aud)
        this.ctx.sink.publish(this.ctx.backendId, sid, { type: "interrupt.requested", interrupt: it });
    })().finally(() => this.publishing.delete(it.id));
    this.publishing.set(it.id, job);
    return job;
  }

  async resolve(it: Interrupt, outcome: string): Promise<void> {
    if (!this.pending.delete(it.id)) return;
    this.resolvedIds.add(it.id);
    if (this.resolvedIds.size > 2000) this.resolvedIds.delete(this.resolvedIds.values().next().value!);
    await this.publishing.get(it.id);
    for (const sid of await this.audience(it.sessionId)) {
      this.ctx.sink.publish(this.ctx.backendId, sid, { type: "interrupt.resolved", interruptId: it.id, outcome });
    }
  }

  /** One reconciliation at a time; a call during one waits for it and for one more pass after it. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        await this.read();
      } while (this.refreshAgain && !this.ctx.stopped());
    })().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /**
   * Reconciles pending interrupts with OpenCode's pending lists. OpenCode keeps them per directory
   * (instance), so every directory the console knows sessions in is asked. An interrupt is resolved
   * here only when the list of its own directory was read and no longer has it: a list that failed
   * (a timeout, a restarting server) proves nothing, and nothing is dropped on its account.
   */
  private async read(): Promise<void> {
    // A list read before an interrupt was asked cannot prove it gone: only what was pending when
    // this read began may be resolved by its absence (an interrupt whose frame arrives while the
    // lists are in flight stays).
    const before = new Set(this.pending.keys());
    const home = this.ctx.home;
    const dirs = new Set<string | undefined>([home]);
    for (const d of this.ctx.directories.values())
      if (dirs.size < MAX_PENDING_DIRECTORIES) dirs.add(d === home ? undefined : d);
    const listed = new Set<string | undefined>();
    const found = new Map<string, Interrupt>();
    await Promise.all(
      [...dirs].map(async (directory) => {
        try {
          for (const it of await this.ctx.list(directory)) found.set(it.id, it);
          listed.add(directory);
        } catch (err) {
          log.warn("could not read OpenCode's pending requests", {
            backend: this.ctx.backendId,
            ...(directory ? { directory } : {}),
            error: describeError(err),
          });
        }
      }),
    );
    const dirOf = (sessionId: string) => {
      const d = this.ctx.directories.get(sessionId);
      return d === undefined || d === home ? undefined : d;
    };
    // Asked while we were away: publish them; gone while we were away (per a list that was read): resolve them.
    const jobs: Promise<void>[] = [];
    for (const [id, it] of found) if (!this.pending.has(id)) jobs.push(this.request(it));
    for (const [id, it] of [...this.pending])
      if (!found.has(id) && before.has(id) && listed.has(dirOf(it.sessionId)))
        jobs.push(this.resolve(it, "resolved-elsewhere"));
    await Promise.all(jobs);
  }
}
