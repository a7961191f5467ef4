import "server-only";
import { Redis } from "ioredis";
import { LOGIN_LIMIT, shareAuthState } from "../auth/console-auth";
import type { BackendRegistry } from "../backends/registry";
import { ApiError, describeError } from "../errors";
import { setRouteForwarder } from "../http";
import { log } from "../log";
import type { ReplicaConfig } from "./config";
import { forwardRequest } from "./forward";
import { Ownership } from "./ownership";
import { RedisWindowLimiter } from "./redis-limiter";
import { ReplicatedSet } from "./replicated-set";

/**
 * Replica mode (`SWITCHBOARD_REDIS_URL`, docs/architecture.md "Replicas"), as this build has it:
 * one owner per backend by a lease in Redis, requests for a backend forwarded to its owner, and
 * logouts and failed logins shared by every replica. The store is PostgreSQL (shares, revocations,
 * redaction patterns and backends reach every replica through its NOTIFY).
 */
export interface ReplicaMode {
  ownership: Ownership;
  /** Publishes this replica, loads the shared sets, and starts claiming backends. */
  start(): Promise<void>;
  /** Gives up every lease (the others take the backends at once) and closes the connections. */
  stop(): Promise<void>;
}

function connect(url: string, name: string): Redis {
  // One retry per command: a lease renewal that cannot reach Redis must fail, not wait forever.
  const r = new Redis(url, { maxRetriesPerRequest: 1, connectionName: name, lazyConnect: true });
  r.on("error", (err: unknown) => log.warn("redis connection error", { connection: name, error: describeError(err) }));
  return r;
}

export function replicaMode(
  config: ReplicaConfig & { redisUrl: string; replicaUrl: string },
  registry: BackendRegistry,
  consoleToken: string,
  ready: () => Promise<void>,
): ReplicaMode {
  const redis = connect(config.redisUrl, `switchboard-${config.replicaId}`);
  const subscriber = connect(config.redisUrl, `switchboard-${config.replicaId}-sub`);
  const ownership = new Ownership(
    redis,
    config.replicaId,
    config.replicaUrl,
    { acquired: (id, epoch) => registry.acquired(id, epoch), lost: (id, epoch) => registry.lost(id, epoch) },
    config.leaseTtlMs,
  );
  registry.runUnder(ownership);
  const loggedOut = new ReplicatedSet(redis, subscriber, "logouts");
  const limiter = new RedisWindowLimiter(redis, "login", LOGIN_LIMIT);

  setRouteForwarder(async (req, backendId) => {
    await ready();
    if (!registry.get(backendId) || registry.runsHere(backendId)) return undefined; // 404 or served here
    const owner = await ownership.owner(backendId);
    if (!owner)
      throw new ApiError(
        "backend_down",
        `No replica runs ${backendId} right now (its lease is being taken over); try again`,
      );
    if (owner.replicaId === config.replicaId) return undefined;
    return forwardRequest(req, owner, { replicaId: config.replicaId, consoleToken });
  });

  return {
    ownership,
    async start() {
      try {
        await redis.connect();
        await subscriber.connect();
        await redis.ping();
      } catch (err) {
        throw new Error(`could not reach Redis (SWITCHBOARD_REDIS_URL): ${describeError(err)}`);
      }
      await ownership.start();
      await loggedOut.start();
      shareAuthState({ loggedOut, limiter });
      log.info("replica mode", { replica: config.replicaId, url: config.replicaUrl, leaseTtlMs: config.leaseTtlMs });
    },
    async stop() {
      setRouteForwarder(undefined);
      await ownership.stop();
      await loggedOut.stop();
      shareAuthState(undefined);
      redis.disconnect();
      subscriber.disconnect();
    },
  };
}
