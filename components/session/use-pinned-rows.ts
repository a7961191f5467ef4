"use client";
import { useCallback, useLayoutEffect, useMemo, useState } from "react";
import { defaultRangeExtractor, type Range } from "@tanstack/react-virtual";
import type { Message } from "@/lib/model";
import { withPinned } from "@/lib/timeline/pinned-rows";
import { messagesShape } from "@/lib/timeline/reducer";

/**
 * The timeline's rows rendered wherever the reader is scrolled (with an overscan of one row): the
 * newest message, so a reply arriving while the reader is scrolled up is in the DOM (find in page,
 * screen readers, the e2e specs); the row holding focus, so it does not unmount under the keyboard;
 * rows holding an interrupt card. Row i is message i - 1 (row 0 is the top of the list); rows carry
 * their message id as `data-row-key`, and `onFocus`/`onBlur` go on an element around them.
 */
export function usePinnedRows(messages: Message[], withCards: ReadonlyMap<string, unknown>) {
  // By id, not index: indexes move when older pages are prepended.
  const [focusedId, setFocusedId] = useState<string>();
  const onFocus = (e: React.FocusEvent) => {
    const key = e.target instanceof Element ? e.target.closest("[data-row-key]")?.getAttribute("data-row-key") : null;
    if ((key ?? undefined) !== focusedId) setFocusedId(key ?? undefined);
  };
  const onBlur = (e: React.FocusEvent) => {
    if (!(e.relatedTarget instanceof Node && e.currentTarget.contains(e.relatedTarget))) setFocusedId(undefined);
  };
  // Ids move to other rows only when the list's shape changes (a message added, older ones
  // prepended): a streaming delta keeps the shape token, so it does not walk the whole list again.
  // A string, so the extractor is kept while the pins are the same.
  const shape = messagesShape(messages);
  const cardIds = [...withCards.keys()].join(",");
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the list's shape; `messages` is read for its ids
  const pinnedKey = useMemo(() => {
    const ids = new Set(cardIds ? cardIds.split(",") : []);
    if (focusedId) ids.add(focusedId);
    const rows: number[] = [messages.length];
    if (ids.size > 0) for (const [i, m] of messages.entries()) if (ids.has(m.id)) rows.push(i + 1);
    return rows.join(",");
  }, [shape, cardIds, focusedId]);
  const rangeExtractor = useCallback(
    (range: Range) => withPinned(defaultRangeExtractor(range), pinnedKey.split(",").map(Number), range.count),
    [pinnedKey],
  );
  return { rangeExtractor, onFocus, onBlur };
}

/**
 * Calls `follow` when the reader's own new prompt is appended (a user message by them, or with no
 * author), so the turn it starts is on screen, and rendered, even if they had scrolled up.
 */
export function useFollowOwnPrompt(
  messages: Message[],
  meId: string | undefined,
  hydrated: boolean,
  follow: () => void,
) {
  // The newest user message among the last few: its reply may arrive in the same batch of events.
  let prompt: Message | undefined;
  for (let i = messages.length - 1; i >= Math.max(0, messages.length - 10) && !prompt; i--)
    if (messages[i]!.role === "user") prompt = messages[i];
  const ownPrompt = prompt && (!prompt.author || prompt.author.id === meId) ? prompt.id : undefined;
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a new prompt of the reader's is appended
  useLayoutEffect(() => {
    if (ownPrompt && hydrated) follow();
  }, [ownPrompt]);
}
