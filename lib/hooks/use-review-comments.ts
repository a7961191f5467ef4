"use client";
import { useCallback, useEffect, useMemo, useState } from "react";
import { addComment, dropComments, editComment, type ReviewComment } from "../review-comments";
import { parseStored, serialize, storageKey } from "../review-comments-storage";
import { useMe } from "./use-me";

export interface ReviewCommentsApi {
  comments: ReviewComment[];
  add(c: ReviewComment): void;
  edit(id: string, text: string): void;
  drop(ids: Iterable<string>): void;
}

function write(key: string, list: ReviewComment[]) {
  try {
    if (list.length) localStorage.setItem(key, serialize(list));
    else localStorage.removeItem(key);
  } catch {
    // Storage full or blocked: the comments still live for this page.
  }
}

/**
 * A session's review comments, kept in `localStorage` per person, backend and session so they
 * survive a reload (and follow edits made in another tab of the same session).
 */
export function useReviewComments(backendId: string, sessionId: string): ReviewCommentsApi {
  const me = useMe();
  // Nothing is read or written until the console says who is signed in: another person's (or the
  // token's) comments are never shown under the wrong key, even for a moment.
  const key = me ? storageKey(backendId, sessionId, me.user.id) : undefined;
  const [comments, setComments] = useState<ReviewComment[]>([]);

  useEffect(() => {
    if (!key) return;
    setComments(parseStored(localStorage.getItem(key)));
    const onStorage = (e: StorageEvent) => {
      if (e.key === key) setComments(parseStored(e.newValue));
    };
    window.addEventListener("storage", onStorage);
    return () => window.removeEventListener("storage", onStorage);
  }, [key]);

  const update = useCallback(
    (fn: (list: ReviewComment[]) => ReviewComment[]) => {
      if (!key) return;
      // Read the stored list first: another instance (or tab) may have changed it since.
      const next = fn(parseStored(localStorage.getItem(key)));
      write(key, next);
      setComments(next);
    },
    [key],
  );

  const add = useCallback((c: ReviewComment) => update((l) => addComment(l, c)), [update]);
  const edit = useCallback((id: string, text: string) => update((l) => editComment(l, id, text)), [update]);
  const drop = useCallback((ids: Iterable<string>) => update((l) => dropComments(l, [...ids])), [update]);
  return useMemo(() => ({ comments, add, edit, drop }), [comments, add, edit, drop]);
}
