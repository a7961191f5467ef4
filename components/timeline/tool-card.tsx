"use client";
/**
 * One tool call in the timeline: a fixed-height header (glyph, verb, summary, status, duration) and
 * a collapsible body specific to the tool. Everything shown is text — never HTML.
 */
import { memo, useEffect, useState, type ComponentType, type ReactNode } from "react";
import type { ToolBlock, ToolName, ToolStatus } from "@/lib/model";
import { DiffStat } from "@/components/code/diff-stat";
import { Badge } from "@/components/ui/badge";
import { cx } from "@/components/ui/cx";
import { FilePath } from "@/components/ui/file-path";
import {
  IconBan,
  IconBot,
  IconCheck,
  IconChevronRight,
  IconClock,
  IconFileText,
  IconFilePlus,
  IconFiles,
  IconFolder,
  IconGlobe,
  IconHelp,
  IconListChecks,
  IconPatch,
  IconPencil,
  IconSearch,
  IconShield,
  IconStop,
  IconTerminal,
  IconWrench,
  type IconProps,
} from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";
import { formatDuration } from "./format";
import { BashBody, ExitChip, bashCommand } from "./tools/bash";
import { EditBody, PatchBody, WriteBody, editPairs, editStats, patchFiles, patchText } from "./tools/edit";
import { GenericBody, QuestionBody, WebfetchBody, questionSummary } from "./tools/generic";
import { ReadBody } from "./tools/read";
import { GlobBody, GrepBody, ListBody } from "./tools/search";
import { inputNum, inputStr, toolPath } from "./tools/shared";
import { TaskBody } from "./tools/task";
import { TodoBody, todoCounts, toolTodos } from "./tools/todo";

/* ------------------------------------------------------------------------------------ status */

const STATUS: Record<ToolStatus, { label: string; tone: "neutral" | "accent" | "ok" | "warn" | "err" | "info" }> = {
  pending: { label: "Pending", tone: "neutral" },
  running: { label: "Running", tone: "accent" },
  "awaiting-approval": { label: "Needs you", tone: "warn" },
  completed: { label: "Done", tone: "ok" },
  error: { label: "Failed", tone: "err" },
  denied: { label: "Denied", tone: "neutral" },
  cancelled: { label: "Cancelled", tone: "neutral" },
};

/** A tool status as a compact badge (completed is a quiet check mark). */
export function ToolStatusBadge({ status }: { status: ToolStatus }) {
  const s = STATUS[status];
  if (status === "completed") {
    return (
      <span className="inline-flex size-[18px] items-center justify-center text-ok" title="Completed">
        <IconCheck size={14} strokeWidth={2.2} title="Completed" />
      </span>
    );
  }
  const icon =
    status === "running" ? (
      <Spinner size={10} />
    ) : status === "awaiting-approval" ? (
      <IconShield size={11} />
    ) : status === "pending" ? (
      <IconClock size={11} />
    ) : status === "denied" ? (
      <IconBan size={11} />
    ) : status === "cancelled" ? (
      <IconStop size={10} />
    ) : null;
  return (
    <Badge
      tone={s.tone}
      className={status === "awaiting-approval" ? "animate-pulse motion-reduce:animate-none" : undefined}
    >
      {icon}
      {s.label}
    </Badge>
  );
}

/* ------------------------------------------------------------------------------- tool table */

const ICON: Record<ToolName, ComponentType<IconProps>> = {
  bash: IconTerminal,
  read: IconFileText,
  write: IconFilePlus,
  edit: IconPencil,
  patch: IconPatch,
  grep: IconSearch,
  glob: IconFiles,
  list: IconFolder,
  webfetch: IconGlobe,
  task: IconBot,
  todo: IconListChecks,
  question: IconHelp,
  other: IconWrench,
};

const VERB: Record<ToolName, string> = {
  bash: "",
  read: "Read",
  write: "Write",
  edit: "Edit",
  patch: "Patch",
  grep: "Grep",
  glob: "Glob",
  list: "List",
  webfetch: "Fetch",
  task: "Task",
  todo: "Todos",
  question: "Ask",
  other: "",
};

const BODY: Record<ToolName, ComponentType<{ block: ToolBlock }>> = {
  bash: BashBody,
  read: ReadBody,
  write: WriteBody,
  edit: EditBody,
  patch: PatchBody,
  grep: GrepBody,
  glob: GlobBody,
  list: ListBody,
  webfetch: WebfetchBody,
  task: TaskBody,
  todo: TodoBody,
  question: QuestionBody,
  other: GenericBody,
};

/** Whether the tool's body has anything to show. */
function hasBody(b: ToolBlock): boolean {
  if (b.error || b.status === "awaiting-approval") return true;
  switch (b.tool) {
    case "bash":
      return bashCommand(b) !== "" || Boolean(b.output);
    case "write":
      return Boolean(b.diff?.length) || inputStr(b, "content", "contents", "text") !== undefined;
    case "edit":
      return Boolean(b.diff?.length) || editPairs(b).length > 0;
    case "patch":
      return Boolean(b.diff?.length) || Boolean(patchText(b));
    case "task":
      return Boolean(inputStr(b, "prompt") || b.output);
    case "todo":
      return toolTodos(b).length > 0;
    case "question":
      return true;
    case "other":
      return Object.keys(b.input).length > 0 || Boolean(b.output);
    default:
      return Boolean(b.output);
  }
}

/** Open by default while it needs attention; completed lookups stay folded, actions stay open. */
export function defaultOpen(b: ToolBlock): boolean {
  switch (b.status) {
    case "running":
    case "awaiting-approval":
    case "error":
    case "pending":
      return true;
    case "denied":
    case "cancelled":
      return false;
    case "completed":
      return ["bash", "write", "edit", "patch", "task", "todo", "question"].includes(b.tool);
  }
}

function shortUrl(u: string): string {
  return u.replace(/^https?:\/\//, "").replace(/\/$/, "");
}

/** The path to display: OpenCode's title is the worktree-relative path when it is a suffix of it. */
function displayPath(b: ToolBlock): string | undefined {
  const p = toolPath(b);
  if (p && b.title && b.title !== p && p.endsWith(b.title) && !b.title.includes(" ")) return b.title;
  return p ?? (b.title && !b.title.includes(" ") ? b.title : undefined);
}

function Mono({ children, title, className }: { children: ReactNode; title?: string; className?: string }) {
  return (
    <span className={cx("min-w-0 truncate font-mono text-[12px] text-fg", className)} title={title}>
      {children}
    </span>
  );
}

function Faint({ children, className }: { children: ReactNode; className?: string }) {
  return <span className={cx("min-w-0 shrink-[5] truncate text-faint", className)}>{children}</span>;
}

/** The header's summary (flexible) and meta (fixed, right-aligned before the status). */
function summarize(b: ToolBlock): { summary: ReactNode; meta?: ReactNode } {
  switch (b.tool) {
    case "bash": {
      const cmd = bashCommand(b);
      const lines = cmd.split("\n");
      return {
        summary: (
          <>
            <Mono title={cmd}>{lines[0] || inputStr(b, "description") || b.title || "shell"}</Mono>
            {lines.length > 1 ? <Faint className="shrink-0 text-[11.5px]">+{lines.length - 1} lines</Faint> : null}
          </>
        ),
        meta: undefined,
      };
    }
    case "read":
    case "write":
    case "edit": {
      const path = displayPath(b);
      const full = toolPath(b);
      let meta: ReactNode;
      if (b.tool === "read") {
        const offset = inputNum(b, "offset");
        const limit = inputNum(b, "limit");
        if (offset !== undefined || limit !== undefined) {
          const from = offset ?? 1;
          meta = (
            <span className="font-mono text-[11.5px] text-faint">
              {limit ? `L${from}–${from + limit - 1}` : `from L${from}`}
            </span>
          );
        }
      } else {
        const s = editStats(b);
        if (s) meta = <DiffStat {...s} />;
      }
      return {
        summary: path ? (
          <span className="flex min-w-0 flex-1" title={full}>
            <FilePath path={path} />
          </span>
        ) : (
          <Faint>{b.title ?? "file"}</Faint>
        ),
        meta,
      };
    }
    case "patch": {
      const files = patchFiles(b);
      const s = editStats(b);
      return {
        summary:
          files.length === 1 ? (
            <span className="flex min-w-0 flex-1">
              <FilePath path={files[0]!} />
            </span>
          ) : (
            <span className="min-w-0 truncate text-fg">
              {files.length ? `${files.length} files` : (b.title ?? "patch")}
            </span>
          ),
        meta: s ? <DiffStat {...s} /> : undefined,
      };
    }
    case "grep":
    case "glob": {
      const pattern = inputStr(b, "pattern", "query", "regex") ?? b.title ?? "";
      const where = inputStr(b, "path", "cwd");
      const include = inputStr(b, "include", "glob");
      const found = b.output ? /^Found (\d+) match/.exec(b.output)?.[1] : undefined;
      const count =
        b.tool === "glob" && b.output && b.status === "completed"
          ? b.output.split("\n").filter((l) => l.trim() && !l.startsWith("(") && !/^No files found/.test(l)).length
          : undefined;
      return {
        summary: (
          <>
            <Mono title={pattern}>{pattern}</Mono>
            {include ? <Faint className="font-mono text-[11.5px]">{include}</Faint> : null}
            {where ? <Faint>in {where.replace(/^\/(?:home|Users)\/[^/]+\//, "~/")}</Faint> : null}
          </>
        ),
        meta:
          found !== undefined ? (
            <span className="text-[11.5px] text-faint">{found} matches</span>
          ) : count !== undefined ? (
            <span className="text-[11.5px] text-faint">{count} files</span>
          ) : undefined,
      };
    }
    case "list": {
      const path = inputStr(b, "path", "dir", "directory") ?? b.title ?? ".";
      return { summary: <Mono title={path}>{path.replace(/^\/(?:home|Users)\/[^/]+\//, "~/")}</Mono> };
    }
    case "webfetch": {
      const url = inputStr(b, "url") ?? b.title ?? "";
      const format = inputStr(b, "format");
      return {
        summary: <Mono title={url}>{shortUrl(url)}</Mono>,
        meta: format ? <span className="text-[11.5px] text-faint">{format}</span> : undefined,
      };
    }
    case "task": {
      const desc = inputStr(b, "description") ?? b.title ?? "Subagent";
      const agent = inputStr(b, "subagent_type", "agent", "subagentType");
      return {
        summary: <span className="min-w-0 truncate text-fg">{desc}</span>,
        meta: agent ? <Badge>{agent}</Badge> : undefined,
      };
    }
    case "todo": {
      const todos = toolTodos(b);
      const { done, total } = todoCounts(todos);
      const current = todos.find((t) => t.status === "in_progress");
      return {
        summary: (
          <span className="min-w-0 truncate text-muted">{current ? current.content : (b.title ?? "Updated list")}</span>
        ),
        meta: total ? (
          <span className="font-mono text-[11.5px] text-faint">
            {done}/{total}
          </span>
        ) : undefined,
      };
    }
    case "question":
      return { summary: <span className="min-w-0 truncate text-fg">{questionSummary(b)}</span> };
    case "other": {
      const firstStr = Object.values(b.input).find((v): v is string => typeof v === "string" && v.length > 0);
      return {
        summary: (
          <>
            <Mono className="shrink-0 text-muted">{b.rawTool}</Mono>
            {b.title || firstStr ? <Faint>{(b.title ?? firstStr ?? "").split("\n")[0]}</Faint> : null}
          </>
        ),
      };
    }
  }
}

/* ------------------------------------------------------------------------------------ timing */

/** The clock for a live duration: null until mounted, so a server render and its hydration agree. */
function useNow(active: boolean): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

function Duration({ block }: { block: ToolBlock }) {
  const live = block.status === "running" && block.startedAt !== undefined && block.endedAt === undefined;
  const now = useNow(live);
  if (block.startedAt === undefined) return null;
  const end = block.endedAt ?? (live ? (now ?? undefined) : undefined);
  if (end === undefined) return null;
  return (
    <span
      className="min-w-12 shrink-0 whitespace-nowrap text-right font-mono text-[11px] tabular-nums text-faint"
      suppressHydrationWarning
    >
      {formatDuration(Math.max(0, end - block.startedAt))}
    </span>
  );
}

/* -------------------------------------------------------------------------------------- card */

function ErrorRow({ block }: { block: ToolBlock }) {
  if (!block.error) return null;
  if (block.status === "denied" || block.status === "cancelled") {
    return (
      <div className="flex items-start gap-2 px-0.5 text-[12.5px] text-muted">
        {block.status === "denied" ? (
          <IconBan size={13} className="mt-[3px] shrink-0 text-faint" />
        ) : (
          <IconStop size={12} className="mt-[3px] shrink-0 text-faint" />
        )}
        <span className="whitespace-pre-wrap [overflow-wrap:anywhere]">{block.error}</span>
      </div>
    );
  }
  return (
    <pre className="max-h-60 overflow-auto whitespace-pre-wrap rounded-md border border-err/25 bg-err/5 px-3 py-2 font-mono text-[12px] leading-[18px] text-err [overflow-wrap:anywhere]">
      {block.error}
    </pre>
  );
}

export interface ToolCardProps {
  block: ToolBlock;
  className?: string;
}

export const ToolCard = memo(function ToolCard({ block, className }: ToolCardProps) {
  const [userOpen, setUserOpen] = useState<boolean | null>(null);
  const expandable = hasBody(block);
  const open = expandable && (userOpen ?? defaultOpen(block));
  const Icon = ICON[block.tool];
  const verb = VERB[block.tool];
  const { summary, meta } = summarize(block);
  const Body = BODY[block.tool];
  const attention = block.status === "awaiting-approval";
  const failed =
    block.status === "error" || (block.status === "completed" && block.exitCode !== undefined && block.exitCode !== 0);

  return (
    <div
      className={cx(
        "min-w-0 rounded-lg border bg-panel",
        attention ? "border-warn/45" : failed ? "border-err/30" : "border-border",
        className,
      )}
      data-testid="tool-card"
      data-tool={block.tool}
      data-status={block.status}
    >
      <button
        type="button"
        disabled={!expandable}
        aria-expanded={expandable ? open : undefined}
        onClick={() => setUserOpen(!open)}
        className={cx(
          "flex h-8 w-full min-w-0 items-center gap-2 rounded-lg px-2.5 text-left text-[13px]",
          expandable && "hover:bg-raised/60",
          !expandable && "cursor-default",
        )}
      >
        <Icon size={14} className={cx("shrink-0", failed ? "text-err" : attention ? "text-warn" : "text-faint")} />
        {verb ? <span className="shrink-0 font-medium text-muted">{verb}</span> : null}
        <span className="flex min-w-0 flex-1 items-baseline gap-2">{summary}</span>
        {meta ? <span className="flex shrink-0 items-center">{meta}</span> : null}
        {block.status === "completed" &&
        block.tool === "bash" &&
        block.exitCode !== undefined &&
        block.exitCode !== 0 ? (
          <ExitChip code={block.exitCode} />
        ) : (
          <ToolStatusBadge status={block.status} />
        )}
        <Duration block={block} />
        <IconChevronRight
          size={12}
          className={cx(
            "shrink-0 text-faint transition-transform duration-150",
            open && "rotate-90",
            !expandable && "invisible",
          )}
        />
      </button>
      {open ? (
        <div className="flex min-w-0 flex-col gap-2 border-t border-border px-2.5 py-2.5">
          <Body block={block} />
          <ErrorRow block={block} />
          {attention ? (
            <div className="flex items-center gap-2 px-0.5 text-[12px] text-warn">
              <IconShield size={13} />
              {block.tool === "question"
                ? "Waiting for your answer"
                : block.tool === "task"
                  ? "The subagent is waiting for you"
                  : "Waiting for approval"}
            </div>
          ) : null}
        </div>
      ) : null}
    </div>
  );
});
