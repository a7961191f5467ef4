"use client";
import { memo, useState } from "react";
import type { ReasoningBlock } from "@/lib/model";
import { cx } from "@/components/ui/cx";
import { IconBrain, IconChevronRight } from "@/components/ui/icons";
import { formatChars, formatDuration } from "./format";
import { Markdown } from "./markdown";

/**
 * Model reasoning: a one-line "Thinking · N chars" row (pulsing "Thinking…" while it streams),
 * expanding to the text in a muted tone.
 */
export const ReasoningView = memo(function ReasoningView({
  block,
  streaming = false,
}: {
  block: ReasoningBlock;
  streaming?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const text = block.text.trim();
  const live = streaming && block.endedAt === undefined;
  const took =
    block.startedAt !== undefined && block.endedAt !== undefined ? formatDuration(block.endedAt - block.startedAt) : "";
  if (!text && !live) return null;
  return (
    <div className="min-w-0">
      <button
        type="button"
        aria-expanded={open}
        onClick={() => setOpen((v) => !v)}
        className="group flex h-7 max-w-full items-center gap-1.5 rounded-md pr-2 text-[12.5px] text-faint hover:text-muted"
      >
        <IconBrain
          size={14}
          className={cx("shrink-0", live && "animate-pulse text-accent motion-reduce:animate-none")}
        />
        {live ? (
          <span className="animate-pulse text-muted motion-reduce:animate-none">Thinking…</span>
        ) : (
          <span className="text-muted">Thinking</span>
        )}
        {!live && text ? (
          <span className="truncate">
            · {formatChars(text.length)}
            {took ? ` · ${took}` : ""}
          </span>
        ) : null}
        {text ? (
          <IconChevronRight
            size={12}
            className={cx("shrink-0 transition-transform duration-150", open && "rotate-90")}
          />
        ) : null}
      </button>
      {open && text ? (
        <div className="mb-1 ml-[7px] border-l border-border-strong/70 pl-4 text-muted [&_.sb-prose]:text-[13px]">
          <Markdown text={text} streaming={live} className="italic text-muted [&_code]:not-italic [&_pre]:not-italic" />
        </div>
      ) : null}
    </div>
  );
});
