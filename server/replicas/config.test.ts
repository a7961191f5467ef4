import { describe, expect, it } from "vitest";
import { readReplicaConfig, ReplicaConfigError } from "./config";

const KEY = "k".repeat(32);

describe("replica configuration", () => {
  it("nothing set: the embedded default, with a replica id of its own", () => {
    const c = readReplicaConfig({});
    expect(c.databaseUrl).toBeUndefined();
    expect(c.redisUrl).toBeUndefined();
    expect(c.replicaId).toMatch(/^[^:\s]+$/);
    expect(readReplicaConfig({}).replicaId).not.toBe(c.replicaId);
  });

  it("PostgreSQL alone, or with Redis; a given replica id is kept", () => {
    expect(readReplicaConfig({ SWITCHBOARD_DATABASE_URL: "postgres://u@db/sb" })).toMatchObject({
      databaseUrl: "postgres://u@db/sb",
    });
    const c = readReplicaConfig({
      SWITCHBOARD_DATABASE_URL: "postgresql://u:p@db:5432/sb",
      SWITCHBOARD_REDIS_URL: "rediss://cache:6379",
      SWITCHBOARD_REPLICA_ID: "a",
      SWITCHBOARD_REPLICA_URL: "https://10.0.0.5:3000",
      SWITCHBOARD_REPLICA_KEY: KEY,
      SWITCHBOARD_REPLICAS: "https://10.0.0.5:3000, 10.0.0.6:3000",
      SWITCHBOARD_LEASE_TTL_MS: "2000",
    });
    expect(c).toMatchObject({
      databaseUrl: "postgresql://u:p@db:5432/sb",
      redisUrl: "rediss://cache:6379",
      replicaId: "a",
      replicaUrl: "https://10.0.0.5:3000",
      leaseTtlMs: 2000,
    });
    expect(c.replicaKeys).toHaveLength(1);
    expect(c.peers?.allows("https://10.0.0.6:3000")).toBe(true);
    expect(c.peers?.allows("https://10.0.0.7:3000")).toBe(false);
    expect(c.peers?.allows("http://10.0.0.6:3000")).toBe(false);
    // Without a list: loopback peers only, and http:// is fine there.
    const local = readReplicaConfig({
      SWITCHBOARD_DATABASE_URL: "postgres://db/sb",
      SWITCHBOARD_REDIS_URL: "redis://127.0.0.1:6379",
      SWITCHBOARD_REPLICA_URL: "http://127.0.0.1:3001",
      SWITCHBOARD_REPLICA_KEY: `${KEY},${"p".repeat(32)}`,
    });
    expect(local.replicaKeys).toHaveLength(2);
    expect(local.peers?.allows("http://localhost:3002")).toBe(true);
    expect(local.peers?.allows("https://10.0.0.6:3000")).toBe(false);
  });

  it("replica mode needs the replicas' key, https:// beyond loopback, and its own address on the peer list", () => {
    const base = {
      SWITCHBOARD_DATABASE_URL: "postgres://db/sb",
      SWITCHBOARD_REDIS_URL: "redis://x",
      SWITCHBOARD_REPLICA_URL: "http://127.0.0.1:3000",
    };
    expect(() => readReplicaConfig(base)).toThrow(/^SWITCHBOARD_REPLICA_KEY is not set/);
    expect(() => readReplicaConfig({ ...base, SWITCHBOARD_REPLICA_KEY: "short" })).toThrow(
      /SWITCHBOARD_REPLICA_KEY must be at least 32 bytes/,
    );
    const keyed = { ...base, SWITCHBOARD_REPLICA_KEY: KEY };
    expect(() => readReplicaConfig({ ...keyed, SWITCHBOARD_REPLICA_URL: "http://10.0.0.5:3000" })).toThrow(
      /SWITCHBOARD_REPLICA_URL must use https:\/\//,
    );
    expect(() => readReplicaConfig({ ...keyed, SWITCHBOARD_REPLICA_URL: "https://10.0.0.5:3000" })).toThrow(
      /not a loopback address: list the replicas' addresses in SWITCHBOARD_REPLICAS/,
    );
    expect(() => readReplicaConfig({ ...keyed, SWITCHBOARD_REPLICAS: "https://10.0.0.5:3000" })).toThrow(
      /SWITCHBOARD_REPLICA_URL is not on SWITCHBOARD_REPLICAS/,
    );
    expect(() => readReplicaConfig({ ...keyed, SWITCHBOARD_REPLICAS: "http://10.0.0.5:3000" })).toThrow(
      /SWITCHBOARD_REPLICAS entry "http:\/\/10.0.0.5:3000" must use https/,
    );
    expect(() => readReplicaConfig({ ...keyed, SWITCHBOARD_REPLICAS: "a b" })).toThrow(/SWITCHBOARD_REPLICAS entry/);
    // Without Redis the key is not needed.
    expect(readReplicaConfig({ SWITCHBOARD_DATABASE_URL: "postgres://db/sb" }).replicaKeys).toBeUndefined();
  });

  it("says which variable is wrong and why", () => {
    expect(() => readReplicaConfig({ SWITCHBOARD_DATABASE_URL: "mysql://db/sb" })).toThrow(
      /SWITCHBOARD_DATABASE_URL must be a postgres/,
    );
    expect(() => readReplicaConfig({ SWITCHBOARD_DATABASE_URL: "not a url" })).toThrow(ReplicaConfigError);
    expect(() =>
      readReplicaConfig({ SWITCHBOARD_DATABASE_URL: "postgres://db/sb", SWITCHBOARD_REDIS_URL: "http://x" }),
    ).toThrow(/SWITCHBOARD_REDIS_URL must be a redis/);
    expect(() => readReplicaConfig({ SWITCHBOARD_REDIS_URL: "redis://x" })).toThrow(/needs SWITCHBOARD_DATABASE_URL/);
    const pg = { SWITCHBOARD_DATABASE_URL: "postgres://db/sb", SWITCHBOARD_REDIS_URL: "redis://x" };
    expect(() => readReplicaConfig(pg)).toThrow(/needs SWITCHBOARD_REPLICA_URL/);
    expect(() => readReplicaConfig({ ...pg, SWITCHBOARD_REPLICA_URL: "a:3000" })).toThrow(
      /REPLICA_URL must be an http/,
    );
    expect(() =>
      readReplicaConfig({ ...pg, SWITCHBOARD_REPLICA_URL: "http://127.0.0.1:3000", SWITCHBOARD_LEASE_TTL_MS: "5s" }),
    ).toThrow(/LEASE_TTL_MS must be a whole number/);
    expect(() =>
      readReplicaConfig({ SWITCHBOARD_DATABASE_URL: "postgres://db/sb", SWITCHBOARD_REPLICA_ID: "a:b" }),
    ).toThrow(/REPLICA_ID/);
  });
});
