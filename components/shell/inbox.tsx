"use client";
import Link from "next/link";
import { useEffect, useState } from "react";
import type { Interrupt } from "@/lib/model";
import { useGlobalEvents } from "@/lib/hooks/use-global-events";
import { useNotifications } from "@/lib/hooks/use-notifications";
import { LazyInputForm as InputForm } from "../interrupts/lazy-input-form";
import { useAnswer } from "../interrupts/use-answer";
import { cx } from "../ui/cx";
import { IconCheck, IconChevronDown, IconChevronRight, IconFileText, IconHelp, IconShield, IconX } from "../ui/icons";
import { interruptAnchor } from "@/lib/timeline/selectors";

function age(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.round(s / 60);
  return m < 60 ? `${m}m` : `${Math.round(m / 60)}h`;
}

/** "Needs you": every pending interrupt across backends and sessions, oldest first. */
export function Inbox() {
  const { interrupts } = useGlobalEvents();
  const [now, setNow] = useState(() => Date.now());
  const notifications = useNotifications();
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(t);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshes the relative times when interrupts come or go
  useEffect(() => setNow(Date.now()), [interrupts.length]);
  if (interrupts.length === 0) return null;
  const items = [...interrupts].sort((a, b) => a.createdAt - b.createdAt);
  return (
    <section
      className="mx-2 mb-2 rounded-lg border border-warn/40 bg-warn/[0.06]"
      data-testid="inbox"
      aria-labelledby="sb-inbox-title"
    >
      <div className="flex h-7 items-center gap-2 px-2.5 text-[11px] font-semibold uppercase tracking-wide text-warn">
        <h2 id="sb-inbox-title">Needs you</h2>{" "}
        <span className="rounded-full bg-warn px-1.5 text-[10px] leading-4 text-accent-fg">{items.length}</span>
        {notifications.state === "default" && (
          <button
            type="button"
            className="ml-auto text-[11px] font-medium normal-case tracking-normal text-muted hover:text-fg"
            onClick={() => notifications.toggle()}
            title="Get a browser notification when an agent needs you while this tab is hidden"
          >
            Notify me
          </button>
        )}
      </div>
      <ul className="pb-1">
        {items.map((it) => (
          <InboxItem key={it.id} it={it} now={now} />
        ))}
      </ul>
    </section>
  );
}

/** What a permission can be answered with from the inbox: never "always" without seeing the card. */
const QUICK_ANSWERS = [
  {
    decision: "allow_once",
    label: "Allow once",
    testId: "inbox-allow",
    Icon: IconCheck,
    tone: "text-ok hover:bg-ok/15",
  },
  { decision: "reject", label: "Reject", testId: "inbox-reject", Icon: IconX, tone: "text-err hover:bg-err/15" },
] as const;

/**
 * One waiting interrupt: opens its session; a permission can also be answered right here (allow
 * once or reject, never "always" without seeing the card), through its own session.
 */
function InboxItem({ it, now }: { it: Interrupt & { backendId: string }; now: number }) {
  const { send, sending, error } = useAnswer(it.backendId, it.sessionId, it.id);
  const [formOpen, setFormOpen] = useState(false);
  return (
    <li data-testid="inbox-item" data-interrupt-id={it.id}>
      <div className="flex h-7 items-center gap-1 pr-1.5 hover:bg-warn/10 phone:h-[44px]">
        <Link
          href={`/sessions/${encodeURIComponent(it.backendId)}/${encodeURIComponent(interruptAnchor(it))}`}
          data-testid="inbox-link"
          className="flex h-full min-w-0 flex-1 items-center gap-2 pl-2.5 text-[12.5px] text-fg"
          title={`${it.title} — open the session`}
        >
          {it.kind === "permission" ? (
            <IconShield className="size-3.5 shrink-0 text-warn" />
          ) : it.kind === "input" ? (
            <IconFileText className="size-3.5 shrink-0 text-accent" />
          ) : (
            <IconHelp className="size-3.5 shrink-0 text-accent" />
          )}
          <span className="min-w-0 flex-1 truncate">{it.title}</span>
          <span className="shrink-0 text-[11px] tabular-nums text-faint">{age(it.createdAt, now)}</span>
        </Link>
        {it.kind === "permission"
          ? QUICK_ANSWERS.map((q) => (
              <button
                key={q.decision}
                type="button"
                disabled={sending}
                onClick={() => void send({ decision: q.decision })}
                data-testid={q.testId}
                title={q.label}
                aria-label={`${q.label}: ${it.title}`}
                className={cx(
                  "grid size-5 shrink-0 place-items-center rounded disabled:opacity-40 phone:size-[44px] phone:border phone:border-border",
                  q.tone,
                )}
              >
                <q.Icon className="size-3.5 phone:size-4" />
              </button>
            ))
          : null}
        {it.kind === "input" ? (
          // A form is filled in right here (the same form as in the timeline), never answered for the user.
          <button
            type="button"
            onClick={() => setFormOpen((o) => !o)}
            data-testid="inbox-fill"
            aria-expanded={formOpen}
            title={formOpen ? "Hide the form" : "Fill in here"}
            aria-label={`${formOpen ? "Hide the form" : "Fill in here"}: ${it.title}`}
            className="grid size-5 shrink-0 place-items-center rounded text-muted hover:bg-warn/15 hover:text-fg"
          >
            {formOpen ? <IconChevronDown className="size-3.5" /> : <IconChevronRight className="size-3.5" />}
          </button>
        ) : null}
      </div>
      {it.kind === "input" && formOpen ? (
        <div className="px-1.5 pb-1.5">
          <InputForm interrupt={it} backendId={it.backendId} sessionId={it.sessionId} compact autoFocus />
        </div>
      ) : null}
      {error ? (
        <p className="px-2.5 pb-1 text-[11px] text-err" role="alert">
          {error}
        </p>
      ) : null}
    </li>
  );
}
