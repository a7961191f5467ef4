import { describe, expect, it } from "vitest";
import { readBodyBytes } from "./body";

describe("readBodyBytes", () => {
  it("reads a body whole within the bound", async () => {
    const req = new Request("http://localhost/x", { method: "POST", body: "hello" });
    expect(new TextDecoder().decode(await readBodyBytes(req, 10))).toBe("hello");
  });

  it("refuses a body past the bound even when the request was cloned (a teed body) first", async () => {
    const req = new Request("http://localhost/x", { method: "POST", body: "x".repeat(200_000) });
    const kept = req.clone(); // as the audit does; never read
    await expect(readBodyBytes(req, 1000)).rejects.toMatchObject({ code: "payload_too_large" });
    expect(kept.bodyUsed).toBe(false);
  });
});
