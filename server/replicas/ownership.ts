import "server-only";
import type { Redis } from "ioredis";
import { log } from "../log";
import { BackendLease, leaseHolder } from "./lease";
import { PeerPolicy } from "./peers";

/**
 * Which replica runs each backend (docs/architecture.md, "Replicas"). Every replica makes an adapter
 * for every backend, so all list the same ones; each asks for every backend's lease
 * (./lease.ts), and only the holder starts the adapter's agents and upstream subscription. Requests
 * for a backend held elsewhere are forwarded to the holder (./forward.ts), whose address this keeps
 * in Redis beside its id: `sb:replica:<id>` = the URL the other replicas reach it at. An address
 * read back is used only when it is an allowed peer (./peers.ts): whoever can write Redis cannot
 * point a backend's requests, or a live stream's, at an address of their own.
 */
export interface OwnershipEvents {
  /** This replica holds the backend's lease from now on: start its agents. */
  acquired(backendId: string, epoch: number): void;
  /** This replica lost (or gave up) the lease: stop its agents now. */
  lost(backendId: string, epoch: number): void;
}

const addressKey = (replicaId: string) => `sb:replica:${replicaId}`;

export class Ownership {
  private leases = new Map<string, BackendLease>();
  private addressTimer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private redis: Redis,
    readonly replicaId: string,
    /** The URL other replicas reach this one at (`SWITCHBOARD_REPLICA_URL`). */
    readonly url: string,
    private events: OwnershipEvents,
    readonly ttlMs = 5_000,
    /** The addresses other replicas may have (default: loopback only). */
    readonly peers: PeerPolicy = new PeerPolicy(undefined),
  ) {}

  /** Publishes this replica's address and keeps it alive (three times the lease's time to live). */
  async start(): Promise<void> {
    const publish = () => this.redis.set(addressKey(this.replicaId), this.url, "PX", this.ttlMs * 3);
    await publish();
    this.addressTimer = setInterval(() => {
      publish().catch((err: unknown) =>
        log.warn("could not publish this replica's address", {
          error: err instanceof Error ? err.message : String(err),
        }),
      );
    }, this.ttlMs);
    this.addressTimer.unref?.();
  }

  /** Starts asking for a backend's lease (nothing happens for one already followed). */
  claim(backendId: string): void {
    if (this.leases.has(backendId)) return;
    const lease = new BackendLease(
      this.redis,
      backendId,
      this.replicaId,
      {
        acquired: (epoch) => this.events.acquired(backendId, epoch),
        lost: (epoch) => this.events.lost(backendId, epoch),
      },
      this.ttlMs,
    );
    this.leases.set(backendId, lease);
    lease.start();
  }

  /** Stops asking for a backend's lease and gives it up if held (a removed backend). */
  async release(backendId: string): Promise<void> {
    const lease = this.leases.get(backendId);
    this.leases.delete(backendId);
    await lease?.stop();
  }

  /** Does this replica hold the backend's lease now? */
  owns(backendId: string): boolean {
    return this.leases.get(backendId)?.epoch !== undefined;
  }

  /** May this replica write for the backend now (held, and renewed within the lease's time)? */
  mayWrite(backendId: string): boolean {
    return this.leases.get(backendId)?.valid ?? false;
  }

  /** The lease value while held here (`<replica>:<epoch>`): what fenced writes compare. */
  token(backendId: string): string | undefined {
    return this.leases.get(backendId)?.token;
  }

  /** The replica that holds a backend's lease and the URL it is reached at, if any holds it. */
  async owner(backendId: string): Promise<{ replicaId: string; url: string; epoch: number } | undefined> {
    const holder = await leaseHolder(this.redis, backendId);
    if (!holder) return undefined;
    const url = await this.addressOf(holder.replica);
    return url ? { replicaId: holder.replica, url, epoch: holder.epoch } : undefined;
  }

  /**
   * The URL a replica is reached at, while it is alive (it renews its address with its leases), and
   * only when it is an allowed peer; undefined otherwise (a refused address is logged once).
   */
  async addressOf(replicaId: string): Promise<string | undefined> {
    if (replicaId === this.replicaId) return this.url;
    if (!/^[^\s:]{1,200}$/.test(replicaId)) return undefined;
    const stored = await this.redis.get(addressKey(replicaId));
    return stored === null ? undefined : this.peers.check(replicaId, stored);
  }

  /** Gives up every lease (a stopping replica: the others take its backends at once). */
  async stop(): Promise<void> {
    if (this.addressTimer) clearInterval(this.addressTimer);
    const leases = [...this.leases.values()];
    this.leases.clear();
    await Promise.allSettled(leases.map((l) => l.stop()));
    await this.redis.del(addressKey(this.replicaId)).catch(() => undefined);
  }
}
