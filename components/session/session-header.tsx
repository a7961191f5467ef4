"use client";
import Link from "next/link";
import { useRef, useState, type ReactNode } from "react";
import type { Backend, Message, Session, Todo } from "@/lib/model";
import type { LinkState } from "@/lib/link-state";
import { ConnectionIndicator } from "./connection-indicator";
import { TitleEditor } from "./title-editor";
import { UsageMeter } from "./usage-meter";
import { sessionPath } from "@/lib/client/api-client";
import { type PanelTab, todoProgress } from "../review/panel-tab";
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
import { WorkspaceButtons, WorkspaceMenuItems } from "./workspace-buttons";
import { SidebarToggle } from "../shell/shell";

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
          {session?.createdBy ? (
            <span
              className="shrink-0"
              data-testid="session-created-by"
              title={`Created through the console by ${session.createdBy.name || session.createdBy.id}`}
            >
              by {session.createdBy.name || session.createdBy.id}
            </span>
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
      {session?.directory && onPanel ? <WorkspaceButtons panel={panel} onPanel={onPanel} /> : null}
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
              {session.directory && onPanel ? <WorkspaceMenuItems onPanel={onPanel} close={close} /> : null}
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
