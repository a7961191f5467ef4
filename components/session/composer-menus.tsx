"use client";
/**
 * The prompt box's popup lists: slash commands while a `/word` is typed, files while an `@word` is.
 * The textarea keeps the focus and names the active option (aria-activedescendant), so options are
 * picked on mouse down.
 */
import type { RefObject } from "react";
import type { useMentionPicker } from "@/lib/hooks/use-mention-picker";
import type { SlashCommand } from "@/lib/slash-commands";
import { cx } from "../ui/cx";
import { IconPaperclip } from "../ui/icons";

interface MenuProps<T> {
  id: string;
  items: readonly T[];
  activeIndex: number;
  optionId(i: number): string;
  onPick(item: T): void;
  onHover(i: number): void;
}

export function CommandMenu({ id, items: matches, activeIndex, optionId, onPick, onHover }: MenuProps<SlashCommand>) {
  return (
    <ul
      role="listbox"
      id={id}
      aria-label="Slash commands"
      data-testid="command-menu"
      className="absolute inset-x-0 bottom-full z-20 mb-1.5 overflow-hidden rounded-lg border border-border-strong bg-panel py-1 shadow-lg"
    >
      {matches.map((c, i) => {
        const active = i === activeIndex;
        return (
          <li
            key={c.name}
            id={optionId(i)}
            role="option"
            aria-selected={active}
            data-testid="command-option"
            data-name={c.name}
            onMouseDown={(e) => {
              e.preventDefault();
              onPick(c);
            }}
            onMouseEnter={() => onHover(i)}
            className={cx(
              "flex h-7 cursor-pointer items-center gap-2 px-3 text-[12.5px]",
              active ? "bg-raised text-fg" : "text-muted",
            )}
          >
            <span className="shrink-0 font-mono text-fg">/{c.name}</span>
            {c.hint ? <span className="shrink-0 font-mono text-[11.5px] text-faint">{c.hint}</span> : null}
            {c.description ? <span className="min-w-0 flex-1 truncate text-faint">{c.description}</span> : null}
          </li>
        );
      })}
    </ul>
  );
}

export function MentionMenu({
  id,
  listRef,
  items,
  activeIndex,
  optionId,
  onPick,
  onHover,
}: MenuProps<string> & { listRef: RefObject<HTMLUListElement | null> }) {
  return (
    <ul
      role="listbox"
      id={id}
      ref={listRef}
      aria-label="Files to mention"
      data-testid="mention-menu"
      className="absolute inset-x-0 bottom-full z-20 mb-1.5 max-h-[min(45dvh,300px)] overflow-y-auto overscroll-contain rounded-lg border border-border-strong bg-panel py-1 shadow-lg"
    >
      {items.map((p, i) => {
        const active = i === activeIndex;
        const slash = p.lastIndexOf("/");
        return (
          <li
            key={p}
            id={optionId(i)}
            role="option"
            aria-selected={active}
            data-testid="mention-option"
            data-path={p}
            onMouseDown={(e) => {
              e.preventDefault();
              onPick(p);
            }}
            onMouseEnter={() => onHover(i)}
            className={cx(
              "flex h-7 min-w-0 cursor-pointer items-center gap-2 px-3 font-mono text-[12.5px] phone:h-10",
              active ? "bg-raised text-fg" : "text-muted",
            )}
          >
            <IconPaperclip size={12} className="shrink-0 text-faint" />
            <span className="shrink-0 text-fg">{p.slice(slash + 1)}</span>
            {slash > 0 ? <span className="min-w-0 flex-1 truncate text-faint">{p.slice(0, slash)}</span> : null}
          </li>
        );
      })}
    </ul>
  );
}

/** In place of the file list: no file matches, or the files could not be listed. */
export function MentionStatus({ error }: { error: string | undefined }) {
  return (
    <p
      role="status"
      data-testid="mention-status"
      className="absolute inset-x-0 bottom-full z-20 mb-1.5 truncate rounded-lg border border-border-strong bg-panel px-3 py-1.5 text-[12px] text-muted shadow-lg"
    >
      {error ? `Files unavailable: ${error}` : "No matching files"}
    </p>
  );
}

/** The `@` file list of a prompt box (useMentionPicker), or in its place why there is none. */
export function MentionPickerList({
  picker,
  id,
  optionId,
}: {
  picker: ReturnType<typeof useMentionPicker>;
  id: string;
  optionId(i: number): string;
}) {
  if (!picker.mention) return null;
  if (picker.items.length > 0)
    return (
      <MentionMenu
        id={id}
        listRef={picker.listRef}
        items={picker.items}
        activeIndex={picker.active}
        optionId={optionId}
        onPick={picker.pick}
        onHover={picker.setIndex}
      />
    );
  return picker.found.error || !picker.found.loading ? <MentionStatus error={picker.found.error} /> : null;
}
