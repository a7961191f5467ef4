import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mintSession, RevocationList, verifySession } from "./session-cookie";
import { deriveCookieKey } from "./token";

const key = deriveCookieKey("the-console-token-for-tests");
const other = deriveCookieKey("another-console-token-xx");

describe("session cookie", () => {
  it("round-trips and never contains the token", () => {
    const { value, session } = mintSession(key, 1_000_000);
    expect(value).not.toContain("the-console-token");
    expect(verifySession(key, value, 1_000_000)).toEqual(session);
  });

  it("rejects another key, tampering, expiry and garbage", () => {
    const now = 1_700_000_000_000;
    const { value } = mintSession(key, now, 60);
    expect(verifySession(other, value, now)).toBeUndefined();
    const [v, id, exp, sig] = value.split(".") as [string, string, string, string];
    expect(verifySession(key, [v, id, String(Number(exp) + 1000), sig].join("."), now)).toBeUndefined();
    expect(
      verifySession(key, [v, id.replace(/^./, (c) => (c === "A" ? "B" : "A")), exp, sig].join("."), now),
    ).toBeUndefined();
    expect(
      verifySession(key, [v, id, exp, sig.slice(0, -2) + (sig.endsWith("AA") ? "BB" : "AA")].join("."), now),
    ).toBeUndefined();
    expect(verifySession(key, value, now + 61_000)).toBeUndefined();
    for (const bad of ["", "v1", "v1...", `v2.${value.slice(3)}`, `${value}.x`, "x".repeat(500)]) {
      expect(verifySession(key, bad, now)).toBeUndefined();
    }
    expect(verifySession(key, undefined, now)).toBeUndefined();
  });

  it("revocations persist in the data directory until the cookie would have expired", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sb-revoke-"));
    try {
      const file = path.join(dir, "revoked.json");
      const a = mintSession(key).session;
      const b = mintSession(key, Date.now() + 3_600_000).session;
      const list = new RevocationList(file);
      list.revoke(a);
      expect(list.isRevoked(a.id)).toBe(true);
      expect(list.isRevoked(b.id)).toBe(false);
      expect(new RevocationList(file).isRevoked(a.id)).toBe(true);
      // An expired entry is dropped at the next revocation.
      list.revoke(b, (a.exp + 1) * 1000);
      expect(list.isRevoked(a.id)).toBe(false);
      expect(list.isRevoked(b.id)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("session cookie for a person (OIDC)", () => {
  const person = { user: { id: "sub-1", name: "Ada", email: "ada@example.org" }, role: "operator" as const };

  it("carries who signed in and their role, under the signature", () => {
    const now = 1_700_000_000_000;
    const { value, session } = mintSession(key, now, 60, person);
    expect(value.startsWith("v2.")).toBe(true);
    expect(verifySession(key, value, now)).toEqual(session);
    expect(verifySession(key, value, now)?.person).toEqual(person);
  });

  it("refuses a raised role, another key and expiry", () => {
    const now = 1_700_000_000_000;
    const { value } = mintSession(key, now, 60, person);
    const parts = value.split(".");
    const raised = Buffer.from(JSON.stringify({ i: "sub-1", n: "Ada", e: "ada@example.org", r: "admin" })).toString(
      "base64url",
    );
    expect(verifySession(key, [parts[0], parts[1], parts[2], raised, parts[4]].join("."), now)).toBeUndefined();
    expect(verifySession(other, value, now)).toBeUndefined();
    expect(verifySession(key, value, now + 61_000)).toBeUndefined();
    // A v1 signature does not stand for a v2 cookie without its person part.
    expect(verifySession(key, [parts[0], parts[1], parts[2], parts[4]].join("."), now)).toBeUndefined();
  });
});
