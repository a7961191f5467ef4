/**
 * Input forms (`Interrupt.input.schema`, lib/model.ts): the zod schema of a form's values, built
 * from its JSON-schema subset. Isomorphic: the form in the browser
 * (components/interrupts/input-form.tsx) and the interrupt route on the server validate with the
 * same code, so what the browser accepts the server accepts too.
 */
import { z } from "zod";
import type { InputField, InputSchema } from "./model";

export type InputValue = string | number | boolean;
export type InputValues = Record<string, InputValue>;

/** The fields of a form in display order, with whether each is required. */
export function formFields(schema: InputSchema): { name: string; field: InputField; required: boolean }[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, field]) => ({ name, field, required: required.has(name) }));
}

/** A field's label: its title, else its name. */
export function fieldLabel(name: string, field: InputField): string {
  return field.title?.trim() || name;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function stringSchema(f: InputField): z.ZodType<string> {
  if (f.enum && f.enum.length > 0) {
    const allowed = f.enum;
    return z.string().refine((v) => allowed.includes(v), { message: "Pick one of the offered values" });
  }
  let s = z.string();
  if (f.minLength !== undefined) s = s.min(f.minLength, { message: `At least ${f.minLength} characters` });
  if (f.maxLength !== undefined) s = s.max(f.maxLength, { message: `At most ${f.maxLength} characters` });
  const fmt = f.format;
  if (!fmt) return s;
  return s.refine(
    (v) => {
      if (fmt === "email") return EMAIL.test(v);
      if (fmt === "uri") return URL.canParse(v);
      if (fmt === "date") return DATE.test(v) && !Number.isNaN(Date.parse(v));
      return !Number.isNaN(Date.parse(v));
    },
    {
      message:
        fmt === "email"
          ? "Not an email address"
          : fmt === "uri"
            ? "Not a URL"
            : fmt === "date"
              ? "Not a date (YYYY-MM-DD)"
              : "Not a date and time",
    },
  );
}

function numberSchema(f: InputField): z.ZodType<number> {
  let n = z.number({ message: f.type === "integer" ? "A whole number" : "A number" });
  if (f.type === "integer") n = n.int({ message: "A whole number" });
  if (f.minimum !== undefined) n = n.min(f.minimum, { message: `At least ${f.minimum}` });
  if (f.maximum !== undefined) n = n.max(f.maximum, { message: `At most ${f.maximum}` });
  return n;
}

function fieldSchema(f: InputField): z.ZodType<InputValue> {
  if (f.type === "boolean") return z.boolean({ message: "Yes or no" });
  if (f.type === "number" || f.type === "integer") return numberSchema(f);
  return stringSchema(f);
}

/**
 * The zod schema of the values a form accepts: every field of its type and constraints, the
 * required ones present (a required string must not be blank), no field the form does not have.
 */
export function inputValuesSchema(schema: InputSchema): z.ZodType<InputValues> {
  const shape: Record<string, z.ZodType<InputValue | undefined>> = {};
  for (const { name, field, required } of formFields(schema)) {
    let s = fieldSchema(field);
    if (required && field.type === "string")
      s = (s as z.ZodType<string>).refine((v) => v.trim() !== "", { message: "Required" });
    shape[name] = required ? s : s.optional();
  }
  return z.object(shape).strict() as unknown as z.ZodType<InputValues>;
}

/** Validates a form's values: the values, or a message per field (and `_form` for unknown keys). */
export function checkInputValues(
  schema: InputSchema,
  values: unknown,
): { ok: true; values: InputValues } | { ok: false; errors: Record<string, string> } {
  const r = inputValuesSchema(schema).safeParse(values);
  if (r.success) return { ok: true, values: r.data };
  const errors: Record<string, string> = {};
  for (const issue of r.error.issues) {
    const key = issue.path.length > 0 ? String(issue.path[0]) : "_form";
    if (issue.code === "unrecognized_keys") errors._form ??= `Unknown field(s): ${issue.keys.join(", ")}`;
    else if (issue.code === "invalid_type" && (typeof values !== "object" || values === null || !(key in values)))
      errors[key] ??= "Required";
    else errors[key] ??= issue.message;
  }
  return { ok: false, errors };
}

/**
 * The values of a form as typed in the browser (every input is text; booleans are checkboxes):
 * blanks dropped, numbers parsed (an unparsable number is kept as text so validation names it).
 */
export function valuesFromDraft(schema: InputSchema, draft: Record<string, string | boolean>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { name, field } of formFields(schema)) {
    const v = draft[name];
    if (v === undefined) continue;
    if (field.type === "boolean") {
      out[name] = v === true;
      continue;
    }
    if (typeof v !== "string" || v.trim() === "") continue;
    if (field.type === "number" || field.type === "integer") {
      const n = Number(v.trim());
      out[name] = Number.isFinite(n) ? n : v;
    } else out[name] = v;
  }
  return out;
}

/** The initial draft of a form: each field's default, booleans unchecked unless defaulted. */
export function initialDraft(schema: InputSchema): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const { name, field } of formFields(schema)) {
    if (field.type === "boolean") out[name] = field.default === true;
    else out[name] = field.default === undefined || typeof field.default === "boolean" ? "" : String(field.default);
  }
  return out;
}
