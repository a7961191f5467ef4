import { describe, expect, it } from "vitest";
import { redactSecrets, registerSecret } from "./redact";

describe("redactSecrets", () => {
  it("removes registered secrets, URL credentials and authorization values", () => {
    registerSecret("s3cr3t-backend-password");
    const msg =
      "connect to http://admin:hunter2@10.0.0.1:4096/x failed with s3cr3t-backend-password; sent Bearer abcdefghijkl and Basic b3BlbmNvZGU6cHc=";
    const out = redactSecrets(msg);
    expect(out).not.toContain("s3cr3t-backend-password");
    expect(out).not.toContain("hunter2");
    expect(out).not.toContain("abcdefghijkl");
    expect(out).not.toContain("b3BlbmNvZGU6cHc=");
    expect(out).toContain("http://***@10.0.0.1:4096/x");
  });
  it("ignores secrets too short to be meaningful", () => {
    registerSecret("ab");
    expect(redactSecrets("abc")).toBe("abc");
  });
});
