"use client";
import { useId, useRef, useState } from "react";
import { type Attachment, readAttachments } from "@/lib/attachments";
import { useMentionPicker } from "@/lib/hooks/use-mention-picker";
import type { Capabilities } from "@/lib/model";
import { AttachButton } from "../session/attach-button";
import { AttachedFiles } from "../session/composer-lists";
import { MentionPickerList } from "../session/composer-menus";
import { cx } from "../ui/cx";

export interface TaskValue {
  text: string;
  files: Attachment[];
  /** Paths picked from the `@` list (the ones still written in the text are sent). */
  mentions: string[];
}

/**
 * The task of a comparison: its text, with `@` mentions of the repository's files (the session
 * composer's list, over `GET /api/compare/files`) and attached files (paste, drop or the button; the
 * composer's checks, for what every chosen target takes).
 */
export function CompareTask({
  value,
  onChange,
  filesUrl,
  attachments,
  className,
}: {
  value: TaskValue;
  onChange(next: TaskValue | ((cur: TaskValue) => TaskValue)): void;
  filesUrl: string;
  /** What every chosen target takes (absent: no attach control). */
  attachments: Capabilities["attachments"];
  className: string;
}) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const nextId = useRef(1);
  const [dragging, setDragging] = useState(false);
  const [error, setError] = useState<string>();
  const menuId = useId();
  const optionId = (i: number) => `${menuId}-option-${i}`;
  const canAttach = Boolean(attachments?.images || attachments?.files);
  const picker = useMentionPicker({
    text: value.text,
    filesUrl,
    textarea: ref,
    onPick: (text, p) =>
      onChange((cur) => ({ ...cur, text, mentions: cur.mentions.includes(p) ? cur.mentions : [...cur.mentions, p] })),
  });
  const { items, active } = picker;

  const addFiles = async (picked: File[]) => {
    if (!picked.length) return;
    const { added, errors } = await readAttachments(picked, attachments, value.files, () => nextId.current++);
    if (added.length) onChange((cur) => ({ ...cur, files: [...cur.files, ...added] }));
    setError(errors.length ? errors.join(" · ") : undefined);
  };

  return (
    <div className="space-y-1.5">
      {value.files.length > 0 ? (
        <AttachedFiles
          files={value.files}
          onRemove={(id) => onChange((cur) => ({ ...cur, files: cur.files.filter((f) => f.id !== id) }))}
        />
      ) : null}
      {error ? (
        <p className="text-[12px] text-err" role="alert" data-testid="compare-attach-error">
          {error}
        </p>
      ) : null}
      <div
        // The file list opens below the box (the form starts at the top of the page).
        className={cx(
          "relative flex items-start gap-1.5 [&>[data-testid=mention-menu]]:bottom-auto [&>[data-testid=mention-menu]]:top-full [&>[data-testid=mention-menu]]:mb-0 [&>[data-testid=mention-menu]]:mt-1.5 [&>[data-testid=mention-status]]:bottom-auto [&>[data-testid=mention-status]]:top-full [&>[data-testid=mention-status]]:mt-1.5",
          dragging && "rounded-md ring-2 ring-accent/40",
        )}
        onDragOver={(e) => {
          if (!canAttach || !e.dataTransfer.types.includes("Files")) return;
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          setDragging(false);
          if (!canAttach || !e.dataTransfer.files.length) return;
          e.preventDefault();
          void addFiles(Array.from(e.dataTransfer.files));
        }}
      >
        <textarea
          ref={ref}
          value={value.text}
          onChange={(e) => {
            const text = e.target.value;
            onChange((cur) => ({ ...cur, text }));
            picker.typed(e.target.selectionStart);
          }}
          onSelect={(e) => picker.moved(e.currentTarget.selectionStart)}
          onPaste={(e) => {
            if (!canAttach || !e.clipboardData.files.length) return;
            e.preventDefault();
            void addFiles(Array.from(e.clipboardData.files));
          }}
          onKeyDown={(e) => void picker.onKeyDown(e)}
          rows={5}
          placeholder="What should each agent do? Type @ to mention a file of the repository."
          className={className}
          data-testid="compare-prompt"
          aria-label="Task"
          aria-autocomplete="list"
          aria-controls={items.length > 0 ? menuId : undefined}
          aria-activedescendant={items.length > 0 ? optionId(active) : undefined}
        />
        <MentionPickerList picker={picker} id={menuId} optionId={optionId} />
        {canAttach ? (
          <AttachButton attachments={attachments} onFiles={(f) => void addFiles(f)} className="border border-border" />
        ) : null}
      </div>
    </div>
  );
}
