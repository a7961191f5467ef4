"use client";
import Link from "next/link";
import { useEffect, useRef, useState, type ReactNode } from "react";
import type { Backend, Message, Session, Todo, Usage } from "@/lib/model";
import type { LinkState } from "@/lib/link-state";
import { sessionPath } from "@/lib/client/api-client";
import { liveLink } from "@/lib/client/live-link";
import { useLiveLeader } from "@/lib/hooks/use-live-leader";
import { compactNumber, formatCost } from "@/lib/format";
import { contextTokens, currentContext } from "@/lib/timeline/selectors";
import type { PanelTab } from "../review/review-panel";
import { todoProgress } from "../review/review-panel";
import { cx } from "../ui/cx";
import {
  IconBranch,
  IconDiff,
  IconDownload,
  IconFold,
  IconFolder,
  IconLink,
  IconListChecks,
  IconMore,
  IconPencil,
  IconTrash,
} from "../ui/icons";
import { MenuItem, MenuSeparator, Popover } from "../ui/popover";
import { SessionStatusGlyph, statusLabel } from "../shell/status-dot";
import { BranchTreeButton } from "./branch-tree";
import { SidebarToggle } from "../shell/shell";

const LINK_TEXT: Record<LinkState, string> = {
  connecting: "Connecting…",
  connected: "Live",
  reconnecting: "Reconnecting…",
  down: "Backend down",
};

export function ConnectionIndicator({ state, detail }: { state: LinkState; detail?: string }) {
  // One tab of the browser holds the live connection and shares it with the others.
  const leader = useLiveLeader();
  const holder = leader ? "this tab holds the browser's live connection" : "shares another tab's live connection";
  return (
    <button
      type="button"
      // A click drops the live connection and resumes it from where each session was (after a sleep, a flaky network).
      onClick={() => liveLink().reconnect()}
      aria-label={`${LINK_TEXT[state]}: reconnect`}
      data-testid="connection"
      data-state={state}
      data-leader={leader ? "true" : "false"}
      title={`${detail ?? LINK_TEXT[state]} — ${holder}. Click to reconnect.`}
      className={cx(
        "inline-flex h-6 items-center gap-1.5 rounded-full border px-2 text-[11px] font-medium",
        (state === "connected" || state === "connecting") && "border-border text-muted hover:text-fg",
        state === "reconnecting" && "border-warn/40 bg-warn/10 text-warn",
        state === "down" && "border-err/40 bg-err/10 text-err",
      )}
    >
      <span
        className={cx(
          "size-1.5 rounded-full",
          state === "connected"
            ? "bg-ok"
            : state === "connecting"
              ? "animate-pulse bg-muted"
              : state === "reconnecting"
                ? "bg-warn animate-pulse"
                : "bg-err",
        )}
      />
      {LINK_TEXT[state]}
    </button>
  );
}

/* -------------------------------------------------------------------------------------- usage */

function Row({ label, value, strong }: { label: string; value: string; strong?: boolean }) {
  return (
    <div className="flex items-center justify-between gap-6 py-0.5">
      <span className="text-muted">{label}</span>
      <span className={cx("font-mono tabular-nums", strong ? "text-fg" : "text-muted")}>{value}</span>
    </div>
  );
}

const n = (v: number) => v.toLocaleString("en-US");

/**
 * Tokens in/out, cache, cost and the context in use, for the session (with the last turn in the
 * details). The bar is the context window filled by the newest step.
 */
export function UsageMeter({
  session,
  messages,
  contextWindow: modelWindow,
}: {
  session: Session;
  messages: Message[];
  contextWindow?: number;
}) {
  const u = session.usage;
  const ctx = currentContext(messages);
  // A backend that reports the context itself (ACP `usage_update {used, size}`) is the most current
  // source; otherwise the newest step's usage against the model's window from the models list.
  const contextWindow = u?.contextWindow ?? modelWindow;
  const inUse = u?.contextTokens ?? ctx?.tokens;
  if (!u || (!u.inputTokens && !u.outputTokens && inUse === undefined)) return null;
  const cost = formatCost(u.costUsd);
  const cache = (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0);
  const pct = inUse !== undefined && contextWindow ? Math.min(100, (inUse / contextWindow) * 100) : undefined;
  const last: Usage | undefined = ctx?.message.usage;
  return (
    <Popover
      testId="usage"
      panelTestId="usage-details"
      title="Usage: tokens, cache, cost and context"
      buttonClassName="font-mono text-[11px] @max-[640px]:hidden"
      panelClassName="w-[260px] p-3 text-[12px]"
      label={
        <>
          {pct !== undefined ? (
            <span className="flex items-center gap-1.5" data-testid="context-meter" data-percent={Math.round(pct)}>
              <span className="h-1.5 w-10 overflow-hidden rounded-full bg-raised">
                <span
                  className={cx("block h-full rounded-full", pct > 85 ? "bg-err" : pct > 60 ? "bg-warn" : "bg-accent")}
                  style={{ width: `${Math.max(2, pct)}%` }}
                />
              </span>
              <span>{Math.round(pct)}%</span>
            </span>
          ) : null}
          <span>↑{compactNumber(u.inputTokens)}</span>
          <span>↓{compactNumber(u.outputTokens)}</span>
          {cache > 0 ? <span className="text-faint">⟳{compactNumber(cache)}</span> : null}
          {cost ? <span className="text-fg">{cost}</span> : null}
        </>
      }
    >
      {() => (
        <div>
          <div className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-faint">Session</div>
          <Row label="Input" value={n(u.inputTokens)} strong />
          <Row label="Output" value={n(u.outputTokens)} strong />
          {u.reasoningTokens ? <Row label="Reasoning" value={n(u.reasoningTokens)} /> : null}
          <Row label="Cache read" value={n(u.cacheReadTokens ?? 0)} />
          <Row label="Cache write" value={n(u.cacheWriteTokens ?? 0)} />
          <Row label="Cost" value={u.costUsd !== undefined ? `$${u.costUsd.toFixed(4)}` : "—"} strong />
          <div className="my-2 h-px bg-border" />
          <div className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-faint">Context</div>
          <Row label="In use" value={inUse !== undefined ? n(inUse) : "—"} strong />
          <Row label="Window" value={contextWindow ? n(contextWindow) : "unknown"} />
          {pct !== undefined ? (
            <div className="mt-1.5 h-1.5 overflow-hidden rounded-full bg-raised">
              <div
                className={cx("h-full rounded-full", pct > 85 ? "bg-err" : pct > 60 ? "bg-warn" : "bg-accent")}
                style={{ width: `${Math.max(1, pct)}%` }}
              />
            </div>
          ) : null}
          {last ? (
            <>
              <div className="my-2 h-px bg-border" />
              <div className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-faint">Last step</div>
              <Row label="In / out" value={`${n(last.inputTokens)} / ${n(last.outputTokens)}`} />
              <Row label="Context" value={n(contextTokens(last))} />
            </>
          ) : null}
        </div>
      )}
    </Popover>
  );
}

/* -------------------------------------------------------------------------------------- title */

function TitleEditor({
  title,
  onSave,
  onCancel,
}: {
  title: string;
  onSave(t: string): Promise<void>;
  onCancel(): void;
}) {
  const [value, setValue] = useState(title);
  const [saving, setSaving] = useState(false);
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    ref.current?.focus();
    ref.current?.select();
  }, []);
  const save = async () => {
    const t = value.trim();
    if (!t || t === title) return onCancel();
    setSaving(true);
    try {
      await onSave(t);
    } finally {
      setSaving(false);
    }
  };
  return (
    <input
      ref={ref}
      value={value}
      disabled={saving}
      onChange={(e) => setValue(e.target.value)}
      onKeyDown={(e) => {
        if (e.key === "Enter") void save();
        if (e.key === "Escape") onCancel();
      }}
      onBlur={() => void save()}
      maxLength={300}
      aria-label="Session title"
      data-testid="title-input"
      className="h-7 min-w-0 flex-1 rounded-md border border-accent bg-sunken px-2 text-[14px] font-semibold text-fg outline-none"
    />
  );
}

/* ------------------------------------------------------------------------------------- header */

export interface HeaderAction {
  /** false → hidden (the backend cannot do it). */
  offered: boolean;
  /** Why it cannot run now (disabled, shown on hover). */
  disabledReason?: string;
}

export interface SessionHeaderProps {
  /** Buttons shown before the connection indicator (e.g. Share). */
  actions?: ReactNode;
  session: Session | null;
  backend: Backend | undefined;
  link: LinkState;
  linkDetail?: string;
  messages?: Message[];
  todos?: Todo[];
  contextWindow?: number;
  /** Files changed in the session (for the Changes toggle). */
  changedFiles?: number;
  /** Changes when the session's family may have changed (the branch tree reloads). */
  treeVersion?: string;
  panel?: PanelTab | null;
  onPanel?(tab: PanelTab): void;
  rename?: HeaderAction & { run(title: string): Promise<void> };
  fork?: HeaderAction & { run(): Promise<void> };
  compact?: HeaderAction & { run(): Promise<void> };
  remove?: HeaderAction & { run(): void };
  review?: HeaderAction;
  plan?: HeaderAction;
  /** Opens the share dialog (on a phone the Share button moves into the overflow menu). */
  onShare?(): void;
  shareDisabled?: boolean;
}

export function SessionHeader({
  session,
  backend,
  link,
  linkDetail,
  messages = [],
  todos = [],
  contextWindow,
  changedFiles = 0,
  treeVersion = "",
  panel,
  onPanel,
  rename,
  fork,
  compact,
  remove,
  review,
  plan,
  actions,
  onShare,
  shareDisabled,
}: SessionHeaderProps) {
  const [editing, setEditing] = useState(false);
  const [treeOpen, setTreeOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const [working, setWorking] = useState<string>();
  const { done, total } = todoProgress(todos);
  const run = (what: string, fn: () => Promise<void>) => {
    setWorking(what);
    void fn().finally(() => setWorking(undefined));
  };
  const exportHref = (format: "md" | "json") =>
    session ? `${sessionPath(session.backendId, session.id)}/export?format=${format}` : undefined;
  const canRename = rename?.offered && !rename.disabledReason;

  return (
    <header className="@container flex h-14 shrink-0 items-center gap-2 border-b border-border bg-panel px-4 phone:gap-1.5 phone:px-2.5">
      <SidebarToggle />
      <div className="min-w-0 flex-1">
        <div className="flex min-w-0 items-center gap-2">
          {session && <SessionStatusGlyph status={session.status} />}
          {editing && session && rename ? (
            <TitleEditor
              title={session.title}
              onCancel={() => setEditing(false)}
              onSave={async (t) => {
                await rename.run(t);
                setEditing(false);
              }}
            />
          ) : (
            <h1
              className={cx(
                "truncate text-[14px] font-semibold",
                canRename && "cursor-text rounded px-0.5 -mx-0.5 hover:bg-raised",
              )}
              data-testid="session-title"
              title={canRename ? "Double-click to rename" : undefined}
              onDoubleClick={() => canRename && setEditing(true)}
            >
              {session?.title ?? "Loading…"}
            </h1>
          )}
          {session && (
            <span className="shrink-0 text-[11px] text-faint" data-testid="session-status" data-status={session.status}>
              {statusLabel(session.status)}
            </span>
          )}
        </div>
        <div className="mt-0.5 flex min-w-0 items-center gap-2 truncate text-[11px] text-faint">
          {backend && <span>{backend.label}</span>}
          {session?.forkedFrom ? (
            <Link
              href={`/sessions/${encodeURIComponent(session.backendId)}/${encodeURIComponent(session.forkedFrom.sessionId)}`}
              className="inline-flex shrink-0 items-center gap-1 text-accent hover:underline"
              data-testid="forked-from"
              title="Open the session this one was forked from"
            >
              <IconBranch size={11} /> forked
            </Link>
          ) : null}
          {session?.directory && (
            <span className="inline-flex min-w-0 items-center gap-1 truncate" title={session.directory}>
              <IconFolder className="size-3 shrink-0" />
              <span className="truncate">{session.directory}</span>
            </span>
          )}
          {session?.model && (
            <span className="font-mono" data-testid="session-model">
              {session.model.provider ? `${session.model.provider}/` : ""}
              {session.model.id}
            </span>
          )}
        </div>
      </div>
      {session && <UsageMeter session={session} messages={messages} {...(contextWindow ? { contextWindow } : {})} />}
      {session && (
        <BranchTreeButton
          backendId={session.backendId}
          sessionId={session.id}
          version={treeVersion}
          open={treeOpen}
          onOpenChange={setTreeOpen}
          buttonClassName="phone:hidden"
          returnFocus={menuButton}
        />
      )}
      {session && review?.offered !== false && onPanel ? (
        <button
          type="button"
          onClick={() => onPanel("changes")}
          aria-pressed={panel === "changes"}
          data-testid="open-changes"
          title={review?.disabledReason ?? "Review the changes of this session"}
          aria-label={`Review changes${changedFiles > 0 ? ` ${changedFiles}` : ""}`}
          className="inline-flex h-7 phone:hidden items-center gap-1.5 rounded-md px-2 text-[12px] text-muted hover:bg-raised hover:text-fg aria-pressed:bg-raised aria-pressed:text-fg"
        >
          <IconDiff size={14} />
          {changedFiles > 0 ? <span className="tabular-nums">{changedFiles}</span> : null}
        </button>
      ) : null}
      {session && (plan?.offered !== false || total > 0) && onPanel ? (
        <button
          type="button"
          onClick={() => onPanel("plan")}
          aria-pressed={panel === "plan"}
          data-testid="open-plan"
          title="The agent's plan (todo list)"
          aria-label={`Plan${total > 0 ? ` ${done}/${total}` : ""}`}
          className="inline-flex h-7 phone:hidden items-center gap-1.5 rounded-md px-2 text-[12px] text-muted hover:bg-raised hover:text-fg aria-pressed:bg-raised aria-pressed:text-fg"
        >
          <IconListChecks size={14} />
          {total > 0 ? (
            <span className="font-mono tabular-nums text-[11px]">
              {done}/{total}
            </span>
          ) : null}
        </button>
      ) : null}
      {session ? (
        <Popover
          testId="session-menu"
          title="Session actions"
          label={<IconMore size={15} />}
          panelClassName="w-[230px] phone:w-[260px]"
          buttonRef={menuButton}
          buttonClassName="phone:h-[36px] phone:px-2.5"
        >
          {(close) => (
            <div role="menu">
              {/* On a phone the header keeps title, status and the live badge; the rest is here. */}
              {review?.offered !== false && onPanel ? (
                <MenuItem
                  icon={<IconDiff size={13} />}
                  testId="menu-changes"
                  className="wide:hidden"
                  hint={changedFiles > 0 ? String(changedFiles) : undefined}
                  onSelect={() => {
                    close();
                    onPanel("changes");
                  }}
                >
                  Review changes
                </MenuItem>
              ) : null}
              {(plan?.offered !== false || total > 0) && onPanel ? (
                <MenuItem
                  icon={<IconListChecks size={13} />}
                  testId="menu-plan"
                  className="wide:hidden"
                  hint={total > 0 ? `${done}/${total}` : undefined}
                  onSelect={() => {
                    close();
                    onPanel("plan");
                  }}
                >
                  Plan
                </MenuItem>
              ) : null}
              <MenuItem
                icon={<IconBranch size={13} />}
                testId="menu-tree"
                className="wide:hidden"
                onSelect={() => {
                  close();
                  setTreeOpen(true);
                }}
              >
                Branches
              </MenuItem>
              {onShare ? (
                <MenuItem
                  icon={<IconLink size={13} />}
                  testId="menu-share"
                  className="wide:hidden"
                  {...(shareDisabled ? { disabledReason: "Loading…" } : {})}
                  onSelect={() => {
                    close();
                    onShare();
                  }}
                >
                  Share…
                </MenuItem>
              ) : null}
              <MenuSeparator className="wide:hidden" />
              {rename?.offered ? (
                <MenuItem
                  icon={<IconPencil size={13} />}
                  testId="action-rename"
                  {...(rename.disabledReason ? { disabledReason: rename.disabledReason } : {})}
                  onSelect={() => {
                    close();
                    setEditing(true);
                  }}
                >
                  Rename
                </MenuItem>
              ) : null}
              {fork?.offered ? (
                <MenuItem
                  icon={<IconBranch size={13} />}
                  testId="action-fork"
                  {...(fork.disabledReason ? { disabledReason: fork.disabledReason } : {})}
                  hint={working === "fork" ? "…" : undefined}
                  onSelect={() =>
                    run("fork", async () => {
                      await fork.run();
                      close();
                    })
                  }
                >
                  Fork session
                </MenuItem>
              ) : null}
              {compact?.offered ? (
                <MenuItem
                  icon={<IconFold size={13} />}
                  testId="action-compact"
                  {...(compact.disabledReason ? { disabledReason: compact.disabledReason } : {})}
                  hint={working === "compact" ? "…" : undefined}
                  onSelect={() =>
                    run("compact", async () => {
                      close();
                      await compact.run();
                    })
                  }
                >
                  Compact conversation
                </MenuItem>
              ) : null}
              <MenuSeparator />
              <MenuItem
                icon={<IconDownload size={13} />}
                testId="action-export-md"
                href={exportHref("md")}
                download
                onSelect={close}
              >
                Export as Markdown
              </MenuItem>
              <MenuItem
                icon={<IconDownload size={13} />}
                testId="action-export-json"
                href={exportHref("json")}
                download
                onSelect={close}
              >
                Export as JSON
              </MenuItem>
              {remove?.offered ? (
                <>
                  <MenuSeparator />
                  <MenuItem
                    icon={<IconTrash size={13} />}
                    danger
                    testId="action-delete"
                    {...(remove.disabledReason ? { disabledReason: remove.disabledReason } : {})}
                    onSelect={() => {
                      close();
                      remove.run();
                    }}
                  >
                    Delete session…
                  </MenuItem>
                </>
              ) : null}
            </div>
          )}
        </Popover>
      ) : null}
      {actions}
      <ConnectionIndicator state={link} {...(linkDetail ? { detail: linkDetail } : {})} />
    </header>
  );
}
