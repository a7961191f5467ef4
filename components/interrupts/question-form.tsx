"use client";
import { useEffect, useRef, useState } from "react";
import type { Interrupt } from "@/lib/model";
import { Markdown } from "../timeline/markdown";
import { cx } from "../ui/cx";
import { IconHelp } from "../ui/icons";
import { useAnswer } from "./use-answer";
import { askedBySubagent } from "@/lib/timeline/selectors";

const btn =
  "inline-flex h-7 items-center rounded-md border px-3 text-[12px] font-medium disabled:opacity-50 phone:h-[44px] phone:px-4 phone:text-[13px]";

/**
 * One or more questions from the agent. Nothing is chosen by default and nothing is sent without
 * the user: Submit (or Enter) sends, Dismiss rejects. Keys 1–9 pick options of the active question.
 */
export function QuestionForm({
  interrupt,
  backendId,
  sessionId,
  autoFocus,
}: {
  interrupt: Interrupt;
  backendId: string;
  sessionId: string;
  autoFocus?: boolean;
}) {
  const questions = interrupt.questions ?? [];
  const { send, sending, error, denied } = useAnswer(backendId, sessionId, interrupt.id);
  const [picked, setPicked] = useState<string[][]>(() => questions.map(() => []));
  const [custom, setCustom] = useState<string[]>(() => questions.map(() => ""));
  const [active, setActive] = useState(0);
  const root = useRef<HTMLFormElement>(null);

  useEffect(() => {
    if (autoFocus) root.current?.focus();
  }, [autoFocus]);

  const answers = questions.map((_, i) => {
    const c = custom[i]!.trim();
    return c ? [...picked[i]!, c] : picked[i]!;
  });
  const complete = answers.every((a) => a.length > 0);

  const toggle = (qi: number, label: string) => {
    const q = questions[qi]!;
    setActive(qi);
    setPicked((all) =>
      all.map((sel, i) => {
        if (i !== qi) return sel;
        if (q.multiple) return sel.includes(label) ? sel.filter((l) => l !== label) : [...sel, label];
        return sel[0] === label ? [] : [label];
      }),
    );
    if (!q.multiple) setCustom((all) => all.map((c, i) => (i === qi ? "" : c)));
  };

  const submit = () => {
    if (complete && !sending) void send({ answers });
  };

  const onKey = (e: React.KeyboardEvent) => {
    const typing = (e.target as HTMLElement).tagName === "INPUT" && (e.target as HTMLInputElement).type === "text";
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      submit();
      return;
    }
    if (typing) return;
    const n = Number(e.key);
    if (n >= 1 && n <= 9) {
      const q = questions[active];
      const opt = q?.options[n - 1];
      if (opt) {
        e.preventDefault();
        toggle(active, opt.label);
      }
    }
  };

  return (
    <form
      ref={root}
      tabIndex={-1}
      onKeyDown={onKey}
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      data-testid="question-form"
      data-interrupt-id={interrupt.id}
      aria-label={
        questions.length > 1
          ? `The agent asks ${questions.length} questions`
          : `The agent asks: ${questions[0]?.question ?? interrupt.title}`
      }
      className="rounded-lg border border-accent/45 bg-accent/[0.05] p-3 outline-none focus-visible:ring-2 focus-visible:ring-accent/50"
    >
      <div className="flex items-center gap-2 text-[12.5px]">
        <IconHelp className="size-4 shrink-0 text-accent" />
        <span className="font-semibold text-fg">
          {questions.length > 1 ? `${questions.length} questions` : "Question"}
        </span>
        {askedBySubagent(interrupt) && <span className="text-[11px] text-faint">asked by a subagent</span>}
      </div>
      <div className="mt-2 flex flex-col gap-3">
        {questions.map((q, qi) => {
          const name = `${interrupt.id}-${qi}`;
          return (
            <fieldset key={qi} className="min-w-0" data-testid="question" onFocus={() => setActive(qi)}>
              <legend className="mb-1.5 text-[13px] text-fg">
                {q.header && (
                  <span className="mr-2 rounded border border-border bg-raised px-1.5 py-px text-[11px] font-medium text-muted">
                    {q.header}
                  </span>
                )}
                {!q.markdown && q.question}
                {q.multiple && <span className="ml-2 text-[11px] text-faint">choose any</span>}
              </legend>
              {q.markdown && (
                // A plan to review: markdown rendered as the timeline renders the model's text (inert).
                <Markdown
                  text={q.question}
                  className="mb-2 max-h-80 overflow-y-auto rounded-md border border-border bg-sunken px-3 py-2"
                />
              )}
              <div className="flex flex-col gap-1">
                {q.options.map((o, oi) => {
                  const checked = picked[qi]!.includes(o.label);
                  return (
                    <label
                      key={o.label}
                      data-testid="question-option"
                      data-label={o.label}
                      className={cx(
                        "flex cursor-pointer items-start gap-2 rounded-md border px-2.5 py-1.5 text-[12.5px] phone:min-h-[44px] phone:items-center phone:py-2 phone:text-[13.5px]",
                        checked ? "border-accent/60 bg-accent/10" : "border-border bg-panel hover:border-border-strong",
                      )}
                    >
                      <input
                        type={q.multiple ? "checkbox" : "radio"}
                        name={name}
                        checked={checked}
                        onChange={() => toggle(qi, o.label)}
                        className="mt-0.5 accent-[var(--sb-accent)]"
                      />
                      <span className="min-w-0 flex-1">
                        <span className="font-medium text-fg">{o.label}</span>
                        {o.description && <span className="ml-2 text-muted">{o.description}</span>}
                      </span>
                      {active === qi && oi < 9 && (
                        <kbd aria-hidden className="text-[10px] text-faint phone:hidden">
                          {oi + 1}
                        </kbd>
                      )}
                    </label>
                  );
                })}
                {q.custom !== false && (
                  <input
                    type="text"
                    value={custom[qi]}
                    onFocus={() => setActive(qi)}
                    onChange={(e) => {
                      const v = e.target.value;
                      setCustom((all) => all.map((c, i) => (i === qi ? v : c)));
                      if (!q.multiple && v) setPicked((all) => all.map((sel, i) => (i === qi ? [] : sel)));
                    }}
                    placeholder="Or type your own answer"
                    aria-label={`Your own answer to: ${q.question}`}
                    data-testid="question-custom-input"
                    className="h-8 phone:h-[44px] phone:text-[16px] rounded-md border border-border bg-sunken px-2.5 text-[12.5px] text-fg outline-none placeholder:text-faint focus:border-accent"
                  />
                )}
              </div>
            </fieldset>
          );
        })}
      </div>
      <div className="mt-3 flex items-center gap-2">
        <button
          type="submit"
          disabled={!complete || sending}
          data-testid="question-submit"
          title={denied ?? "Send the answers to the agent"}
          className={cx(btn, "border-accent bg-accent text-accent-fg hover:brightness-110")}
        >
          Submit
        </button>
        <button
          type="button"
          disabled={sending || Boolean(denied)}
          onClick={() => void send({ dismiss: true })}
          data-testid="question-dismiss"
          title="Close the question without answering; the agent is told"
          className={cx(btn, "border-border text-muted hover:text-fg")}
        >
          Dismiss
        </button>
        <span className="text-[11.5px] text-faint">
          {sending ? "Sending…" : complete ? "Enter to submit" : "Answer every question to submit"}
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
