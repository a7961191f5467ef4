"use client";
/**
 * One tool call in the timeline: a fixed-height header (glyph, verb, summary, status, duration) and
 * a collapsible body specific to the tool. Everything shown is text — never HTML.
 */
import { memo, useEffect, useState, type ComponentType, type CSSProperties } from "react";
import type { ToolBlock, ToolName, ToolStatus } from "@/lib/model";
import { Badge } from "@/components/ui/badge";
import { cx } from "@/components/ui/cx";
import {
  IconBan,
  IconBot,
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
  type Icon,
} from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";
import { formatDuration } from "./format";
import { BashBody, ExitChip, bashCommand } from "./tools/bash";
import { EditBody, PatchBody, WriteBody, editPairs, patchText } from "./tools/edit";
import { GenericBody, QuestionBody, WebfetchBody } from "./tools/generic";
import { ReadBody } from "./tools/read";
import { GlobBody, GrepBody, ListBody } from "./tools/search";
import { inputStr } from "./tools/shared";
import { TaskBody } from "./tools/task";
import { TodoBody, toolTodos } from "./tools/todo";
import { summarize } from "./tool-summary";

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
      // One span, named by itself and drawn by CSS (app/globals.css): no <svg>, <path> or <title>.
      <span
        className="sb-check inline-block size-[18px] shrink-0 text-ok"
        title="Completed"
        role="img"
        aria-label="Completed"
      />
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

const ICON: Record<ToolName, Icon> = {
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
// Each tool's glyph as a CSS mask, made once: the header button's ::before (app/globals.css), so a
// tool call's header holds no icon element at all.
const GLYPH_STYLE = Object.fromEntries(
  Object.entries(ICON).map(([tool, icon]) => [tool, { "--sb-glyph": icon.glyph } as CSSProperties]),
) as Record<ToolName, CSSProperties>;

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
        // The tool's glyph is the button's ::before and the chevron its ::after (app/globals.css
        // .sb-tool-head), the glyph coloured by data-tone.
        style={GLYPH_STYLE[block.tool]}
        data-tone={failed ? "err" : attention ? "warn" : undefined}
        className={cx(
          "sb-tool-head flex h-8 w-full min-w-0 items-center gap-2 rounded-lg px-2.5 text-left text-[13px]",
          expandable && "hover:bg-raised/60",
          !expandable && "cursor-default",
        )}
      >
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
