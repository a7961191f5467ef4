"use client";
import { memo } from "react";
import type { Block, FileBlock, NoticeBlock } from "@/lib/model";
import { Badge } from "@/components/ui/badge";
import { cx } from "@/components/ui/cx";
import { IconAlert, IconAlertCircle, IconExternal, IconInfo, IconPaperclip } from "@/components/ui/icons";
import { Markdown } from "./markdown";
import { ReasoningView } from "./reasoning-view";
import { ToolCard } from "./tool-card";

/** An http(s) URL, or a data: URL of a raster image; anything else is not linkable. */
export function linkableFileUrl(url: string): { href: string; kind: "http" | "data-image" } | null {
  const u = url.trim();
  if (/^https?:\/\//i.test(u)) {
    try {
      return { href: new URL(u).href, kind: "http" };
    } catch {
      return null;
    }
  }
  if (/^data:image\/(png|jpe?g|gif|webp|avif|bmp);/i.test(u)) return { href: u, kind: "data-image" };
  return null;
}

export function FileView({ block }: { block: FileBlock }) {
  const link = linkableFileUrl(block.url);
  const name = (
    <span className="min-w-0 truncate font-medium text-fg" title={block.name}>
      {block.name}
    </span>
  );
  return (
    <div className="flex h-8 w-fit max-w-full items-center gap-2 rounded-lg border border-border bg-panel px-2.5 text-[12.5px]">
      {link?.kind === "data-image" ? (
        // Inline data: no network request is made.
        // biome-ignore lint/performance/noImgElement: a data: URL thumbnail; next/image would send it through the optimizer
        <img src={link.href} alt="" className="size-5 shrink-0 rounded-sm border border-border object-cover" />
      ) : (
        <IconPaperclip size={13} className="shrink-0 text-faint" />
      )}
      {link ? (
        <a
          href={link.href}
          target="_blank"
          rel="noopener noreferrer nofollow"
          download={link.kind === "data-image" ? block.name : undefined}
          className="flex min-w-0 items-center gap-1.5 hover:underline"
        >
          {name}
          {link.kind === "http" ? <IconExternal size={11} className="shrink-0 text-faint" /> : null}
        </a>
      ) : (
        name
      )}
      <Badge mono className="max-w-[14rem] truncate">
        {block.mime}
      </Badge>
    </div>
  );
}

const NOTICE = {
  info: { icon: IconInfo, cls: "text-muted border-info/50", iconCls: "text-info" },
  warn: { icon: IconAlert, cls: "text-warn border-warn/60", iconCls: "text-warn" },
  error: { icon: IconAlertCircle, cls: "text-err border-err/60", iconCls: "text-err" },
} as const;

export function NoticeView({ block }: { block: NoticeBlock }) {
  const n = NOTICE[block.level];
  const Icon = n.icon;
  return (
    <div
      role={block.level === "error" ? "alert" : "status"}
      className={cx("flex min-h-7 items-start gap-2 border-l-2 py-1 pl-2.5 text-[12.5px] leading-[18px]", n.cls)}
    >
      <Icon size={13} className={cx("mt-[2.5px] shrink-0", n.iconCls)} />
      <span className="min-w-0 whitespace-pre-wrap [overflow-wrap:anywhere]">{block.text}</span>
    </div>
  );
}

export interface BlockViewProps {
  block: Block;
  /** This block is the one currently growing. */
  streaming?: boolean;
}

/** One block of a message, by kind. */
export const BlockView = memo(function BlockView({ block, streaming = false }: BlockViewProps) {
  return (
    <div className="contents" data-testid="block" data-kind={block.kind} data-block-id={block.id}>
      <BlockBody block={block} streaming={streaming} />
    </div>
  );
});

function BlockBody({ block, streaming }: { block: Block; streaming: boolean }) {
  switch (block.kind) {
    case "text":
      return block.text.trim() ? <Markdown text={block.text} streaming={streaming} /> : null;
    case "reasoning":
      return <ReasoningView block={block} streaming={streaming} />;
    case "tool":
      return <ToolCard block={block} />;
    case "file":
      return <FileView block={block} />;
    case "notice":
      return <NoticeView block={block} />;
  }
}
