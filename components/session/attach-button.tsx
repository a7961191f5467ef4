"use client";
import { useRef } from "react";
import type { Capabilities } from "@/lib/model";
import { cx } from "../ui/cx";
import { IconPaperclip } from "../ui/icons";

/** The paperclip of a prompt box and its hidden file input: images only unless the backend takes files. */
export function AttachButton({
  attachments,
  disabled,
  onFiles,
  className,
}: {
  attachments: Capabilities["attachments"];
  disabled?: boolean;
  onFiles(files: File[]): void;
  className?: string;
}) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button
        type="button"
        onClick={() => input.current?.click()}
        disabled={disabled}
        aria-label="Attach files"
        title={attachments?.files ? "Attach images or files (or paste, or drop them here)" : "Attach images"}
        data-testid="attach"
        className={cx(
          "grid size-8 shrink-0 place-items-center rounded-md text-muted hover:bg-raised hover:text-fg disabled:opacity-40",
          className,
        )}
      >
        <IconPaperclip size={15} />
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        accept={attachments?.files ? undefined : "image/png,image/jpeg,image/gif,image/webp"}
        data-testid="attach-input"
        onChange={(e) => {
          if (e.target.files) onFiles(Array.from(e.target.files));
          e.target.value = "";
        }}
      />
    </>
  );
}
