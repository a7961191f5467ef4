import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import type { SessionExport } from "@/lib/api";
import { knownSecrets } from "../redaction/redact";
import { Redactor } from "../redaction/redactor";
import { generateSecretKey, loadSecretBox, SecretBox, SecretKeyError, secretKey } from "../auth/secret-box";
import { withoutConsoleSecrets } from "../sessions/export";
import { SqliteStore } from "../store/sqlite-store";
import { AcpAuth } from "./acp/credentials";
import { forgetKeys, opalKeysKey } from "./opal/api-keys";
import { sealedStore, startStoredSecrets } from "./stored-secrets";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "sb-secrets-"));
  dirs.push(d);
  return d;
}
const keyOf = (b64: string) => secretKey(Buffer.from(b64, "base64"));
const boxWith = (b64 = generateSecretKey(), previous: string[] = []) => new SecretBox(keyOf(b64), previous.map(keyOf));

/** An ACP backend's auth with one `env_var` method, as the Settings route reaches it (`setCredentials`). */
function acpAuth(store: SqliteStore | ReturnType<typeof sealedStore>, backendId = "acp1") {
  const auth = new AcpAuth({ backendId, label: "Agent", store, defaultCwd: "/" });
  auth.methods = [{ id: "key", name: "API key", type: "env_var", vars: [{ name: "FAKE_API_KEY" }], origin: "agent" }];
  return auth;
}

/** Every encoding the exact-value redaction covers, of `key` inside some text. */
function encodings(key: string): Record<string, string> {
  const b = (prefix: string) =>
    Buffer.from(`${prefix}${"some text around the key, long enough to wrap. ".repeat(2)}${key} tail`);
  const wrap = (s: string, cols: number) => (s.match(new RegExp(`.{1,${cols}}`, "g")) ?? []).join("\n");
  return {
    plain: `export FAKE_API_KEY=${key}`,
    b64o0: b("").toString("base64"),
    b64o1: b("x").toString("base64"),
    b64o2: b("xy").toString("base64"),
    b64w76: wrap(b("").toString("base64"), 76),
    b64w64: wrap(b("x").toString("base64"), 64),
    b64url: b("xy").toString("base64url"),
    hex: Buffer.from(key).toString("hex"),
    HEX: Buffer.from(key).toString("hex").toUpperCase(),
    xxd: wrap(b("q").toString("hex"), 60),
    percent: encodeURIComponent(key),
  };
}

/** The share redactor (patterns + held secrets) and the export's removal, as the console builds them. */
function expectRedactedEverywhere(key: string, secrets: readonly string[]) {
  // As ShareService builds it (server/shares/service.ts): the user's patterns, the built-in rules, the held secrets.
  const share = new Redactor([], secrets);
  for (const [name, text] of Object.entries(encodings(key))) {
    const shared = share.text(text);
    expect(shared, `share, ${name}`).toContain("[REDACTED:console-secret]");
    expect(shared, `share, ${name}`).not.toContain(key);
    const exported = withoutConsoleSecrets(
      { session: {}, messages: [{ text }], todos: [], exportedAt: 0 } as unknown as SessionExport,
      secrets,
    );
    expect(JSON.stringify(exported), `export, ${name}`).toContain("[REDACTED:console-secret]");
  }
}

const ACP_KEY = "acpk-7Hq2Lw9Zr4Tx6Vb1Nm8Kp3Sd";
const OPAL_KEY = "sk-ant-api03-Qw7Er5Ty2Ui9Op4As1Df6Gh";

describe("keys entered in Settings are removed from shares and exports (issue 39)", () => {
  it("an ACP key set through Settings is registered for redaction, in every encoding", () => {
    const store = sealedStore(new SqliteStore(":memory:"), boxWith());
    acpAuth(store).setCredentials("key", { FAKE_API_KEY: ACP_KEY });
    expect(knownSecrets()).toContain(ACP_KEY);
    expectRedactedEverywhere(ACP_KEY, knownSecrets());
  });

  it("an Opal key kept by `auth/set_key` is registered from the store, and forgotten with its backend", async () => {
    const raw = new SqliteStore(":memory:");
    const box = boxWith();
    // Stored by another replica (or before a restart): found in the store at start.
    sealedStore(raw, box, () => {}).setMeta(opalKeysKey("opal1"), JSON.stringify({ anthropic: OPAL_KEY }));
    const seen: string[] = [];
    await startStoredSecrets(raw, box, (s) => seen.push(s));
    expect(seen).toContain(OPAL_KEY);
    expectRedactedEverywhere(OPAL_KEY, seen);
    forgetKeys(sealedStore(raw, box), "opal1");
    expect(sealedStore(raw, box).getMeta(opalKeysKey("opal1"))).toBe("{}");
  });

  it("a key read back after a restart is registered too (not only when it is set)", async () => {
    const file = path.join(tmp(), "db.sqlite");
    const box = boxWith();
    const first = new SqliteStore(file);
    acpAuth(sealedStore(first, box, () => {})).setCredentials("key", { FAKE_API_KEY: ACP_KEY });
    first.close();
    const seen: string[] = [];
    const again = new SqliteStore(file);
    await startStoredSecrets(again, box, (s) => seen.push(s));
    expect(seen).toEqual([ACP_KEY]);
    again.close();
  });
});

describe("secrets at rest (issue 39)", () => {
  it("a key set through Settings is not in clear in the SQLite file, and decrypts after a restart", () => {
    const file = path.join(tmp(), "db.sqlite");
    const box = boxWith();
    const store = new SqliteStore(file);
    acpAuth(sealedStore(store, box)).setCredentials("key", { FAKE_API_KEY: ACP_KEY });
    sealedStore(store, box).putBackend({
      id: "oc",
      def: {
        kind: "opencode",
        label: "OC",
        config: { baseUrl: "http://127.0.0.1:4096", password: "oc-pass-Zq81Lm0P" },
      },
      createdAt: 1,
    });
    store.close();
    // The raw file and the raw rows hold no key.
    const wal = `${file}-wal`;
    const bytes = Buffer.concat([fs.readFileSync(file), fs.existsSync(wal) ? fs.readFileSync(wal) : Buffer.alloc(0)]);
    expect(bytes.includes(ACP_KEY)).toBe(false);
    expect(bytes.includes("oc-pass-Zq81Lm0P")).toBe(false);
    const db = new Database(file, { readonly: true });
    const row = db.prepare("SELECT value FROM meta WHERE key = ?").get("acp-credentials:acp1") as { value: string };
    const def = db.prepare("SELECT definition FROM backends WHERE id = 'oc'").get() as { definition: string };
    db.close();
    expect(row.value).toMatch(/^enc:v1:[0-9a-f]{8}:/);
    expect(row.value).not.toContain(ACP_KEY);
    expect(JSON.parse(def.definition).config.password).toMatch(/^enc:v1:/);
    expect(JSON.parse(def.definition).config.baseUrl).toBe("http://127.0.0.1:4096");

    // A new store on the same file, the same key: the agent gets its key back, the backend its password.
    const again = sealedStore(new SqliteStore(file), box);
    expect(acpAuth(again).env.FAKE_API_KEY).toBe(ACP_KEY);
    expect(again.listBackends()[0]?.def.config).toMatchObject({ password: "oc-pass-Zq81Lm0P" });
    again.close();
  });

  it("plaintext rows from before encryption are encrypted at start, and keep working", async () => {
    const file = path.join(tmp(), "db.sqlite");
    const legacy = new SqliteStore(file);
    legacy.setMeta("acp-credentials:old", JSON.stringify({ FAKE_API_KEY: ACP_KEY }));
    legacy.setMeta("a2a-profile:x", "generic");
    legacy.putBackend({
      id: "a2a",
      def: { kind: "a2a", label: "A", config: { url: "https://agent.example", token: "tok-Lq0Zr8Wn3Vb7" } },
      createdAt: 1,
    });
    const box = boxWith();
    const seen: string[] = [];
    await startStoredSecrets(legacy, box, (s) => seen.push(s));
    expect(seen).toContain(ACP_KEY);
    expect(legacy.getMeta("acp-credentials:old")).toMatch(/^enc:v1:/);
    expect(legacy.getMeta("a2a-profile:x")).toBe("generic"); // not a secret: left alone
    expect(JSON.stringify(legacy.listBackends())).not.toContain("tok-Lq0Zr8Wn3Vb7");
    const view = sealedStore(legacy, box);
    expect(acpAuth(view, "old").env.FAKE_API_KEY).toBe(ACP_KEY);
    expect(view.listBackends()[0]?.def.config).toMatchObject({ token: "tok-Lq0Zr8Wn3Vb7" });
    legacy.close();
  });

  it("a wrong key stops the start with a sentence naming the variable; the previous key rotates", async () => {
    const store = new SqliteStore(":memory:");
    const oldKey = generateSecretKey();
    acpAuth(sealedStore(store, boxWith(oldKey), () => {})).setCredentials("key", { FAKE_API_KEY: ACP_KEY });
    const sealedBefore = store.getMeta("acp-credentials:acp1");

    const wrong = startStoredSecrets(store, boxWith());
    await expect(wrong).rejects.toBeInstanceOf(SecretKeyError);
    await expect(wrong).rejects.toThrow(/SWITCHBOARD_SECRET_KEY.*SWITCHBOARD_SECRET_KEY_PREVIOUS/);
    // A stored value the running console cannot open is never thrown at a caller.
    expect(acpAuth(sealedStore(store, boxWith())).env.FAKE_API_KEY).toBeUndefined();

    const newKey = generateSecretKey();
    const rotating = boxWith(newKey, [oldKey]);
    await startStoredSecrets(store, rotating, () => {});
    const after = store.getMeta("acp-credentials:acp1");
    expect(after).not.toBe(sealedBefore);
    expect(after?.startsWith(`enc:v1:${keyOf(newKey).id}:`)).toBe(true);
    // The old key is no longer needed.
    expect(acpAuth(sealedStore(store, boxWith(newKey))).env.FAKE_API_KEY).toBe(ACP_KEY);
    store.close();
  });

  it("a damaged value is refused, not opened", () => {
    const box = boxWith();
    const sealed = box.seal("secret-value-123");
    const flipped = `${sealed.slice(0, -4)}${sealed.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
    expect(() => box.open(flipped)).toThrow(SecretKeyError);
    expect(box.open(sealed)).toBe("secret-value-123");
    // A random nonce per value.
    expect(box.seal("secret-value-123")).not.toBe(sealed);
  });

  it("the key: SWITCHBOARD_SECRET_KEY, else a key file made at first start (0600); replica mode needs the variable", () => {
    const dir = tmp();
    const a = loadSecretBox({ env: {}, dataDir: dir, replicaMode: false });
    const file = path.join(dir, "secret-key");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadSecretBox({ env: {}, dataDir: dir, replicaMode: false }).current.id).toBe(a.current.id);
    const k = generateSecretKey();
    expect(loadSecretBox({ env: { SWITCHBOARD_SECRET_KEY: k }, dataDir: dir, replicaMode: true }).current.id).toBe(
      keyOf(k).id,
    );
    expect(() => loadSecretBox({ env: {}, dataDir: dir, replicaMode: true })).toThrow(
      /replica mode .* needs SWITCHBOARD_SECRET_KEY/,
    );
    expect(() => loadSecretBox({ env: { SWITCHBOARD_SECRET_KEY: "short" }, dataDir: dir, replicaMode: false })).toThrow(
      /SWITCHBOARD_SECRET_KEY must be 32 random bytes/,
    );
  });
});
