import { describe, expect, it } from "vitest";
import { readReplicaConfig, ReplicaConfigError } from "./config";

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
    expect(
      readReplicaConfig({
        SWITCHBOARD_DATABASE_URL: "postgresql://u:p@db:5432/sb",
        SWITCHBOARD_REDIS_URL: "redis://cache:6379",
        SWITCHBOARD_REPLICA_ID: "a",
        SWITCHBOARD_REPLICA_URL: "http://10.0.0.5:3000",
        SWITCHBOARD_LEASE_TTL_MS: "2000",
      }),
    ).toEqual({
      databaseUrl: "postgresql://u:p@db:5432/sb",
      redisUrl: "redis://cache:6379",
      replicaId: "a",
      replicaUrl: "http://10.0.0.5:3000",
      leaseTtlMs: 2000,
    });
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
      readReplicaConfig({ ...pg, SWITCHBOARD_REPLICA_URL: "http://a:3000", SWITCHBOARD_LEASE_TTL_MS: "5s" }),
    ).toThrow(/LEASE_TTL_MS must be a whole number/);
    expect(() =>
      readReplicaConfig({ SWITCHBOARD_DATABASE_URL: "postgres://db/sb", SWITCHBOARD_REPLICA_ID: "a:b" }),
    ).toThrow(/REPLICA_ID/);
  });
});
