"use client";
import { lazy, Suspense, useEffect, useId, useMemo, useRef, useState } from "react";
import type { Attachment } from "@/lib/attachments";
import { usePromptQueue } from "@/lib/hooks/use-prompt-queue";
import { commandMatches, type SlashCommand } from "@/lib/slash-commands";
import { useMentionPicker } from "@/lib/hooks/use-mention-picker";
import { keptMentions } from "@/lib/mentions";
import { onMentionRequest } from "@/lib/client/mention-bus";
import type { Capabilities, SessionSettings } from "@/lib/model";
import { cx } from "../ui/cx";
import { IconStop } from "../ui/icons";
import { AttachButton } from "./attach-button";
import { AttachedFiles, QueuedPrompts } from "./composer-lists";
import { ComposerOptions, type ComposerOptionsProps } from "./composer-options";

// The popup lists and reading attached files load when first needed (a `/` or `@` typed, a file
// added), not with the session page; focusing the prompt box fetches the lists ahead.
const loadMenus = () => import("./composer-menus");
const CommandMenu = lazy(() => loadMenus().then((m) => ({ default: m.CommandMenu })));
const MentionPickerList = lazy(() => loadMenus().then((m) => ({ default: m.MentionPickerList })));

/** The agent and model pickers (ComposerOptionsProps) are shown under the box. */
export interface ComposerProps extends ComposerOptionsProps {
  busy: boolean;
  /** Why sending is impossible right now (backend down, session missing); undefined = can send. */
  disabledReason?: string;
  canAbort: boolean;
  /** Sends a prompt: its text, attached files, and the files `@`-mentioned in the text (paths relative to the session's directory). */
  onSend(text: string, files: Attachment[], mentions: string[]): Promise<void>;
  /** `@` file mentions: the session's `…/files` route (absent: this backend takes no mentions). */
  filesUrl?: string;
  /** The files this backend takes with a prompt (absent: no attach control). */
  attachments?: Capabilities["attachments"];
  onAbort(): Promise<void>;
  /** Text to start with (a prompt being re-asked in a fork). */
  initialText?: string;
  /** Slash commands the agent advertises: typing `/` offers them. */
  commands?: SessionSettings["commands"];
}

/**
 * The prompt box. Enter sends, Shift+Enter is a new line. While the agent works, prompts are
 * queued visibly and sent one by one when it is idle again; Stop (or Escape) aborts the turn.
 */
export function Composer({
  busy,
  disabledReason,
  canAbort,
  onSend,
  onAbort,
  initialText,
  commands,
  attachments,
  filesUrl,
  ...pickers
}: ComposerProps) {
  const [text, setText] = useState(initialText ?? "");
  const [files, setFiles] = useState<Attachment[]>([]);
  const [dragging, setDragging] = useState(false);
  const canAttach = Boolean(attachments?.images || attachments?.files);
  const [error, setError] = useState<string>();
  const { queue, mustQueue, send, enqueue, remove } = usePromptQueue({
    busy,
    disabledReason,
    onSend,
    onError: setError,
  });
  const [stopping, setStopping] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);
  const nextId = useRef(1);
  // The slash-command menu: open while a `/word` is typed, unless closed with Escape.
  const [cmdIndex, setCmdIndex] = useState(0);
  const [cmdClosed, setCmdClosed] = useState(false);
  const matches = useMemo(() => (cmdClosed ? [] : commandMatches(text, commands)), [text, commands, cmdClosed]);
  const complete = (c: SlashCommand) => {
    setText(`/${c.name} `);
    ref.current?.focus();
  };
  const menuId = useId();
  const optionId = (i: number) => `${menuId}-option-${i}`;

  // `@` file mentions (the slash-command menu, when open, goes first).
  const [mentioned, setMentioned] = useState<string[]>([]);
  const picker = useMentionPicker({
    text,
    filesUrl,
    suspended: matches.length > 0,
    textarea: ref,
    onPick(next, p) {
      setText(next);
      setMentioned((cur) => (cur.includes(p) ? cur : [...cur, p]));
    },
  });
  const { items: fileItems, active: activeFile } = picker;
  // A file mentioned from the file browser: `@path` at the end of the prompt.
  useEffect(() => {
    if (!filesUrl) return;
    return onMentionRequest((p) => {
      setText((t) => `${t}${t === "" || /\s$/.test(t) ? "" : " "}@${p} `);
      setMentioned((cur) => (cur.includes(p) ? cur : [...cur, p]));
      requestAnimationFrame(() => ref.current?.focus());
    });
  }, [filesUrl]);
  /** Adds files (picked, pasted or dropped); those that cannot go are named in the error line. */
  const addFiles = async (list: FileList | File[]) => {
    const picked = Array.from(list);
    if (!picked.length) return;
    const { readAttachments } = await import("@/lib/attachments");
    const { added, errors } = await readAttachments(picked, attachments, files, () => nextId.current++);
    if (added.length) setFiles((cur) => [...cur, ...added]);
    setError(errors.length ? errors.join(" · ") : undefined);
    ref.current?.focus();
  };

  useEffect(() => {
    if (!busy) setStopping(false);
  }, [busy]);

  const submit = async () => {
    const t = text.trim();
    if ((!t && !files.length) || disabledReason) return;
    const attached = files;
    const mentions = keptMentions(t, mentioned);
    if (mustQueue) {
      enqueue(t, attached, mentions);
      setText("");
      setFiles([]);
      setMentioned([]);
      return;
    }
    setText("");
    setFiles([]);
    setMentioned([]);
    const ok = await send(t, attached, mentions);
    if (!ok) {
      setText((cur) => cur || t);
      setFiles((cur) => (cur.length ? cur : attached));
      setMentioned((cur) => (cur.length ? cur : mentions));
    }
  };

  const abort = async () => {
    setStopping(true);
    try {
      await onAbort();
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not stop the turn");
      setStopping(false);
    }
  };

  // Autosize up to ~10 lines without jumping.
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-measures the box when the text changes
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = "0px";
    el.style.height = `${Math.min(220, Math.max(44, el.scrollHeight))}px`;
  }, [text]);

  return (
    // Pinned at the bottom of the frame (which follows the visual viewport: components/shell/shell.tsx),
    // padded clear of a phone's home indicator.
    <div className="shrink-0 border-t border-border bg-panel px-4 pb-[max(0.75rem,env(safe-area-inset-bottom))] pt-2 phone:px-2.5 phone:pb-[max(0.5rem,env(safe-area-inset-bottom))]">
      <div className="@container mx-auto max-w-[880px]">
        {queue.length > 0 && <QueuedPrompts queue={queue} onRemove={remove} />}
        {error && (
          <p className="mb-1.5 text-[12px] text-err" role="alert" data-testid="composer-error">
            {error}
          </p>
        )}
        {files.length > 0 && (
          <AttachedFiles files={files} onRemove={(id) => setFiles((all) => all.filter((x) => x.id !== id))} />
        )}
        <div
          className={cx(
            "relative flex items-end gap-2 rounded-lg border bg-sunken p-1.5 pl-3 focus-within:border-accent",
            disabledReason ? "border-border opacity-70" : "border-border-strong",
            dragging && "border-accent ring-2 ring-accent/40",
            canAttach && "pl-1.5",
          )}
          onDragOver={(e) => {
            if (!canAttach || disabledReason || !e.dataTransfer.types.includes("Files")) return;
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(e) => {
            setDragging(false);
            if (!canAttach || disabledReason || !e.dataTransfer.files.length) return;
            e.preventDefault();
            void addFiles(e.dataTransfer.files);
          }}
          data-testid="composer-box"
        >
          {canAttach ? (
            <AttachButton
              attachments={attachments}
              disabled={Boolean(disabledReason)}
              onFiles={(f) => void addFiles(f)}
              className="phone:size-[44px]"
            />
          ) : null}
          {matches.length > 0 ? (
            <Suspense fallback={null}>
              <CommandMenu
                id={menuId}
                items={matches}
                activeIndex={Math.min(cmdIndex, matches.length - 1)}
                optionId={optionId}
                onPick={complete}
                onHover={setCmdIndex}
              />
            </Suspense>
          ) : null}
          {picker.mention ? (
            <Suspense fallback={null}>
              <MentionPickerList picker={picker} id={menuId} optionId={optionId} />
            </Suspense>
          ) : null}
          <textarea
            ref={ref}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              setCmdIndex(0);
              setCmdClosed(false);
              picker.typed(e.target.selectionStart);
            }}
            onSelect={(e) => picker.moved(e.currentTarget.selectionStart)}
            onFocus={() => void loadMenus()}
            onPaste={(e) => {
              // A pasted image (a screenshot, a photo on a phone) or file is attached, not pasted as text.
              if (!canAttach || !e.clipboardData.files.length) return;
              e.preventDefault();
              void addFiles(e.clipboardData.files);
            }}
            onKeyDown={(e) => {
              if (picker.onKeyDown(e)) return;
              if (matches.length > 0) {
                const pick = matches[Math.min(cmdIndex, matches.length - 1)]!;
                if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                  e.preventDefault();
                  const step = e.key === "ArrowDown" ? 1 : -1;
                  setCmdIndex((i) => (Math.min(i, matches.length - 1) + step + matches.length) % matches.length);
                  return;
                }
                if ((e.key === "Tab" || e.key === "Enter") && !e.shiftKey && !e.nativeEvent.isComposing) {
                  e.preventDefault();
                  complete(pick);
                  return;
                }
                if (e.key === "Escape") {
                  e.preventDefault();
                  setCmdClosed(true);
                  return;
                }
              }
              if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                void submit();
              } else if (e.key === "Escape" && busy && canAbort) {
                e.preventDefault();
                void abort();
              }
            }}
            rows={1}
            placeholder={
              disabledReason ?? (busy ? "The agent is working — your message will be queued" : "Ask the agent…")
            }
            disabled={Boolean(disabledReason)}
            title={disabledReason}
            data-testid="composer-input"
            aria-label="Prompt"
            // A textarea takes no combobox role: as a textbox it names its popup list and active option.
            aria-autocomplete={commands?.length || filesUrl ? "list" : undefined}
            aria-controls={matches.length > 0 || fileItems.length > 0 ? menuId : undefined}
            aria-activedescendant={
              matches.length > 0
                ? optionId(Math.min(cmdIndex, matches.length - 1))
                : fileItems.length > 0
                  ? optionId(activeFile)
                  : undefined
            }
            className="min-h-[44px] min-w-0 flex-1 resize-none bg-transparent py-2 text-[13.5px] leading-5 text-fg outline-none placeholder:text-faint disabled:cursor-not-allowed phone:text-[16px]"
          />
          {busy && canAbort && (
            <button
              type="button"
              onClick={() => void abort()}
              disabled={stopping}
              data-testid="stop"
              title="Stop (Esc)"
              className="inline-flex h-8 items-center gap-1.5 rounded-md border border-err/40 bg-err/10 px-3 text-[12px] font-medium text-err hover:bg-err/20 disabled:opacity-60 phone:h-[44px]"
            >
              <IconStop className="size-3.5" />
              {stopping ? "Stopping…" : "Stop"}
            </button>
          )}
          <button
            type="button"
            onClick={() => void submit()}
            disabled={Boolean(disabledReason) || (!text.trim() && files.length === 0)}
            data-testid="send"
            className="inline-flex h-8 items-center rounded-md bg-accent px-3 text-[12px] font-semibold text-accent-fg hover:brightness-110 disabled:opacity-40 phone:h-[44px] phone:px-4"
          >
            {busy ? "Queue" : "Send"}
          </button>
        </div>
        <ComposerOptions {...pickers} filesUrl={filesUrl} />
      </div>
    </div>
  );
}
