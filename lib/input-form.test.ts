import { describe, expect, it } from "vitest";
import type { InputSchema } from "./model";
import { checkInputValues, formFields, initialDraft, valuesFromDraft } from "./input-form";

const schema: InputSchema = {
  type: "object",
  properties: {
    name: { type: "string", title: "Project name", minLength: 2 },
    license: { type: "string", enum: ["MIT", "Apache-2.0"], enumNames: ["MIT", "Apache 2.0"] },
    stars: { type: "integer", minimum: 0, maximum: 10 },
    ratio: { type: "number" },
    private: { type: "boolean", default: true },
    email: { type: "string", format: "email" },
  },
  required: ["name", "license"],
};

describe("input forms", () => {
  it("lists fields in schema order with their required flag", () => {
    expect(formFields(schema).map((f) => [f.name, f.required])).toEqual([
      ["name", true],
      ["license", true],
      ["stars", false],
      ["ratio", false],
      ["private", false],
      ["email", false],
    ]);
  });

  it("accepts values that fit", () => {
    const r = checkInputValues(schema, {
      name: "sb",
      license: "MIT",
      stars: 3,
      ratio: 0.5,
      private: false,
      email: "a@b.io",
    });
    expect(r).toEqual({
      ok: true,
      values: { name: "sb", license: "MIT", stars: 3, ratio: 0.5, private: false, email: "a@b.io" },
    });
  });

  it("names every field that does not fit", () => {
    const r = checkInputValues(schema, { name: " ", license: "GPL", stars: 2.5, email: "nope" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.keys(r.errors).sort()).toEqual(["email", "license", "name", "stars"]);
    expect(r.errors.license).toMatch(/offered/);
    expect(r.errors.stars).toMatch(/whole/);
  });

  it("reports missing required fields and unknown ones", () => {
    const r = checkInputValues(schema, { extra: "x" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.name).toBe("Required");
    expect(r.errors.license).toBe("Required");
    expect(r.errors._form).toMatch(/extra/);
  });

  it("refuses values of the wrong type and bounds", () => {
    const r = checkInputValues(schema, { name: "ok", license: "MIT", stars: 11, ratio: "1", private: "yes" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.keys(r.errors).sort()).toEqual(["private", "ratio", "stars"]);
  });

  it("turns a browser draft into typed values (blanks dropped, numbers parsed)", () => {
    const draft = { ...initialDraft(schema), name: "sb", license: "MIT", stars: "4", ratio: "abc" };
    expect(initialDraft(schema).private).toBe(true);
    const values = valuesFromDraft(schema, draft);
    expect(values).toEqual({ name: "sb", license: "MIT", stars: 4, ratio: "abc", private: true });
    const r = checkInputValues(schema, values);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(Object.keys(r.errors)).toEqual(["ratio"]);
  });
});
