"use client";
/**
 * Review comments inside a diff: the small editor that opens under a picked range of lines, and a
 * saved comment shown under its lines. Comment text is rendered as text, never as HTML.
 */
import { useEffect, useId, useRef, useState } from "react";
import type { ReviewComment } from "@/lib/review-comments";
import { commentLabel, MAX_COMMENT_CHARS } from "@/lib/review-comments";
import { cx } from "../ui/cx";

/** A textarea with Save / Cancel: Ctrl/Cmd+Enter saves, Escape cancels. */
export function CommentEditor({
  label,
  initial = "",
  saveLabel = "Comment",
  onChange,
  onSave,
  onCancel,
  className,
}: {
  /** What it is about (`path:12-14`), for the field's accessible name and the hint. */
  label: string;
  initial?: string;
  saveLabel?: string;
  /** Follows the text as it is typed (to keep a draft when the editor moves). */
  onChange?: (text: string) => void;
  onSave(text: string): void;
  onCancel(): void;
  className?: string;
}) {
  const [text, setText] = useState(initial);
  const hint = useId();
  const root = useRef<HTMLDivElement>(null);
  const cancel = useRef(onCancel);
  cancel.current = onCancel;
  // Escape cancels the comment only, before a sheet's focus trap or the page take it to close the panel.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || !(e.target instanceof Node) || !root.current?.contains(e.target)) return;
      e.preventDefault();
      e.stopPropagation();
      cancel.current();
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, []);
  const save = () => {
    if (text.trim()) onSave(text.trim());
  };
  return (
    <div
      ref={root}
      className={cx("border-y border-accent/40 bg-panel px-2.5 py-2 font-sans", className)}
      data-testid="comment-editor"
    >
      <textarea
        autoFocus
        value={text}
        maxLength={MAX_COMMENT_CHARS}
        onChange={(e) => {
          setText(e.target.value);
          onChange?.(e.target.value);
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            save();
          }
        }}
        rows={3}
        placeholder="Leave a comment for the agent…"
        aria-label={`Comment on ${label}`}
        aria-describedby={hint}
        data-testid="comment-input"
        className="block min-h-[60px] w-full resize-y rounded-md border border-border bg-sunken px-2 py-1.5 text-[12.5px] leading-[18px] text-fg outline-none placeholder:text-faint focus:border-accent phone:text-[16px]"
      />
      <div className="mt-1.5 flex items-center gap-2">
        <span id={hint} className="min-w-0 flex-1 truncate text-[11px] text-faint">
          {label} · Ctrl+Enter to save, Esc to cancel
        </span>
        <button
          type="button"
          onClick={onCancel}
          data-testid="comment-cancel"
          className="inline-flex h-7 shrink-0 items-center rounded-md px-2 text-[12px] text-muted hover:bg-raised hover:text-fg phone:h-[40px]"
        >
          Cancel
        </button>
        <button
          type="button"
          onClick={save}
          disabled={!text.trim()}
          data-testid="comment-save"
          className="inline-flex h-7 shrink-0 items-center rounded-md bg-accent px-2.5 text-[12px] font-semibold text-accent-fg hover:brightness-110 disabled:opacity-40 phone:h-[40px]"
        >
          {saveLabel}
        </button>
      </div>
    </div>
  );
}

/** A saved comment under its lines: its text, with Edit and Delete (editing swaps in the editor). */
export function InlineComment({
  comment,
  onEdit,
  onDrop,
  className,
}: {
  comment: ReviewComment;
  onEdit(id: string, text: string): void;
  onDrop(id: string): void;
  className?: string;
}) {
  const [editing, setEditing] = useState(false);
  const label = commentLabel(comment);
  if (editing) {
    return (
      <CommentEditor
        label={label}
        initial={comment.text}
        saveLabel="Save"
        onSave={(t) => {
          onEdit(comment.id, t);
          setEditing(false);
        }}
        onCancel={() => setEditing(false)}
        {...(className ? { className } : {})}
      />
    );
  }
  return (
    <div
      className={cx("border-y border-border bg-panel px-2.5 py-1.5 font-sans", className)}
      data-testid="inline-comment"
      data-comment-id={comment.id}
    >
      <div className="flex items-start gap-2">
        <p className="min-w-0 flex-1 whitespace-pre-wrap text-[12.5px] leading-[18px] text-fg [overflow-wrap:anywhere]">
          {comment.text}
        </p>
        <div className="flex shrink-0 items-center gap-0.5">
          <button
            type="button"
            onClick={() => setEditing(true)}
            aria-label={`Edit the comment on ${label}`}
            className="inline-flex h-6 items-center rounded px-1.5 text-[11.5px] text-muted hover:bg-raised hover:text-fg phone:h-[36px]"
          >
            Edit
          </button>
          <button
            type="button"
            onClick={() => onDrop(comment.id)}
            aria-label={`Delete the comment on ${label}`}
            className="inline-flex h-6 items-center rounded px-1.5 text-[11.5px] text-muted hover:bg-raised hover:text-err phone:h-[36px]"
          >
            Delete
          </button>
        </div>
      </div>
    </div>
  );
}
