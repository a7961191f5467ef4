"use client";
import { useEffect, useState } from "react";
import type { ReviewCommentsApi } from "@/lib/hooks/use-review-comments";
import { buildReviewPrompt, commentLabel } from "@/lib/review-comments";
import { CommentEditor } from "../code/diff-comments";
import { cx } from "../ui/cx";
import { IconChevronRight, IconPencil, IconTrash } from "../ui/icons";

/**
 * The review tray (issue 30): the session's review comments with their `file:line`, each editable
 * and droppable, and "Send to agent", which sends them as one prompt and then clears them. While the
 * agent works the send waits (queued, like a typed prompt) and goes when the turn ends.
 */
export function ReviewTray({
  review,
  onSend,
  busy,
  sendReason,
}: {
  review: ReviewCommentsApi;
  /** Sends a prompt the way the composer does. */
  onSend(text: string): Promise<void>;
  busy: boolean;
  /** Why the session cannot take a prompt now (backend down, loading). */
  sendReason?: string;
}) {
  const { comments, edit, drop } = review;
  const [open, setOpen] = useState(true);
  const [editing, setEditing] = useState<string>();
  const [sending, setSending] = useState(false);
  const [queued, setQueued] = useState<string[] | null>(null);
  const [error, setError] = useState<string>();

  const sendNow = async (ids: string[]) => {
    const list = comments.filter((c) => ids.includes(c.id));
    if (!list.length) return;
    setSending(true);
    setError(undefined);
    try {
      await onSend(buildReviewPrompt(list));
      drop(list.map((c) => c.id));
      setEditing(undefined);
    } catch (err) {
      setError(err instanceof Error && err.message ? err.message : "Could not send the comments");
    } finally {
      setSending(false);
    }
  };

  // A queued send goes once the turn is over.
  // biome-ignore lint/correctness/useExhaustiveDependencies: fires on the session's state, sending what was queued
  useEffect(() => {
    if (!queued || busy || sendReason || sending) return;
    const ids = queued;
    setQueued(null);
    void sendNow(ids);
  }, [queued, busy, sendReason, sending]);

  if (comments.length === 0 && !queued) return null;
  const n = comments.length;
  const send = () => {
    const ids = comments.map((c) => c.id);
    if (busy) setQueued(ids);
    else void sendNow(ids);
  };

  return (
    <section
      className="flex max-h-[45%] shrink-0 flex-col border-t border-border bg-panel"
      aria-label="Review comments"
      data-testid="review-tray"
      data-count={n}
    >
      <div className="flex h-10 shrink-0 items-center gap-2 px-2 phone:h-[48px]">
        <button
          type="button"
          onClick={() => setOpen((o) => !o)}
          aria-expanded={open}
          data-testid="review-tray-toggle"
          className="inline-flex h-7 min-w-0 items-center gap-1.5 rounded-md px-1.5 text-[12.5px] font-medium text-fg hover:bg-raised phone:h-[40px]"
        >
          <IconChevronRight size={12} className={cx("shrink-0 text-faint transition-transform", open && "rotate-90")} />
          Comments
          <span
            className="inline-grid h-[18px] min-w-[18px] place-items-center rounded-full bg-accent/15 px-1 font-mono text-[11px] text-accent"
            data-testid="review-count"
          >
            {n}
          </span>
        </button>
        <div className="ml-auto flex shrink-0 items-center gap-1.5">
          <button
            type="button"
            onClick={() => {
              drop(comments.map((c) => c.id));
              setQueued(null);
              setEditing(undefined);
            }}
            disabled={sending || n === 0}
            data-testid="review-clear"
            className="inline-flex h-7 items-center rounded-md px-2 text-[12px] text-muted hover:bg-raised hover:text-fg disabled:opacity-40 phone:h-[40px]"
          >
            Clear
          </button>
          <button
            type="button"
            onClick={send}
            disabled={Boolean(sendReason) || sending || queued !== null || n === 0}
            title={sendReason ?? (busy ? "The agent is working: the comments go when this turn ends" : undefined)}
            data-testid="review-send"
            className="inline-flex h-7 items-center rounded-md bg-accent px-2.5 text-[12px] font-semibold text-accent-fg hover:brightness-110 disabled:opacity-40 phone:h-[40px]"
          >
            {sending ? "Sending…" : busy ? "Queue for agent" : "Send to agent"}
          </button>
        </div>
      </div>
      {sendReason ? (
        <p className="shrink-0 px-3 pb-1.5 text-[11.5px] text-faint" data-testid="review-send-reason">
          Cannot send now: {sendReason}
        </p>
      ) : null}
      {queued ? (
        <p className="flex shrink-0 items-center gap-2 px-3 pb-1.5 text-[11.5px] text-muted" role="status">
          <span className="min-w-0 flex-1">Queued: the comments go to the agent when this turn ends.</span>
          <button
            type="button"
            onClick={() => setQueued(null)}
            className="shrink-0 rounded px-1.5 text-muted underline-offset-2 hover:text-fg hover:underline"
          >
            Cancel
          </button>
        </p>
      ) : null}
      {error ? (
        <p className="shrink-0 px-3 pb-1.5 text-[11.5px] text-err" role="alert">
          {error}
        </p>
      ) : null}
      {open ? (
        <ul className="min-h-0 overflow-y-auto border-t border-border py-1" data-testid="review-comments">
          {comments.map((c) => {
            const label = commentLabel(c);
            return (
              <li key={c.id} className="px-2 py-1" data-testid="review-comment" data-comment-id={c.id}>
                <div className="flex min-w-0 items-center gap-1.5">
                  <span
                    className="min-w-0 flex-1 truncate font-mono text-[11.5px] text-muted"
                    title={label}
                    data-testid="review-comment-place"
                  >
                    {label}
                  </span>
                  <button
                    type="button"
                    onClick={() => setEditing(editing === c.id ? undefined : c.id)}
                    aria-label={`Edit the comment on ${label}`}
                    title="Edit"
                    data-testid="review-comment-edit"
                    className="grid size-6 shrink-0 place-items-center rounded text-faint hover:bg-raised hover:text-fg phone:size-[36px]"
                  >
                    <IconPencil size={12} />
                  </button>
                  <button
                    type="button"
                    onClick={() => drop([c.id])}
                    aria-label={`Drop the comment on ${label}`}
                    title="Drop"
                    data-testid="review-comment-drop"
                    className="grid size-6 shrink-0 place-items-center rounded text-faint hover:bg-raised hover:text-err phone:size-[36px]"
                  >
                    <IconTrash size={12} />
                  </button>
                </div>
                {editing === c.id ? (
                  <CommentEditor
                    label={label}
                    initial={c.text}
                    saveLabel="Save"
                    className="mt-1 rounded-md border"
                    onSave={(t) => {
                      edit(c.id, t);
                      setEditing(undefined);
                    }}
                    onCancel={() => setEditing(undefined)}
                  />
                ) : (
                  <p
                    className="line-clamp-3 whitespace-pre-wrap pl-0.5 text-[12.5px] leading-[18px] text-fg [overflow-wrap:anywhere]"
                    data-testid="review-comment-text"
                  >
                    {c.text}
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}
