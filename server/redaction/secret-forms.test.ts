import { describe, expect, it } from "vitest";
import { secretForms } from "./secret-forms";

const secret = "Yk3-tok/en+value_0123456789";

describe("secretForms", () => {
  it("holds the value, its URL-encoded forms and base64 cores that survive any surrounding bytes", () => {
    const forms = secretForms(secret);
    expect(forms).toContain(secret);
    expect(forms).toContain(encodeURIComponent(secret));
    expect(forms).toContain(encodeURIComponent(secret).replace(/%2F/g, "/"));
    for (const prefix of ["", "a", "ab", "user:", "Authorization: x"]) {
      for (const suffix of ["", "\n", "!", "xyz"]) {
        const enc = Buffer.from(prefix + secret + suffix).toString("base64");
        expect(
          forms.some((f) => enc.includes(f)),
          `${JSON.stringify(prefix)} … ${JSON.stringify(suffix)}`,
        ).toBe(true);
        const url = Buffer.from(prefix + secret + suffix).toString("base64url");
        expect(
          forms.some((f) => url.includes(f)),
          `base64url ${JSON.stringify(prefix)}`,
        ).toBe(true);
      }
    }
  });
  it("holds the bytes in hex, lower- and upper-case (issue 39)", () => {
    const hex = Buffer.from(secret).toString("hex");
    const forms = secretForms(secret);
    expect(forms).toContain(hex);
    expect(forms).toContain(hex.toUpperCase());
  });
  it("lists longest first, without duplicates", () => {
    const forms = secretForms("abcdefgh12345678");
    expect(new Set(forms).size).toBe(forms.length);
    expect([...forms].sort((a, b) => b.length - a.length)).toEqual(forms);
  });
});
