import "server-only";
import type { Redis } from "ioredis";
import type { Placement, PlacementListener } from "../backends/placement";
import { log } from "../log";
import type { LiveStore } from "../store/store";
import { fencedStore } from "./fenced-store";
import { Ownership } from "./ownership";
import type { PeerPolicy } from "./peers";

/**
 * Placement by lease (docs/replicas.md): a backend runs on the replica that holds its lease in Redis
 * (./ownership.ts, ./lease.ts). The registry is told when a lease is won (`runHere`, still current
 * only while that very lease is held) or lost (`movedAway`), and a backend's adapter writes the store
 * only while the lease is good (./fenced-store.ts).
 */
export class LeasePlacement implements Placement {
  readonly ownership: Ownership;
  private listener: PlacementListener | undefined;

  constructor(redis: Redis, opts: { replicaId: string; replicaUrl: string; leaseTtlMs: number; peers: PeerPolicy }) {
    this.ownership = new Ownership(
      redis,
      opts.replicaId,
      opts.replicaUrl,
      {
        acquired: (id, epoch) => {
          log.info("won a backend's lease", { id, epoch });
          this.listener?.runHere(id, () => this.ownership.token(id) === `${opts.replicaId}:${epoch}`);
        },
        lost: (id, epoch) => {
          log.warn("lost a backend's lease", { id, epoch });
          this.listener?.movedAway(id);
        },
      },
      opts.leaseTtlMs,
      opts.peers,
    );
  }

  listen(listener: PlacementListener): void {
    this.listener = listener;
  }

  place(backendId: string): "later" {
    this.ownership.claim(backendId);
    return "later";
  }

  release(backendId: string): Promise<void> {
    return this.ownership.release(backendId);
  }

  runsHere(backendId: string): boolean {
    return this.ownership.owns(backendId);
  }

  storeFor(backendId: string, store: LiveStore): LiveStore {
    return fencedStore(store, backendId, () => this.ownership.mayWrite(backendId));
  }
}
