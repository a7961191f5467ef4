import { afterAll, beforeAll, expect, it } from "vitest";
import { until } from "@/lib/testing/until";
import { type PostgresServer, startPostgres } from "../../e2e/fixtures/postgres-server";
import { PostgresStore } from "./postgres-store";
import { StoreCache } from "./store-cache";
import type { StoredShare } from "./store";

let server: PostgresServer;
const stores: PostgresStore[] = [];
const caches: StoreCache[] = [];
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  for (const c of caches) await c.close();
  for (const s of stores) await s.close();
  await server?.stop();
});

async function replica(): Promise<{ store: PostgresStore; cache: StoreCache }> {
  const store = await PostgresStore.open(server.url);
  stores.push(store);
  const cache = await StoreCache.open(store, ["search-tool-outputs"]);
  caches.push(cache);
  return { store, cache };
}

const share: StoredShare = {
  id: "sh1",
  tokenHash: "h1",
  backendId: "b",
  sessionId: "s",
  sessionTitle: "S",
  live: true,
  includeToolOutput: false,
  createdAt: 1,
  expiresAt: null,
  accessCount: 0,
};

it("a share revoked, a redaction pattern added or a setting changed on replica A is in B's cache within a second", async () => {
  const a = await replica();
  const b = await replica();
  await a.store.insertShare(share);
  await until(() => b.cache.shareByTokenHash("h1"), "B sees the new share");
  expect(b.cache.shareByTokenHash("h1")?.revokedAt).toBeUndefined();

  const t0 = Date.now();
  await a.store.revokeShare("sh1", 42);
  await until(() => b.cache.shareByTokenHash("h1")?.revokedAt === 42, "B sees the revocation");
  expect(Date.now() - t0).toBeLessThan(1000);

  await a.store.insertRedactionPattern({ id: "p", label: "L", pattern: "sk-", regex: false, createdAt: 1 });
  await until(() => b.cache.listRedactionPatterns().length === 1, "B sees the pattern");
  await a.store.setMeta("search-tool-outputs", "0");
  await until(() => b.cache.getMeta("search-tool-outputs") === "0", "B sees the setting");
  await a.store.putBackend({ id: "x", def: { kind: "opencode", label: "X", config: {} }, createdAt: 1 });
  await until(() => b.cache.listBackends().some((x) => x.id === "x"), "B sees the backend");
  // A replica that opens later starts from the tables as they are.
  const c = await replica();
  expect(c.cache.getShare("sh1")?.revokedAt).toBe(42);
});
