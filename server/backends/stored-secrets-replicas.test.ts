import { afterAll, beforeAll, expect, it } from "vitest";
import { until } from "@/testkit/until";
import { type PostgresServer, startPostgres } from "../../testkit/postgres-server";
import { Redactor } from "../redaction/redactor";
import { generateSecretKey, SecretBox, secretKey } from "../auth/secret-box";
import { CachedStore } from "../store/cached-store";
import { PostgresStore } from "../store/postgres-store";
import { AcpAuth } from "./acp/credentials";
import { sealedStore, startStoredSecrets } from "./stored-secrets";

/** Two replicas on one real PostgreSQL (testkit/postgres-server.ts), each with its CachedStore and its own redactor registry. */
let server: PostgresServer;
const closers: (() => unknown)[] = [];
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  for (const c of closers.reverse()) await c();
  await server?.stop();
});

const box = new SecretBox(secretKey(Buffer.from(generateSecretKey(), "base64")));

async function replica() {
  const raw = await CachedStore.open(await PostgresStore.open(server.url), { transcripts: "owned" });
  const known = new Set<string>();
  const register = (s: string) => known.add(s);
  const store = sealedStore(raw, box, register);
  const stop = await startStoredSecrets(raw, box, register);
  closers.push(() => raw.close(), stop);
  return { raw, store, known };
}

const KEY = "acpk-Rw5Tq8Yz2Xc7Vn4Bm1Lk9Jh";

it("a key entered in Settings on one replica is registered with the redactor of another (the store's NOTIFY)", async () => {
  const a = await replica();
  const b = await replica();
  const auth = new AcpAuth({ backendId: "acp1", label: "Agent", store: a.store, defaultCwd: "/" });
  auth.methods = [{ id: "key", name: "API key", type: "env_var", vars: [{ name: "FAKE_API_KEY" }], origin: "agent" }];
  auth.setCredentials("key", { FAKE_API_KEY: KEY });
  await a.raw.flushed();
  await until(() => b.known.has(KEY), "B registers the key A stored");
  // Sealed in the database, as every replica reads it.
  expect(b.raw.getMeta("acp-credentials:acp1") ?? "").toMatch(/^enc:v1:/);
  const shared = new Redactor([], [...b.known]).text(`key ${KEY} and ${Buffer.from(`x:${KEY}`).toString("base64")}`);
  expect(shared).not.toContain(KEY);
  expect(shared).not.toContain(Buffer.from(KEY).toString("base64").slice(4, 20));
  // B opens it for its own agent (it takes the backend over).
  expect(b.store.getMeta("acp-credentials:acp1")).toBe(JSON.stringify({ FAKE_API_KEY: KEY }));

  // A backend's password stored by A: sealed in the database, in clear for B's registry.
  a.store.putBackend({
    id: "oc",
    def: { kind: "opencode", label: "OC", config: { baseUrl: "http://127.0.0.1:4096", password: "oc-Pw4Zq9Lm2X" } },
    createdAt: 1,
  });
  await a.raw.flushed();
  await until(() => b.raw.listBackends().some((x) => x.id === "oc"), "B sees the backend");
  expect(JSON.stringify(b.raw.listBackends())).not.toContain("oc-Pw4Zq9Lm2X");
  expect(b.store.listBackends().find((x) => x.id === "oc")?.def.config).toMatchObject({ password: "oc-Pw4Zq9Lm2X" });
});
