"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { SessionTree, TreeNode } from "@/lib/api";
import { apiGet, sessionPath } from "@/lib/client/api-client";
import { relativeTime } from "@/lib/format";
import { cx } from "../ui/cx";
import { IconBot, IconBranch, IconCircle } from "../ui/icons";
import { Popover } from "../ui/popover";
import { Spinner } from "../ui/spinner";
import { SessionStatusGlyph } from "../shell/status-dot";

function count(n: TreeNode): number {
  return 1 + n.children.reduce((s, c) => s + count(c), 0);
}

const RELATION = {
  root: { icon: IconCircle, label: "Original" },
  fork: { icon: IconBranch, label: "Fork" },
  subagent: { icon: IconBot, label: "Subagent" },
} as const;

function Node({
  node,
  backendId,
  currentId,
  depth,
  close,
}: {
  node: TreeNode;
  backendId: string;
  currentId: string;
  depth: number;
  close(): void;
}) {
  const s = node.session;
  const current = s.id === currentId;
  const R = RELATION[node.relation];
  return (
    <li className="relative">
      {depth > 0 ? (
        <span className="absolute -left-2 top-[15px] phone:top-[22px] w-2 border-t border-border-strong" aria-hidden />
      ) : null}
      <Link
        href={`/sessions/${encodeURIComponent(backendId)}/${encodeURIComponent(s.id)}`}
        onClick={close}
        data-testid="tree-node"
        data-session-id={s.id}
        data-relation={node.relation}
        data-current={current || undefined}
        aria-current={current ? "page" : undefined}
        title={`${R.label}: ${s.title}`}
        className={cx(
          "flex h-[30px] min-w-0 items-center gap-2 rounded-md px-2 text-[12.5px] phone:h-[44px] phone:text-[14px]",
          current ? "bg-accent/12 text-fg" : "text-muted hover:bg-raised hover:text-fg",
        )}
      >
        <R.icon
          size={12}
          className={cx(
            "shrink-0",
            node.relation === "fork" ? "text-accent" : node.relation === "subagent" ? "text-info" : "text-faint",
          )}
        />
        <span className={cx("min-w-0 flex-1 truncate", current && "font-medium")}>{s.title}</span>
        <SessionStatusGlyph status={s.status} />
        <span className={cx("shrink-0 text-[11px] tabular-nums", current ? "text-muted" : "text-faint")}>
          {relativeTime(s.updatedAt)}
        </span>
      </Link>
      {node.children.length ? (
        <ul className="ml-[13px] border-l border-border-strong pl-2">
          {node.children.map((c) => (
            <Node
              key={c.session.id}
              node={c}
              backendId={backendId}
              currentId={currentId}
              depth={depth + 1}
              close={close}
            />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/** The session family (forks and subagents) in a popover from the header; each entry navigates. */
export function BranchTreeButton({
  backendId,
  sessionId,
  version,
  open,
  onOpenChange,
  buttonClassName,
  returnFocus,
}: {
  backendId: string;
  sessionId: string;
  version: string;
  open?: boolean;
  onOpenChange?(open: boolean): void;
  buttonClassName?: string;
  returnFocus?: React.RefObject<HTMLElement | null>;
}) {
  const q = useQuery({
    queryKey: ["tree", backendId, sessionId, version],
    queryFn: () => apiGet<SessionTree>(`${sessionPath(backendId, sessionId)}/tree`),
    staleTime: 10_000,
  });
  const total = q.data ? count(q.data.root) : 0;
  return (
    <Popover
      testId="tree-button"
      panelTestId="branch-tree"
      title="Branches: forks and subagent sessions of this conversation"
      panelClassName="w-[440px] p-2"
      sheet="Branches"
      ariaLabel={total > 1 ? `Branches ${total}` : "Branches"}
      {...(open !== undefined ? { open } : {})}
      {...(onOpenChange ? { onOpenChange } : {})}
      {...(buttonClassName ? { buttonClassName } : {})}
      {...(returnFocus ? { returnFocus } : {})}
      label={
        <>
          <IconBranch size={14} />
          {total > 1 ? (
            <span className="tabular-nums" data-testid="tree-count">
              {total}
            </span>
          ) : null}
        </>
      }
    >
      {(close) => (
        <div>
          <div className="flex items-center gap-2 px-2 pb-1.5 pt-0.5 text-[11px] font-semibold uppercase tracking-wide text-faint phone:pt-2">
            Branches
            {q.isFetching ? <Spinner size={10} /> : null}
          </div>
          {q.isError ? (
            <p className="px-2 py-1 text-[12px] text-err">
              {q.error instanceof Error ? q.error.message : "Could not load the tree"}
            </p>
          ) : null}
          {q.data ? (
            <ul className="max-h-[60vh] overflow-y-auto phone:max-h-none" aria-label="Session tree">
              <Node node={q.data.root} backendId={backendId} currentId={q.data.currentId} depth={0} close={close} />
            </ul>
          ) : null}
          {q.data && total === 1 ? (
            <p className="px-2 pb-1 pt-2 text-[11.5px] leading-4 text-faint">
              No branches yet. Fork from any message to try another path; subagent sessions appear here too.
            </p>
          ) : null}
          {q.data?.truncated ? (
            <p className="px-2 pt-1 text-[11px] text-faint">Large family: showing the first 200 sessions.</p>
          ) : null}
        </div>
      )}
    </Popover>
  );
}
