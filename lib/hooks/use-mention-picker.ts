"use client";
import { type KeyboardEvent, type RefObject, useEffect, useRef, useState } from "react";
import { insertMention, mentionAt } from "../mentions";
import { useFileMentions } from "./use-file-mentions";

/**
 * The `@` file list of a prompt box (the session composer, the compare task): open while the caret
 * ends an `@word`, unless closed with Escape; the arrows move through it (kept in view), Tab or Enter
 * puts the active path in, and the caret goes after it.
 */
export function useMentionPicker(opts: {
  text: string;
  /** Where the files are searched; undefined: the backend takes no mentions. */
  filesUrl: string | undefined;
  /** Another list (the slash commands) is open in the box: no file list. */
  suspended?: boolean;
  textarea: RefObject<HTMLTextAreaElement | null>;
  /** The text with the picked path in it, and the path. */
  onPick(text: string, path: string): void;
}) {
  const [caret, setCaret] = useState(0);
  const [closed, setClosed] = useState(false);
  const [index, setIndex] = useState(0);
  const mention = opts.filesUrl && !closed && !opts.suspended ? mentionAt(opts.text, caret) : undefined;
  const found = useFileMentions(opts.filesUrl, mention?.query);
  const items = mention ? found.items : [];
  const active = Math.min(index, items.length - 1);
  // Keeps the active option in view as the arrows move it (the list scrolls, never the page).
  const listRef = useRef<HTMLUListElement>(null);
  useEffect(() => {
    const list = listRef.current;
    const el = list?.children[active] as HTMLElement | undefined;
    if (!list || !el) return;
    if (el.offsetTop < list.scrollTop) list.scrollTop = el.offsetTop;
    else if (el.offsetTop + el.offsetHeight > list.scrollTop + list.clientHeight)
      list.scrollTop = el.offsetTop + el.offsetHeight - list.clientHeight;
  }, [active]);

  const pick = (path: string) => {
    if (!mention) return;
    const next = insertMention(opts.text, mention.start, caret, path);
    opts.onPick(next.text, path);
    setCaret(next.caret);
    setIndex(0);
    requestAnimationFrame(() => {
      opts.textarea.current?.focus();
      opts.textarea.current?.setSelectionRange(next.caret, next.caret);
    });
  };

  return {
    mention,
    found,
    items,
    active,
    listRef,
    setIndex,
    pick,
    /** The caret moved (a selection) without the text changing. */
    moved: (at: number) => setCaret(at),
    /** The text was typed: the list opens again where the caret is. */
    typed(at: number) {
      setCaret(at);
      setIndex(0);
      setClosed(false);
    },
    /** Handles the list's keys; true when it took the key (the box then does nothing more with it). */
    onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>): boolean {
      if (!mention) return false;
      if (items.length > 0) {
        if (e.key === "ArrowDown" || e.key === "ArrowUp") {
          e.preventDefault();
          setIndex((active + (e.key === "ArrowDown" ? 1 : -1) + items.length) % items.length);
          return true;
        }
        if ((e.key === "Tab" || e.key === "Enter") && !e.shiftKey && !e.nativeEvent.isComposing) {
          e.preventDefault();
          pick(items[active]!);
          return true;
        }
      }
      if (e.key === "Escape") {
        e.preventDefault();
        setClosed(true);
        return true;
      }
      return false;
    },
  };
}
