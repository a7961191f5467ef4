"use client";
import { useEffect, useRef, useState } from "react";
import type { Interrupt } from "@/lib/model";
import { DiffView } from "../code/diff-view";
import { cx } from "../ui/cx";
import { IconShield } from "../ui/icons";
import { useAnswer } from "./use-answer";
import { askedBySubagent } from "@/lib/timeline/selectors";

const btn =
  "inline-flex h-7 items-center gap-1.5 rounded-md border px-2.5 text-[12px] font-medium disabled:opacity-50 phone:h-[44px] phone:px-3.5 phone:text-[13px]";

/**
 * A permission request inline in the timeline: what the agent wants to run or touch, and the
 * choices the backend offers (`permission.options`; every choice when it lists none), each button
 * naming the backend's own action in `data-action`. Keys while focused: 1 allow once · 2 always
 * allow · 3 reject · 4 reject with feedback.
 */
export function PermissionCard({
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
  const p = interrupt.permission;
  const { send, sending, error, denied } = useAnswer(backendId, sessionId, interrupt.id);
  const [feedback, setFeedback] = useState<string | null>(null);
  const root = useRef<HTMLDivElement>(null);
  const feedbackRef = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    if (autoFocus) root.current?.focus({ preventScroll: false });
  }, [autoFocus]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: focuses the feedback field when it opens, not on each keystroke
  useEffect(() => {
    if (feedback !== null) feedbackRef.current?.focus();
  }, [feedback !== null]);

  // Only the decisions the backend offers (Opal's `client/confirm` names its own actions); all when it lists none.
  const offered = (kind: "allow_once" | "allow_always" | "reject") =>
    !p?.options.length || p.options.some((o) => o.kind === kind);
  const actionOf = (kind: "allow_once" | "allow_always" | "reject") => p?.options.find((o) => o.kind === kind)?.id;
  const onKey = (e: React.KeyboardEvent) => {
    if (e.target !== root.current || sending) return;
    if (e.key === "1" && offered("allow_once")) void send({ decision: "allow_once" });
    else if (e.key === "2" && offered("allow_always")) void send({ decision: "allow_always" });
    else if (e.key === "3" && offered("reject")) void send({ decision: "reject" });
    else if (e.key === "4" && offered("reject")) setFeedback("");
  };

  const subject = p?.patterns.length ? p.patterns : [interrupt.title];
  return (
    <div
      ref={root}
      tabIndex={-1}
      onKeyDown={onKey}
      data-testid="permission-card"
      data-interrupt-id={interrupt.id}
      role="group"
      aria-label={`Permission needed: ${interrupt.title}`}
      className="rounded-lg border border-warn/50 bg-warn/[0.06] p-3 outline-none focus-visible:ring-2 focus-visible:ring-warn/50"
    >
      <div className="flex items-center gap-2 text-[12.5px]">
        <IconShield className="size-4 shrink-0 text-warn" />
        <span className="font-semibold text-fg">Permission needed</span>
        {p && (
          <span className="rounded border border-border bg-raised px-1.5 font-mono text-[11px] text-muted">
            {p.action}
          </span>
        )}
        {askedBySubagent(interrupt) && <span className="text-[11px] text-faint">asked by a subagent</span>}
      </div>
      {p?.diff && p.path ? (
        // An edit: the file and the change it would make (the diff's header names the file).
        <DiffView patch={p.diff} path={p.path} header lineNumbers maxLines={40} className="mt-2" />
      ) : (
        <div className="mt-2 space-y-1" data-testid="permission-subject">
          {subject.map((s) => (
            <pre
              key={s}
              className="overflow-x-auto whitespace-pre-wrap break-all rounded-md border border-border bg-sunken px-2.5 py-1.5 font-mono text-[12px] text-fg"
            >
              {s}
            </pre>
          ))}
        </div>
      )}
      {p?.always && p.always.length > 0 && (
        <p className="mt-1.5 text-[11.5px] text-faint">
          “Always allow” also allows <span className="font-mono text-muted">{p.always.join(", ")}</span> from now on.
        </p>
      )}
      {feedback === null ? (
        <div className="mt-3 flex flex-wrap items-center gap-2">
          {offered("allow_once") && (
            <button
              type="button"
              disabled={sending || Boolean(denied)}
              onClick={() => void send({ decision: "allow_once" })}
              data-testid="permission-allow-once"
              data-action={actionOf("allow_once")}
              title="Allow it this time; ask again next time"
              aria-keyshortcuts="1"
              className={cx(btn, "border-accent bg-accent text-accent-fg hover:brightness-110")}
            >
              Allow once{" "}
              <kbd aria-hidden className="text-[10px] opacity-70 phone:hidden">
                1
              </kbd>
            </button>
          )}
          {offered("allow_always") && (
            <button
              type="button"
              disabled={sending || Boolean(denied)}
              onClick={() => void send({ decision: "allow_always" })}
              data-testid="permission-allow-always"
              data-action={actionOf("allow_always")}
              title="Allow it now and the same from now on without asking"
              aria-keyshortcuts="2"
              className={cx(btn, "border-border-strong bg-raised text-fg hover:bg-panel")}
            >
              Always allow{" "}
              <kbd aria-hidden className="text-[10px] text-faint phone:hidden">
                2
              </kbd>
            </button>
          )}
          {offered("reject") && (
            <button
              type="button"
              disabled={sending || Boolean(denied)}
              onClick={() => void send({ decision: "reject" })}
              data-testid="permission-reject"
              data-action={actionOf("reject")}
              title="Refuse it; the agent is told it may not"
              aria-keyshortcuts="3"
              className={cx(btn, "border-err/40 text-err hover:bg-err/10")}
            >
              Reject{" "}
              <kbd aria-hidden className="text-[10px] opacity-70 phone:hidden">
                3
              </kbd>
            </button>
          )}
          {offered("reject") && (
            <button
              type="button"
              disabled={sending || Boolean(denied)}
              onClick={() => setFeedback("")}
              data-testid="permission-feedback"
              data-action={actionOf("reject")}
              title="Refuse it and tell the agent what to do instead"
              aria-keyshortcuts="4"
              className={cx(btn, "border-transparent text-muted hover:text-fg")}
            >
              Reject with feedback…{" "}
              <kbd aria-hidden className="text-[10px] text-faint phone:hidden">
                4
              </kbd>
            </button>
          )}
          {sending && <span className="text-[12px] text-faint">Sending…</span>}
        </div>
      ) : (
        <form
          className="mt-3 flex flex-col gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (feedback.trim()) void send({ decision: "reject", message: feedback.trim() });
          }}
        >
          <textarea
            ref={feedbackRef}
            value={feedback}
            onChange={(e) => setFeedback(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) {
                e.preventDefault();
                if (feedback.trim()) void send({ decision: "reject", message: feedback.trim() });
              } else if (e.key === "Escape") setFeedback(null);
            }}
            rows={2}
            placeholder="Tell the agent what to do instead (Enter to send, Esc to cancel)"
            data-testid="permission-feedback-input"
            aria-label="Feedback for the agent"
            className="resize-none rounded-md border border-border-strong bg-sunken px-2.5 py-1.5 text-[13px] text-fg outline-none focus:border-accent"
          />
          <div className="flex gap-2">
            <button
              type="submit"
              disabled={sending || Boolean(denied) || !feedback.trim()}
              data-testid="permission-feedback-send"
              className={cx(btn, "border-err/40 bg-err/10 text-err hover:bg-err/20")}
            >
              Reject and send feedback
            </button>
            <button
              type="button"
              onClick={() => setFeedback(null)}
              className={cx(btn, "border-transparent text-muted hover:text-fg")}
            >
              Cancel
            </button>
          </div>
        </form>
      )}
      {error && (
        <p className="mt-2 text-[12px] text-err" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
