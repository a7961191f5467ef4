"use client";
import { useId, useRef, useState } from "react";
import { type Attachment, readAttachments } from "@/lib/attachments";
import { useFileMentions } from "@/lib/hooks/use-file-mentions";
import { insertMention, mentionAt } from "@/lib/mentions";
import type { Capabilities } from "@/lib/model";
import { AttachedFiles } from "../session/composer-lists";
import { MentionMenu, MentionStatus } from "../session/composer-menus";
import { cx } from "../ui/cx";
import { IconPaperclip } from "../ui/icons";

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
  const fileInput = useRef<HTMLInputElement>(null);
  const nextId = useRef(1);
  const [caret, setCaret] = useState(0);
  const [closed, setClosed] = useState(false);
  const [index, setIndex] = useState(0);
  const [dragging, setDragging] = useState(false);
  const [error, setError] = useState<string>();
  const menuId = useId();
  const optionId = (i: number) => `${menuId}-option-${i}`;
  const canAttach = Boolean(attachments?.images || attachments?.files);
  const mention = closed ? undefined : mentionAt(value.text, caret);
  const found = useFileMentions(filesUrl, mention?.query);
  const items = mention ? found.items : [];
  const active = Math.min(index, items.length - 1);
  const list = useRef<HTMLUListElement>(null);

  const pick = (p: string) => {
    if (!mention) return;
    const next = insertMention(value.text, mention.start, caret, p);
    onChange((cur) => ({
      ...cur,
      text: next.text,
      mentions: cur.mentions.includes(p) ? cur.mentions : [...cur.mentions, p],
    }));
    setCaret(next.caret);
    setIndex(0);
    requestAnimationFrame(() => {
      ref.current?.focus();
      ref.current?.setSelectionRange(next.caret, next.caret);
    });
  };

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
            setCaret(e.target.selectionStart);
            setIndex(0);
            setClosed(false);
          }}
          onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
          onPaste={(e) => {
            if (!canAttach || !e.clipboardData.files.length) return;
            e.preventDefault();
            void addFiles(Array.from(e.clipboardData.files));
          }}
          onKeyDown={(e) => {
            if (mention && items.length > 0) {
              if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                e.preventDefault();
                setIndex((active + (e.key === "ArrowDown" ? 1 : -1) + items.length) % items.length);
                return;
              }
              if ((e.key === "Tab" || e.key === "Enter") && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                pick(items[active]!);
                return;
              }
            }
            if (mention && e.key === "Escape") {
              e.preventDefault();
              setClosed(true);
            }
          }}
          rows={5}
          placeholder="What should each agent do? Type @ to mention a file of the repository."
          className={className}
          data-testid="compare-prompt"
          aria-label="Task"
          aria-autocomplete="list"
          aria-controls={items.length > 0 ? menuId : undefined}
          aria-activedescendant={items.length > 0 ? optionId(active) : undefined}
        />
        {mention && items.length > 0 ? (
          <MentionMenu
            id={menuId}
            listRef={list}
            items={items}
            activeIndex={active}
            optionId={optionId}
            onPick={pick}
            onHover={setIndex}
          />
        ) : mention && (found.error || !found.loading) ? (
          <MentionStatus error={found.error} />
        ) : null}
        {canAttach ? (
          <>
            <button
              type="button"
              onClick={() => fileInput.current?.click()}
              aria-label="Attach files"
              title={attachments?.files ? "Attach images or files (or paste, or drop them here)" : "Attach images"}
              data-testid="attach"
              className="grid size-8 shrink-0 place-items-center rounded-md border border-border text-muted hover:bg-raised hover:text-fg"
            >
              <IconPaperclip size={15} />
            </button>
            <input
              ref={fileInput}
              type="file"
              multiple
              hidden
              accept={attachments?.files ? undefined : "image/png,image/jpeg,image/gif,image/webp"}
              data-testid="attach-input"
              onChange={(e) => {
                if (e.target.files) void addFiles(Array.from(e.target.files));
                e.target.value = "";
              }}
            />
          </>
        ) : null}
      </div>
    </div>
  );
}
