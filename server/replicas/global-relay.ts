import "server-only";
import type { Redis } from "ioredis";
import { z } from "zod";
import { Backend, GlobalEvent, Interrupt } from "@/lib/model";
import type { BackendRegistry } from "../backends/registry";
import { describeError } from "../errors";
import type { Hub } from "../hub/hub";
import { log } from "../log";

const CHANNEL = "sb:global";
const INFO = "sb:backend-info";
/** Per backend, the pending interrupts its owner lists (JSON), for the inbox of every replica. */
const PENDING = "sb:backend-pending";

/** A message on the global channel: the sending replica and one global event (checked on its own). */
const RelayMessage = z.object({ from: z.string().max(200), event: z.unknown() });

let skipped = 0;
/** A value read from Redis that is not what it should be: logged (now and then) and skipped. */
function skip(what: string, fields: Record<string, unknown> = {}) {
  if (skipped++ % 100 === 0) log.warn(`skipped a malformed ${what} read from Redis`, { ...fields, skipped });
}

/** JSON.parse that answers undefined for text that is not JSON. */
function parseJson(raw: string | null): unknown {
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** The backend a global event is about, if it is about one. */
function backendOf(e: GlobalEvent): string | undefined {
  switch (e.type) {
    case "backend.updated":
      return e.backend.id;
    case "session.updated":
      return e.session.backendId;
    case "session.removed":
    case "session.status":
    case "interrupt.requested":
    case "interrupt.resolved":
      return e.backendId;
    default:
      return undefined; // hello is per subscriber; backend.removed reaches every replica by the store
  }
}

/** Events after which a backend's pending list may differ. */
const touchesPending = (e: GlobalEvent) =>
  e.type === "interrupt.requested" || e.type === "interrupt.resolved" || e.type === "backend.updated";

/**
 * The global channel across replicas (docs/architecture.md, "Replicas"): each replica passes the
 * global events about the backends it runs — status, sessions listed or changed, interrupts — to
 * the others over one Redis channel, and each re-emits the others' on its own global channel, so a
 * browser on any replica sees every backend's sidebar and inbox change live. A backend's latest
 * description is also kept in a Redis hash, so a replica that does not run it lists it as its
 * owner last described it (status, models), not as an adapter that was never started.
 */
export class GlobalRelay {
  private started = false;

  constructor(
    private redis: Redis,
    private subscriber: Redis,
    private replicaId: string,
    private hub: Hub,
    private registry: BackendRegistry,
  ) {}

  async start(): Promise<void> {
    const known = await this.redis.hgetall(INFO);
    for (const raw of Object.values(known)) this.remember(raw);
    const pending = await this.redis.hgetall(PENDING);
    for (const [id, raw] of Object.entries(pending)) this.rememberPending(id, raw);
    this.subscriber.on("message", (channel: string, message: string) => {
      if (channel === CHANNEL) this.receive(message);
    });
    await this.subscriber.subscribe(CHANNEL);
    this.started = true;
  }

  stop(): void {
    this.started = false;
    void this.subscriber.unsubscribe(CHANNEL).catch(() => undefined);
  }

  private remember(raw: string) {
    const b = Backend.safeParse(parseJson(raw));
    if (b.success) this.registry.rememberRemote(b.data);
    else skip("backend description");
  }

  private rememberPending(backendId: string, raw: string | null) {
    const list = z.array(Interrupt).safeParse(raw === null ? [] : parseJson(raw));
    if (list.success) this.registry.rememberRemotePending(backendId, list.data);
    else skip("pending interrupt list", { backendId });
  }

  /** A global event this console made (the hub's `globalOut`): passed on once started, if about a backend run here. */
  send(e: GlobalEvent): void {
    if (!this.started) return;
    const backendId = backendOf(e);
    if (!backendId || !this.registry.runsHere(backendId)) return;
    const message = JSON.stringify({ from: this.replicaId, event: e });
    const done = (err: unknown) =>
      log.warn("could not pass a global event to the other replicas", { type: e.type, error: describeError(err) });
    if (e.type === "backend.updated") void this.redis.hset(INFO, backendId, JSON.stringify(e.backend)).catch(done);
    // The owner's whole pending list, written before the event is announced: a replica that hears of
    // an interrupt reads it, and one that starts later finds it.
    if (touchesPending(e)) {
      const pending = this.registry.get(backendId)?.pendingInterrupts?.() ?? [];
      void this.redis
        .hset(PENDING, backendId, JSON.stringify(pending))
        .then(() => this.redis.publish(CHANNEL, message))
        .catch(done);
      return;
    }
    void this.redis.publish(CHANNEL, message).catch(done);
  }

  private receive(message: string) {
    const parsed = RelayMessage.safeParse(parseJson(message));
    if (!parsed.success) return skip("global relay message");
    if (parsed.data.from === this.replicaId) return;
    const e = GlobalEvent.safeParse(parsed.data.event);
    if (!e.success) return skip("global relay event");
    const backendId = backendOf(e.data);
    // Only about a backend this replica lists and does not run (its own events are its own).
    if (!backendId || !this.registry.get(backendId) || this.registry.runsHere(backendId)) return;
    if (e.data.type === "backend.updated") this.registry.rememberRemote(e.data.backend);
    if (touchesPending(e.data))
      void this.redis
        .hget(PENDING, backendId)
        .then((raw) => this.rememberPending(backendId, raw))
        .catch(() => undefined);
    this.hub.emitGlobal(e.data, true);
  }
}
