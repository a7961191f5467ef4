"use client";
/** A tool call's header line: what it did in a few words (summary) and its figures (meta). Text only. */
import type { ReactNode } from "react";
import type { ToolBlock } from "@/lib/model";
import { DiffStat } from "@/components/code/diff-stat";
import { Badge } from "@/components/ui/badge";
import { cx } from "@/components/ui/cx";
import { FilePath } from "@/components/ui/file-path";
import { bashCommand } from "./tools/bash";
import { editStats, patchFiles } from "./tools/edit";
import { questionSummary } from "./tools/generic";
import { inputNum, inputStr, toolPath } from "./tools/shared";
import { todoCounts, toolTodos } from "./tools/todo";

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
export function summarize(b: ToolBlock): { summary: ReactNode; meta?: ReactNode } {
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
