"use client";
/** Above the prompt box: the prompts queued while the agent works, and the files attached to the next one. */
import type { Attachment } from "@/lib/attachments";
import { formatBytes } from "@/lib/format-bytes";
import type { QueuedPrompt } from "@/lib/hooks/use-prompt-queue";
import { IconPaperclip, IconX } from "../ui/icons";

const fileCount = (n: number) => `${n} ${n === 1 ? "file" : "files"}`;

export function QueuedPrompts({ queue, onRemove }: { queue: readonly QueuedPrompt[]; onRemove(id: number): void }) {
  return (
    <ul className="mb-2 flex flex-col gap-1" aria-label="Queued prompts">
      {queue.map((q, i) => (
        <li
          key={q.id}
          data-testid="queued-prompt"
          className="flex items-center gap-2 rounded-md border border-dashed border-border-strong bg-sunken px-2 py-1 text-[12px] text-muted"
        >
          <span className="shrink-0 text-[10px] font-semibold uppercase tracking-wide text-faint">Queued {i + 1}</span>
          <span className="min-w-0 flex-1 truncate">
            {q.text}
            {q.files.length ? `${q.text ? " · " : ""}${fileCount(q.files.length)}` : ""}
          </span>
          <button
            type="button"
            className="grid size-5 place-items-center rounded hover:bg-raised hover:text-fg"
            title="Remove from queue"
            onClick={() => onRemove(q.id)}
          >
            <IconX className="size-3" />
          </button>
        </li>
      ))}
    </ul>
  );
}

export function AttachedFiles({ files, onRemove }: { files: readonly Attachment[]; onRemove(id: number): void }) {
  return (
    <ul className="mb-2 flex flex-wrap gap-1.5" aria-label="Attached files" data-testid="attachments">
      {files.map((f) => (
        <li
          key={f.id}
          data-testid="attachment"
          data-name={f.name}
          className="flex h-8 max-w-[260px] items-center gap-1.5 rounded-md border border-border bg-sunken pl-1.5 pr-1 text-[12px] text-muted"
        >
          {f.mime.startsWith("image/") ? (
            // biome-ignore lint/performance/noImgElement: a data: URL thumbnail; next/image would send it through the optimizer
            <img src={f.url} alt="" className="size-5 shrink-0 rounded-sm border border-border object-cover" />
          ) : (
            <IconPaperclip size={13} className="shrink-0 text-faint" />
          )}
          <span className="min-w-0 truncate text-fg" title={f.name}>
            {f.name}
          </span>
          <span className="shrink-0 text-[11px] tabular-nums text-faint">{formatBytes(f.size)}</span>
          <button
            type="button"
            className="grid size-6 shrink-0 place-items-center rounded hover:bg-raised hover:text-fg"
            aria-label={`Remove ${f.name}`}
            title="Remove"
            onClick={() => onRemove(f.id)}
          >
            <IconX className="size-3" />
          </button>
        </li>
      ))}
    </ul>
  );
}
