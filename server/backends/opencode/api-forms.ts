/**
 * OpenCode's `form.*` requests (upstream main's `/api` generation, docs/backends/opencode.md "Two
 * generations of /api") ↔ the console's interrupts. The shapes are anomalyco/opencode's
 * packages/sdk/js/src/v2/gen/types.gen.ts at ac9ce83255790c38fd9ec2d943ead6180ee7f591:
 * `FormFormInfo {id, sessionID, title?, metadata?, mode: "form", fields}` (fields: string — with
 * `options` a choice —, number, integer, boolean, multiselect), `FormUrlInfo {…, mode: "url", url}`,
 * answered with `POST /api/session/{sessionID}/form/{formID}/reply {answer: FormAnswer}` (a value per
 * field key: the chosen options' `value`s) or `…/cancel`.
 *
 * A form whose every field is a choice (a string with options, or a multiselect) is asked as a
 * question (each field a question, the options' labels its choices), as OpenCode's own questions
 * are; any other form as an `input` form (lib/input-form.ts); a URL form as an `input` without
 * fields whose text names the page. Pure, and checked with zod: a malformed form yields nothing.
 */
import { z } from "zod";
import type { InterruptAnswer } from "@/lib/api";
import { checkInputValues } from "@/lib/input-form";
import type { InputField, InputSchema, Interrupt, Question } from "@/lib/model";
import { ApiError } from "../../errors";
import { questionAnswers } from "../shared/answers";

/** JSON numbers, or the non-finite ones Effect's schema writes as strings ("NaN", "Infinity"). */
const Num = z.union([z.number(), z.string()]);
const Option = z.object({ value: z.string(), label: z.string(), description: z.string().optional() }).loose();
const base = {
  key: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
  required: z.boolean().optional(),
};
const Field = z.discriminatedUnion("type", [
  z
    .object({
      ...base,
      type: z.literal("string"),
      format: z.enum(["email", "uri", "date", "date-time"]).optional(),
      minLength: z.number().optional(),
      maxLength: z.number().optional(),
      default: z.string().optional(),
      options: z.array(Option).optional(),
      custom: z.boolean().optional(),
    })
    .loose(),
  z
    .object({
      ...base,
      type: z.literal("number"),
      minimum: Num.optional(),
      maximum: Num.optional(),
      default: Num.optional(),
    })
    .loose(),
  z
    .object({
      ...base,
      type: z.literal("integer"),
      minimum: Num.optional(),
      maximum: Num.optional(),
      default: Num.optional(),
    })
    .loose(),
  z.object({ ...base, type: z.literal("boolean"), default: z.boolean().optional() }).loose(),
  z
    .object({
      ...base,
      type: z.literal("multiselect"),
      options: z.array(Option),
      custom: z.boolean().optional(),
      default: z.array(z.string()).optional(),
    })
    .loose(),
]);
type Field = z.infer<typeof Field>;

const sid = z.string().regex(/^ses/);
export const FormInfo = z.discriminatedUnion("mode", [
  z
    .object({
      id: z.string().min(1),
      sessionID: sid,
      title: z.string().optional(),
      mode: z.literal("form"),
      fields: z.array(Field),
    })
    .loose(),
  z
    .object({
      id: z.string().min(1),
      sessionID: sid,
      title: z.string().optional(),
      mode: z.literal("url"),
      url: z.string(),
    })
    .loose(),
]);
export type FormInfo = z.infer<typeof FormInfo>;
export type FormValue = string | number | boolean | string[];
export type FormAnswer = Record<string, FormValue>;

const isChoice = (f: Field) => (f.type === "string" && (f.options?.length ?? 0) > 0) || f.type === "multiselect";
const asQuestion = (fields: Field[]) => fields.length > 0 && fields.every(isChoice);
const finite = (n: unknown) => (typeof n === "number" && Number.isFinite(n) ? n : undefined);

function question(f: Field): Question {
  const options = f.type === "string" || f.type === "multiselect" ? (f.options ?? []) : [];
  return {
    ...(f.title ? { header: f.title } : {}),
    question: f.description ?? f.title ?? f.key,
    options: options.map((o) => ({ label: o.label, ...(o.description ? { description: o.description } : {}) })),
    ...(f.type === "multiselect" ? { multiple: true } : {}),
    custom: (f.type === "string" || f.type === "multiselect") && f.custom === true,
  };
}

function inputField(f: Field): InputField {
  const about = { ...(f.title ? { title: f.title } : {}), ...(f.description ? { description: f.description } : {}) };
  switch (f.type) {
    case "string":
      return {
        type: "string",
        ...about,
        ...(f.options?.length ? { enum: f.options.map((o) => o.value), enumNames: f.options.map((o) => o.label) } : {}),
        ...(f.format ? { format: f.format } : {}),
        ...(f.minLength !== undefined ? { minLength: f.minLength } : {}),
        ...(f.maxLength !== undefined ? { maxLength: f.maxLength } : {}),
        ...(f.default !== undefined ? { default: f.default } : {}),
      };
    case "number":
    case "integer": {
      const [min, max, def] = [finite(f.minimum), finite(f.maximum), finite(f.default)];
      return {
        type: f.type,
        ...about,
        ...(min !== undefined ? { minimum: min } : {}),
        ...(max !== undefined ? { maximum: max } : {}),
        ...(def !== undefined ? { default: def } : {}),
      };
    }
    case "boolean":
      return { type: "boolean", ...about, ...(f.default !== undefined ? { default: f.default } : {}) };
    case "multiselect":
      // No multi-choice input in the console's forms: the values, comma-separated.
      return {
        type: "string",
        ...(f.title ? { title: f.title } : {}),
        description: `${f.description ? `${f.description} ` : ""}(one or more of ${f.options.map((o) => o.label).join(", ")}, comma-separated)`,
      };
  }
}

function inputSchema(fields: Field[]): InputSchema {
  const required = fields.filter((f) => f.required).map((f) => f.key);
  return {
    type: "object",
    properties: Object.fromEntries(fields.map((f) => [f.key, inputField(f)])),
    ...(required.length ? { required } : {}),
  };
}

/** A form as the interrupt the console shows (undefined: not a form this console can show). */
export function toFormInterrupt(raw: unknown, now = Date.now()): Interrupt | undefined {
  const parsed = FormInfo.safeParse(raw);
  if (!parsed.success) return undefined;
  const form = parsed.data;
  const base = { id: form.id, sessionId: form.sessionID, createdAt: now };
  if (form.mode === "url") {
    const prompt = `${form.title ?? "OpenCode asks you to open a page"}: ${form.url}`;
    return { ...base, kind: "input", title: prompt, input: { prompt, schema: { type: "object", properties: {} } } };
  }
  if (asQuestion(form.fields)) {
    const questions = form.fields.map(question);
    const first = questions[0]!;
    const title =
      form.title && form.title !== first.header
        ? form.title
        : first.header
          ? `${first.header}: ${first.question}`
          : first.question;
    return { ...base, kind: "question", title, questions };
  }
  const prompt = form.title ?? "OpenCode asks for some details";
  return { ...base, kind: "input", title: prompt, input: { prompt, schema: inputSchema(form.fields) } };
}

/** A choice's value: the option the label names, else (a field that takes custom text) the text. */
function choiceValue(f: Field, label: string): string {
  const options = f.type === "string" || f.type === "multiselect" ? (f.options ?? []) : [];
  return options.find((o) => o.label === label)?.value ?? options.find((o) => o.value === label)?.value ?? label;
}

/**
 * The console's answer to a form as OpenCode takes it: `{answer}` for its reply route, or
 * `cancel` (a dismissed question, a declined or cancelled form). 400 when the answer does not fit.
 */
export function formReply(raw: unknown, answer: InterruptAnswer): { answer: FormAnswer } | "cancel" {
  const form = FormInfo.parse(raw);
  if ("dismiss" in answer) return "cancel";
  if ("action" in answer && answer.action !== "accept") return "cancel";
  if (form.mode === "url") {
    if (!("action" in answer))
      throw ApiError.badRequest("This request is answered with {action: accept | decline | cancel}");
    return { answer: {} };
  }
  if (asQuestion(form.fields)) {
    const picked = questionAnswers({ questions: form.fields.map(question) }, answer);
    return {
      answer: Object.fromEntries(
        form.fields.map((f, i) => {
          const values = picked[i]!.map((label) => choiceValue(f, label));
          return [f.key, f.type === "multiselect" ? values : values[0]!];
        }),
      ),
    };
  }
  if (!("action" in answer))
    throw ApiError.badRequest("A form is answered with {action: accept | decline | cancel, values?}");
  const checked = checkInputValues(inputSchema(form.fields), answer.values ?? {});
  if (!checked.ok)
    throw ApiError.badRequest(
      `The form's values do not fit: ${Object.entries(checked.errors)
        .map(([k, v]) => `${k}: ${v}`)
        .join("; ")}`,
    );
  const out: FormAnswer = {};
  for (const f of form.fields) {
    const v = checked.values[f.key];
    if (v === undefined) continue;
    out[f.key] =
      f.type === "multiselect"
        ? String(v)
            .split(",")
            .map((x) => x.trim())
            .filter(Boolean)
            .map((x) => choiceValue(f, x))
        : v;
  }
  return { answer: out };
}

/** The forms this console has seen (asked on the stream or listed as pending), to answer them by. */
export class FormBook {
  private forms = new Map<string, FormInfo>();

  /** Remembers a form and gives its interrupt (undefined: malformed, nothing remembered). */
  interrupt(raw: unknown, now = Date.now()): Interrupt | undefined {
    const it = toFormInterrupt(raw, now);
    if (!it) return undefined;
    this.forms.set(it.id, FormInfo.parse(raw));
    if (this.forms.size > 500) this.forms.delete(this.forms.keys().next().value!);
    return it;
  }

  get(id: string): FormInfo | undefined {
    return this.forms.get(id);
  }

  forget(id: string): void {
    this.forms.delete(id);
  }
}
