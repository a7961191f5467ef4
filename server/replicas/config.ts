import "server-only";
import { randomBytes } from "node:crypto";
import os from "node:os";
import { z } from "zod";
import { PeerPolicy, peerUrlProblem } from "./peers";
import { parseReplicaKeys, type ReplicaKeys } from "./replica-auth";

/**
 * Replica mode's configuration (docs/deploy.md): `SWITCHBOARD_DATABASE_URL` puts the store in
 * PostgreSQL, `SWITCHBOARD_REDIS_URL` turns replica mode on. Neither set: the embedded default
 * (SQLite, the hub in memory, one process). A value that is set but wrong stops the start with a
 * sentence that says which variable and why (never a half-configured replica).
 */

/** The URL's scheme, or undefined when it is not a URL. */
function scheme(u: string): string | undefined {
  try {
    return new URL(u).protocol;
  } catch {
    return undefined;
  }
}
const DatabaseUrl = z
  .string()
  .refine((u) => /^postgres(ql)?:$/.test(scheme(u) ?? ""), "must be a postgres:// or postgresql:// URL");
const HttpUrl = z.string().superRefine((u, ctx) => {
  const problem = peerUrlProblem(u);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});
const LeaseTtl = z
  .string()
  .regex(/^\d+$/, "must be a whole number of milliseconds")
  .refine((v) => Number(v) >= 500 && Number(v) <= 600_000, "must be between 500 and 600000");
const RedisUrl = z.string().refine((u) => /^rediss?:$/.test(scheme(u) ?? ""), "must be a redis:// or rediss:// URL");

export interface ReplicaConfig {
  /** PostgreSQL for the store; undefined: SQLite in the data folder. */
  databaseUrl?: string;
  /** Redis for leases, session logs, limits and revocations; undefined: one process. */
  redisUrl?: string;
  /** This replica's name in leases and logs: `SWITCHBOARD_REPLICA_ID`, else host, pid and a nonce. */
  replicaId: string;
  /** Replica mode: the URL the other replicas reach this one at (`SWITCHBOARD_REPLICA_URL`). */
  replicaUrl?: string;
  /** Replica mode: a backend's lease time to live (`SWITCHBOARD_LEASE_TTL_MS`, default 5 s). */
  leaseTtlMs: number;
  /** Replica mode: the key replicas sign their requests to each other with (`SWITCHBOARD_REPLICA_KEY`). */
  replicaKeys?: ReplicaKeys;
  /** Replica mode: the addresses this replica may contact (`SWITCHBOARD_REPLICAS`; unset: loopback only). */
  peers?: PeerPolicy;
}

export class ReplicaConfigError extends Error {
  override name = "ReplicaConfigError";
}

export function readReplicaConfig(env: Readonly<Record<string, string | undefined>> = process.env): ReplicaConfig {
  const out: ReplicaConfig = {
    leaseTtlMs: 5_000,
    replicaId:
      env.SWITCHBOARD_REPLICA_ID?.trim() || `${os.hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`,
  };
  const check = (name: string, schema: z.ZodType<string>, value: string | undefined): string | undefined => {
    if (value === undefined || value.trim() === "") return undefined;
    const r = schema.safeParse(value.trim());
    if (!r.success) throw new ReplicaConfigError(`${name} ${r.error.issues[0]?.message ?? "is not valid"}`);
    return r.data;
  };
  const databaseUrl = check("SWITCHBOARD_DATABASE_URL", DatabaseUrl, env.SWITCHBOARD_DATABASE_URL);
  const redisUrl = check("SWITCHBOARD_REDIS_URL", RedisUrl, env.SWITCHBOARD_REDIS_URL);
  if (redisUrl && !databaseUrl)
    throw new ReplicaConfigError(
      "SWITCHBOARD_REDIS_URL needs SWITCHBOARD_DATABASE_URL: replicas share one PostgreSQL store (a SQLite file is one process's)",
    );
  const replicaUrl = check("SWITCHBOARD_REPLICA_URL", HttpUrl, env.SWITCHBOARD_REPLICA_URL);
  if (redisUrl && !replicaUrl)
    throw new ReplicaConfigError(
      "SWITCHBOARD_REDIS_URL needs SWITCHBOARD_REPLICA_URL: the address the other replicas reach this one at (requests for the backends it runs are forwarded there)",
    );
  const ttl = check("SWITCHBOARD_LEASE_TTL_MS", LeaseTtl, env.SWITCHBOARD_LEASE_TTL_MS);
  if (ttl) out.leaseTtlMs = Number(ttl);
  if (/[:\s]/.test(out.replicaId)) throw new ReplicaConfigError("SWITCHBOARD_REPLICA_ID may not contain ':' or spaces");
  let replicaKeys: ReplicaKeys | undefined;
  let peers: PeerPolicy | undefined;
  if (redisUrl) {
    try {
      replicaKeys = parseReplicaKeys(env.SWITCHBOARD_REPLICA_KEY);
    } catch (err) {
      throw new ReplicaConfigError(
        `SWITCHBOARD_REPLICA_KEY ${(err as Error).message}: replicas sign their requests to each other with it (the same on every replica)`,
      );
    }
    try {
      peers = PeerPolicy.fromList(env.SWITCHBOARD_REPLICAS);
    } catch (err) {
      throw new ReplicaConfigError(`SWITCHBOARD_REPLICAS ${(err as Error).message}`);
    }
    if (replicaUrl && !peers.allows(replicaUrl))
      throw new ReplicaConfigError(
        env.SWITCHBOARD_REPLICAS?.trim()
          ? "SWITCHBOARD_REPLICA_URL is not on SWITCHBOARD_REPLICAS: the other replicas (with the same list) would never contact this one"
          : "SWITCHBOARD_REPLICA_URL is not a loopback address: list the replicas' addresses in SWITCHBOARD_REPLICAS",
      );
  }
  return {
    ...out,
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(redisUrl ? { redisUrl, ...(replicaUrl ? { replicaUrl } : {}) } : {}),
    ...(replicaKeys ? { replicaKeys } : {}),
    ...(peers ? { peers } : {}),
  };
}
