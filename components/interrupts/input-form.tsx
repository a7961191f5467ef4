"use client";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import type { InputField, Interrupt } from "@/lib/model";
import { checkInputValues, fieldLabel, formFields, initialDraft, valuesFromDraft } from "@/lib/input-form";
import { askedBySubagent } from "@/lib/timeline/selectors";
import { cx } from "../ui/cx";
import { IconFileText } from "../ui/icons";
import { useAnswer } from "./use-answer";

const btn = "inline-flex h-7 items-center rounded-md border px-3 text-[12px] font-medium disabled:opacity-50";
const control =
  "h-8 w-full min-w-0 rounded-md border bg-sunken px-2.5 text-[12.5px] text-fg outline-none placeholder:text-faint focus:border-accent";

/**
 * An `input` interrupt: the agent asks for values. With a schema (an MCP-style elicitation) it is a
 * form — one control per field, required ones marked, validated here with the same rules the
 * server applies (lib/input-form.ts) — answered with Submit (accept), Decline or Cancel. Without a
 * schema it is one text field (masked when `sensitive`). Nothing is filled in or sent for the user.
 * `compact` is the inbox's variant: the same form, tighter.
 */
export function InputForm({
  interrupt,
  backendId,
  sessionId,
  autoFocus,
  compact,
}: {
  interrupt: Interrupt;
  backendId: string;
  sessionId: string;
  autoFocus?: boolean;
  compact?: boolean;
}) {
  const input = interrupt.input;
  const schema = input?.schema;
  const { send, sending, error, denied } = useAnswer(backendId, sessionId, interrupt.id);
  const fields = useMemo(() => (schema ? formFields(schema) : []), [schema]);
  const [draft, setDraft] = useState<Record<string, string | boolean>>(() => (schema ? initialDraft(schema) : {}));
  const [text, setText] = useState("");
  const [touched, setTouched] = useState(false);
  const root = useRef<HTMLFormElement>(null);
  const idBase = useId();

  useEffect(() => {
    if (!autoFocus) return;
    const first = root.current?.querySelector<HTMLElement>("input, select, textarea");
    (first ?? root.current)?.focus();
  }, [autoFocus]);

  const checked = useMemo(
    () => (schema ? checkInputValues(schema, valuesFromDraft(schema, draft)) : undefined),
    [schema, draft],
  );
  const errors = checked && !checked.ok ? checked.errors : {};
  const canSubmit = schema ? checked?.ok === true : text.trim() !== "";

  const submit = () => {
    setTouched(true);
    if (sending || !canSubmit) return;
    if (schema && checked?.ok) void send({ action: "accept", values: checked.values });
    else if (!schema) void send({ text });
  };
  const set = (name: string, v: string | boolean) => setDraft((d) => ({ ...d, [name]: v }));

  return (
    <form
      ref={root}
      tabIndex={-1}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      onKeyDown={(e) => {
        if (e.key === "Escape" && schema && !sending) {
          e.preventDefault();
          void send({ action: "cancel" });
        }
      }}
      data-testid="input-form"
      data-interrupt-id={interrupt.id}
      className={cx(
        "rounded-lg border border-accent/45 bg-accent/[0.05] outline-none focus-visible:ring-2 focus-visible:ring-accent/50",
        compact ? "p-2" : "p-3",
      )}
    >
      <div className="flex items-center gap-2 text-[12.5px]">
        <IconFileText className="size-4 shrink-0 text-accent" />
        <span className="font-semibold text-fg">{schema ? "Form" : "Input needed"}</span>
        {askedBySubagent(interrupt) && <span className="text-[11px] text-faint">asked by a subagent</span>}
      </div>
      <p className="mt-1.5 whitespace-pre-wrap break-words text-[13px] text-fg" data-testid="input-prompt">
        {input?.prompt ?? interrupt.title}
      </p>
      {schema ? (
        <div className={cx("mt-2 grid gap-2.5", !compact && "sm:grid-cols-2")}>
          {fields.map(({ name, field, required }) => {
            const id = `${idBase}-${name}`;
            const err = touched ? errors[name] : undefined;
            return (
              <div
                key={name}
                className={cx("min-w-0", field.type === "boolean" && "sm:col-span-2")}
                data-testid="input-field"
                data-name={name}
              >
                {field.type === "boolean" ? (
                  <label htmlFor={id} className="flex cursor-pointer items-center gap-2 text-[12.5px] text-fg">
                    <input
                      id={id}
                      type="checkbox"
                      checked={draft[name] === true}
                      onChange={(e) => set(name, e.target.checked)}
                      className="accent-[var(--sb-accent)]"
                    />
                    <span className="font-medium">{fieldLabel(name, field)}</span>
                    {required && (
                      <span className="text-err" aria-hidden>
                        *
                      </span>
                    )}
                  </label>
                ) : (
                  <>
                    <label htmlFor={id} className="mb-1 block text-[12px] font-medium text-fg">
                      {fieldLabel(name, field)}
                      {required && (
                        <span className="ml-0.5 text-err" aria-hidden>
                          *
                        </span>
                      )}
                      {required && <span className="sr-only"> (required)</span>}
                    </label>
                    <FieldControl
                      id={id}
                      field={field}
                      value={typeof draft[name] === "string" ? (draft[name] as string) : ""}
                      invalid={!!err}
                      required={required}
                      onChange={(v) => set(name, v)}
                    />
                  </>
                )}
                {field.description && <p className="mt-0.5 text-[11.5px] text-faint">{field.description}</p>}
                {err && (
                  <p className="mt-0.5 text-[11.5px] text-err" data-testid="input-field-error">
                    {err}
                  </p>
                )}
              </div>
            );
          })}
        </div>
      ) : (
        <input
          type={input?.sensitive ? "password" : "text"}
          value={text}
          onChange={(e) => setText(e.target.value)}
          autoComplete="off"
          placeholder="Your answer"
          aria-label={input?.prompt ?? interrupt.title}
          data-testid="input-text"
          className={cx(control, "mt-2 border-border")}
        />
      )}
      {touched && errors._form && <p className="mt-2 text-[11.5px] text-err">{errors._form}</p>}
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <button
          type="submit"
          disabled={sending || Boolean(denied)}
          data-testid="input-submit"
          className={cx(btn, "border-accent bg-accent text-accent-fg hover:brightness-110")}
        >
          Submit
        </button>
        {schema ? (
          <>
            <button
              type="button"
              disabled={sending || Boolean(denied)}
              onClick={() => void send({ action: "decline" })}
              data-testid="input-decline"
              className={cx(btn, "border-border text-muted hover:text-fg")}
            >
              Decline
            </button>
            <button
              type="button"
              disabled={sending || Boolean(denied)}
              onClick={() => void send({ action: "cancel" })}
              data-testid="input-cancel"
              className={cx(btn, "border-transparent text-muted hover:text-fg")}
            >
              Cancel
            </button>
          </>
        ) : (
          <button
            type="button"
            disabled={sending || Boolean(denied)}
            onClick={() => void send({ dismiss: true })}
            data-testid="input-dismiss"
            className={cx(btn, "border-border text-muted hover:text-fg")}
          >
            Dismiss
          </button>
        )}
        <span className="text-[11.5px] text-faint">
          {sending ? "Sending…" : touched && !canSubmit ? "Fix the marked fields" : ""}
        </span>
      </div>
      {error && (
        <p className="mt-2 text-[12px] text-err" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

function FieldControl({
  id,
  field,
  value,
  invalid,
  required,
  onChange,
}: {
  id: string;
  field: InputField;
  value: string;
  invalid: boolean;
  required: boolean;
  onChange(v: string): void;
}) {
  const border = invalid ? "border-err" : "border-border";
  if (field.type === "string" && field.enum && field.enum.length > 0) {
    return (
      <select
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={invalid}
        aria-required={required}
        className={cx(control, border)}
      >
        <option value="">{required ? "Choose…" : "—"}</option>
        {field.enum.map((v, i) => (
          <option key={v} value={v}>
            {field.enumNames?.[i] ?? v}
          </option>
        ))}
      </select>
    );
  }
  const numeric = field.type === "number" || field.type === "integer";
  const type = numeric
    ? "text"
    : field.format === "email"
      ? "email"
      : field.format === "uri"
        ? "url"
        : field.format === "date"
          ? "date"
          : "text";
  return (
    <input
      id={id}
      type={type}
      inputMode={numeric ? (field.type === "integer" ? "numeric" : "decimal") : undefined}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      aria-invalid={invalid}
      aria-required={required}
      autoComplete="off"
      placeholder={field.format === "date-time" ? "YYYY-MM-DDTHH:MM" : undefined}
      className={cx(control, border)}
    />
  );
}
