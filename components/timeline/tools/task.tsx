"use client";
import { useState } from "react";
import type { ToolBlock } from "@/lib/model";
import { Markdown } from "@/components/timeline/markdown";
import { PulseDots } from "@/components/ui/spinner";
import { inputStr, stripReminders } from "./shared";

/** The subagent's answer: the `<task_result>` inside OpenCode's `<task>` wrapper, or the raw output. */
export function taskResult(output: string): string {
  const m = /<task_result>\n?([\s\S]*?)\n?<\/task_result>/.exec(output);
  if (m) return m[1]!.trim();
  return stripReminders(output)
    .replace(/^<task[^>]*>\n?/, "")
    .replace(/\n?<\/task>\s*$/, "")
    .replace(/\n*<task_metadata>[\s\S]*?<\/task_metadata>/, "")
    .trim();
}

export function TaskBody({ block }: { block: ToolBlock }) {
  const prompt = inputStr(block, "prompt");
  const [full, setFull] = useState(false);
  const result = block.output ? taskResult(block.output) : "";
  const long = (prompt?.length ?? 0) > 240 || (prompt?.split("\n").length ?? 0) > 3;
  const active = block.status === "running" || block.status === "pending";
  return (
    <div className="flex flex-col gap-2">
      {prompt ? (
        <div className="rounded-md border border-border bg-sunken px-3 py-2 text-[12.5px] leading-[19px] text-muted">
          <div className={full ? "whitespace-pre-wrap" : "line-clamp-3 whitespace-pre-wrap"}>{prompt}</div>
          {long ? (
            <button
              type="button"
              onClick={() => setFull((v) => !v)}
              className="mt-1 text-[11.5px] text-faint hover:text-fg"
            >
              {full ? "Show less" : "Show full prompt"}
            </button>
          ) : null}
        </div>
      ) : null}
      {result ? (
        <div className="border-l-2 border-border-strong pl-3">
          <Markdown text={result} />
        </div>
      ) : active ? (
        <div className="flex h-6 items-center gap-2 pl-0.5 text-[12px] text-faint">
          <PulseDots className="text-accent" />
          Subagent working…
        </div>
      ) : null}
      {block.childSessionId ? (
        <div className="truncate pl-0.5 font-mono text-[11px] text-faint" title="Subagent session">
          {block.childSessionId}
        </div>
      ) : null}
    </div>
  );
}
