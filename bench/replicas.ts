/**
 * The Redis cost per published delta and the follower's delivery latency: the session log's own bench
 * (server/replicas/session-log.bench.ts, beside the part it measures) run in a process of its own.
 * Replica mode is reached only through the composition root; this runs the part's bench by its path,
 * as Vitest runs the part's tests.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

export interface ReplicaFigures {
  /** µs per delta published into a hub channel (state materialized, frame encoded). */
  hubUsPerDelta: number;
  /** µs per delta appended to the Redis Stream one at a time (the frame encoded, the lease checked). */
  redisUsPerDelta: number;
  /** µs per delta appended 16 at a time (a frame's coalesced deltas). */
  redisBatchedUsPerDelta: number;
  /** ms from the owner's append to another replica's follower, at 1,000 deltas/s. */
  followLatency: { p50: number; p99: number };
}

const root = path.resolve(import.meta.dirname, "..");
const BENCH = path.join(root, "server", "replicas", "session-log.bench.ts");

export async function replicasBench(): Promise<ReplicaFigures> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", BENCH],
    { cwd: root, maxBuffer: 1 << 20 },
  );
  const last = stdout.trim().split("\n").at(-1) ?? "";
  const figures = JSON.parse(last) as ReplicaFigures;
  if (typeof figures.redisUsPerDelta !== "number" || typeof figures.followLatency?.p99 !== "number")
    throw new Error(`the session log's bench printed no figures: ${last.slice(0, 200)}`);
  return figures;
}
