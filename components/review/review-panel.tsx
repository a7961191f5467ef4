"use client";
import type { Message, Todo } from "@/lib/model";
import { TodoList } from "../timeline/tools/todo";
import { lazy, Suspense, useRef } from "react";
import { useShell } from "../shell/shell";
import { cx } from "../ui/cx";
import { useFocusTrap } from "../ui/use-focus-trap";
import { IconCommit, IconDiff, IconFiles, IconListChecks, IconTerminal, IconX } from "../ui/icons";
import { useReviewComments } from "@/lib/hooks/use-review-comments";
import { ChangesView, useDiffLayout } from "./changes-view";
import { ReviewTray } from "./review-tray";
import { FilesView } from "./files-view";
import { GitView } from "./git-view";

// xterm.js (about 100 KB gzip) loads only when the Terminal tab is opened.
const TerminalView = lazy(() => import("./terminal-view").then((m) => ({ default: m.TerminalView })));
import { type PanelTab, todoProgress } from "./panel-tab";

/** The agent's plan: the todo list with statuses and progress, live from `todo.updated`. */
export function PlanView({ todos }: { todos: Todo[] }) {
  const { done, total, active } = todoProgress(todos);
  if (total === 0) {
    return (
      <div
        className="grid flex-1 place-items-center p-6 text-center text-[12.5px] text-faint"
        data-testid="todo-panel"
        data-count={0}
      >
        No plan yet. When the agent writes a todo list, it shows up here and follows its progress.
      </div>
    );
  }
  const pct = Math.round((done / total) * 100);
  return (
    <div className="min-h-0 flex-1 overflow-y-auto p-3" data-testid="todo-panel" data-count={total} data-done={done}>
      <div className="mb-3 flex items-center gap-3">
        <span className="text-[12px] text-muted" data-testid="todo-progress">
          {done} of {total} done
        </span>
        <div className="h-1.5 flex-1 overflow-hidden rounded-full bg-raised" aria-hidden>
          <div className="h-full rounded-full bg-ok transition-[width] duration-300" style={{ width: `${pct}%` }} />
        </div>
      </div>
      {active ? (
        <p className="mb-3 rounded-md border border-accent/25 bg-accent/5 px-2.5 py-1.5 text-[12px] text-fg">
          <span className="text-faint">Now: </span>
          {active.content}
        </p>
      ) : null}
      <TodoList todos={todos} />
    </div>
  );
}

/** The right-hand panel of a session: its changes for review, its plan, and the workspace tools (git, files, a terminal). */
export function ReviewPanel({
  tab,
  onTab,
  onClose,
  backendId,
  sessionId,
  messages,
  todos,
  turnId,
  onTurn,
  diffUnavailable,
  directory,
  onSendPrompt,
  busy = false,
  sendReason,
  mentionable = false,
}: {
  tab: PanelTab;
  onTab(tab: PanelTab): void;
  onClose(): void;
  backendId: string;
  sessionId: string;
  messages: Message[];
  todos: Todo[];
  turnId: string | undefined;
  onTurn(turnId: string | undefined): void;
  diffUnavailable?: string;
  directory?: string;
  /** Sends a prompt the way the composer does ("Send to agent" of the review comments). */
  onSendPrompt?(text: string): Promise<void>;
  busy?: boolean;
  /** Why the session cannot take a prompt now. */
  sendReason?: string;
  /** The backend takes `@` file mentions (the file browser's Mention button). */
  mentionable?: boolean;
}) {
  const { done, total } = todoProgress(todos);
  const [layout, setLayout] = useDiffLayout();
  const review = useReviewComments(backendId, sessionId);
  // On a phone the panel is a full-screen sheet: a modal that keeps the focus and closes on Escape.
  const { phone } = useShell();
  const root = useRef<HTMLElement>(null);
  useFocusTrap(root, { active: phone, onEscape: onClose });
  // Side by side needs room: the panel widens while the split layout shows.
  const wide = tab === "changes" && layout === "split";
  const tabs: { id: PanelTab; label: string; icon: React.ReactNode; extra?: string; compact?: boolean }[] = [
    { id: "changes", label: "Changes", icon: <IconDiff size={13} /> },
    { id: "plan", label: "Plan", icon: <IconListChecks size={13} />, ...(total ? { extra: `${done}/${total}` } : {}) },
    ...(directory
      ? [
          { id: "git" as const, label: "Git", compact: true, icon: <IconCommit size={13} /> },
          { id: "files" as const, label: "Files", compact: true, icon: <IconFiles size={13} /> },
          { id: "terminal" as const, label: "Terminal", compact: true, icon: <IconTerminal size={13} /> },
        ]
      : []),
  ];
  return (
    <aside
      ref={root}
      className={cx(
        "flex h-full min-w-[360px] shrink-0 flex-col border-l border-border bg-panel",
        wide ? "w-[min(880px,58vw)] narrow:w-full" : "w-[min(640px,48vw)] narrow:w-[min(640px,100%)]",
        "narrow:absolute narrow:inset-y-0 narrow:right-0 narrow:z-30 narrow:shadow-2xl narrow:shadow-black/30",
        "phone:fixed phone:inset-0 phone:z-[55] phone:h-auto phone:w-full phone:min-w-0 phone:border-l-0 phone:pb-[env(safe-area-inset-bottom)] phone:pt-[env(safe-area-inset-top)]",
      )}
      data-testid="review-panel"
      data-tab={tab}
      aria-label="Review"
      {...(phone ? { role: "dialog", "aria-modal": true } : {})}
    >
      <div className="flex h-10 shrink-0 items-center gap-1 border-b border-border px-2 phone:h-[48px]">
        {/* Five tabs do not fit a phone: the workspace tabs show their icon only there, and the row scrolls. */}
        <div
          role="tablist"
          aria-label="Review"
          className="flex min-w-0 items-center gap-1 overflow-x-auto [scrollbar-width:none]"
        >
          {tabs.map((t) => (
            <button
              key={t.id}
              type="button"
              role="tab"
              aria-selected={tab === t.id}
              onClick={() => onTab(t.id)}
              data-testid={`panel-tab-${t.id}`}
              className={cx(
                "inline-flex h-7 shrink-0 items-center gap-1.5 rounded-md px-2.5 text-[12.5px] phone:h-[36px] phone:text-[14px]",
                tab === t.id ? "bg-raised font-medium text-fg" : "text-muted hover:text-fg",
              )}
            >
              {t.icon}
              {t.compact ? <span className="phone:sr-only">{t.label}</span> : t.label}
              {t.extra ? <span className="font-mono text-[11px] text-faint">{t.extra}</span> : null}
            </button>
          ))}
        </div>
        <button
          type="button"
          onClick={onClose}
          className="ml-auto grid size-7 shrink-0 place-items-center rounded text-faint hover:bg-raised hover:text-fg phone:size-[40px]"
          title="Close (Esc)"
          aria-label="Close panel"
          data-testid="panel-close"
        >
          <IconX size={14} />
        </button>
      </div>
      {tab === "changes" ? (
        <ChangesView
          backendId={backendId}
          sessionId={sessionId}
          messages={messages}
          turnId={turnId}
          onTurn={onTurn}
          layout={layout}
          onLayout={setLayout}
          {...(diffUnavailable ? { diffUnavailable } : {})}
          {...(directory ? { directory } : {})}
          {...(onSendPrompt ? { review } : {})}
        />
      ) : tab === "git" ? (
        <GitView backendId={backendId} sessionId={sessionId} />
      ) : tab === "files" ? (
        <FilesView backendId={backendId} sessionId={sessionId} mentionable={mentionable} />
      ) : tab === "terminal" ? (
        <Suspense fallback={<div className="flex-1 bg-sunken" aria-busy="true" />}>
          <TerminalView backendId={backendId} sessionId={sessionId} />
        </Suspense>
      ) : (
        <PlanView todos={todos} />
      )}
      {tab === "changes" && onSendPrompt ? (
        <ReviewTray review={review} onSend={onSendPrompt} busy={busy} {...(sendReason ? { sendReason } : {})} />
      ) : null}
    </aside>
  );
}
